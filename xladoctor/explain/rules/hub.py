"""The Hugging Face libraries' own refusals that say which setting or release they need: datasets' loading scripts,
diffusers' AutoPipeline mappings, transformers' attention implementations."""

from __future__ import annotations

import re

from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, rule
from xladoctor.fix import export, install

_DATASETS_LOAD = "https://github.com/huggingface/datasets/blob/main/src/datasets/load.py"


# datasets 2.16 added trust_remote_code for datasets built by a Python loading script of their repository; from 2.20
# it defaults to False. Its refusals: "Loading X requires you to execute the dataset script in that repo on your
# local machine", "Loading this dataset requires you to execute custom code contained in the dataset repository on
# your local machine" (asked at a terminal, no answer in time), and "The repository for X contains custom code which
# must be executed to correctly load the dataset ... Please pass the argument `trust_remote_code=True`" (no terminal to
# ask at; the same first sentence opens the [y/N] question it asks at a terminal, which is not a failure)
@rule(
    "bad-configuration",
    r"requires you to execute (?:the dataset script in that repo|custom code contained in the dataset repository) "
    r"on your local machine|contains custom code which must be executed to correctly load the dataset\.[^\n]{0,300}"
    r"(?:\n[^\n]{0,20})?Please pass the argument `?trust_remote_code=True",
    source=_DATASETS_LOAD + " (resolve_trust_remote_code and its timeout); huggingface/datasets#6981 "
    "(trust_remote_code defaults to False)",
    confidence=0.85,
)
def dataset_script_not_trusted(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The dataset is built by a Python loading script of its repository, and the installed datasets runs such "
        "code only when told to: pass trust_remote_code=True to load_dataset(), or, where the call is inside another "
        "library (an evaluation harness, a trainer) that gives no argument for it, set HF_DATASETS_TRUST_REMOTE_CODE=1 "
        "for the run (or datasets.config.HF_DATASETS_TRUST_REMOTE_CODE = True before it loads). Read the script "
        "first: it runs on your machine. datasets 4.0 and newer run no loading scripts at all.",
        {"variable": "HF_DATASETS_TRUST_REMOTE_CODE", "option": "trust_remote_code"},
        export("HF_DATASETS_TRUST_REMOTE_CODE", "1"),
        verdict="environment",
    )


# datasets 4.0 removed loading scripts: load.py raises "Dataset scripts are no longer supported, but found X.py"
@rule(
    "api-version-skew",
    r"Dataset scripts are no longer supported, but found (?P<script>[\w.-]{1,120}\.py)",
    source=_DATASETS_LOAD + " (datasets 4.0 dropped dataset loading scripts)",
    confidence=0.9,
)
def dataset_scripts_removed(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"The dataset is built by a loading script ({found.group('script')}), and datasets 4.0 and newer run none: "
        "the code that loads it was written for datasets 3 or older. Install datasets<4 (and pass "
        "trust_remote_code=True), or load a copy of the dataset converted to data files (Parquet, JSON), which the "
        "dataset's page may offer.",
        {"package": "datasets", "script": found.group("script")},
        install(("datasets", "<4")),
        verdict="environment",
    )


# diffusers' AutoPipeline* maps a pipeline class to the pipelines of each task (pipelines/auto_pipeline.py,
# _get_task_class); "for None": the class is in none of the installed release's mappings, because that release is
# older than the one that mapped it, or because no release maps it (LTXPipeline, ShapEImg2ImgPipeline)
@rule(
    "api-version-skew",
    r"AutoPipeline can't find a pipeline linked to (?P<pipeline>\w{1,120}) for None",
    source="https://github.com/huggingface/diffusers/blob/main/src/diffusers/pipelines/auto_pipeline.py "
    "(_get_task_class)",
    confidence=0.7,
)
def auto_pipeline_unknown(found: re.Match[str], failure: Failure) -> Lead:
    pipeline = found.group("pipeline")
    return Lead(
        f"The pipeline class {pipeline} (named by the model's model_index.json, or by the pipeline given to "
        f"from_pipe) is in none of the installed diffusers' AutoPipeline mappings: either the installed diffusers "
        f"is older than the release that mapped {pipeline} (upgrade diffusers), or no release maps it, and the code "
        f"should load it with DiffusionPipeline.from_pretrained (which takes the class model_index.json names) or "
        f"{pipeline}.from_pretrained. The command below tells which: the installed diffusers has no {pipeline} at "
        "all when it is too old.",
        {"package": "diffusers", "pipeline": pipeline},
        verdict="environment",
        next=(f"python -c \"import diffusers; print(diffusers.__version__, hasattr(diffusers, '{pipeline}'))\"",),
    )


# transformers once fell back from SDPA (or another fast attention) to the eager one when attention weights were
# asked for, with a warning ("Falling back to the manual attention implementation, but specifying the manual
# implementation will be required from Transformers version v5.0.0 onwards"); newer releases refuse instead
@rule(
    "api-version-skew",
    r"The `?output_attentions`? attribute is not supported when using the `?attn_implementation`? set to "
    r"(?P<implementation>\w{1,40})",
    source="https://github.com/huggingface/transformers/issues/31990 (the older fallback's warning); "
    "https://github.com/MeiGen-AI/InfiniteTalk/issues/12 (works with an older transformers, or with eager)",
    confidence=0.8,
)
def attentions_need_eager(found: re.Match[str], failure: Failure) -> Lead:
    implementation = found.group("implementation")
    return Lead(
        f"The code asks the model for its attention weights (output_attentions=True) while it runs the "
        f"{implementation} attention, which computes none. Older transformers releases fell back to the eager "
        f"attention with a warning; the installed transformers refuses: the code was written for such a release. "
        f'Load the model with attn_implementation="eager" (or set model.config._attn_implementation = "eager" '
        f"where the code builds it), stop asking for attentions, or install the transformers release the project "
        f"pins.",
        {"package": "transformers", "option": "attn_implementation", "implementation": implementation},
        verdict="environment",
        next=("python -m pip show transformers",),
    )
