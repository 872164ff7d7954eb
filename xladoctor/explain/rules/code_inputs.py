"""The user's models, data and inputs, not the environment: a weights file or checkpoint of the wrong form or for
another model, a dataset, tokenizer, prompt or configuration the code refuses, a quantized model moved or cast, an
application's workflow (ComfyUI, Forge) wired with the wrong files; each read from the message the library prints
when it refuses them. The tensors' own shapes, dtypes and devices are code.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass

from xladoctor.explain.records import Failure, Frame
from xladoctor.explain.rules import Lead, listing, looks_like_a_path, rule, unexpanded_home, yours
from xladoctor.fix import install
from xladoctor.sanitize import scrubbed_head

# A weights file that is not what it claims: cut short by a download, an HTML page saved in its place, or the pointer
# Git LFS leaves when a repository is cloned without it ("version https://git-lfs.github.com/spec/v1 ...": pickle
# reads its 'v' as a load key, safetensors reads "version " as a header length far too large).
_BROKEN_WEIGHTS = (
    r"PytorchStreamReader failed reading (?:zip archive|file [^:\n]{1,120}): (?:failed finding central directory"
    r"|invalid header or archive is corrupted)"
    r"|invalid load key, '(?P<key>[^'\n]{1,6})'"
    r"|Error while deserializing header: (?P<header>HeaderTooLarge|HeaderTooSmall|MetadataIncompleteBuffer"
    r"|InvalidHeader\w{0,40})"
    r"|unexpected EOF, expected \d+ more bytes\. The file might be corrupted"
    r"|Unable to (?:synchronously )?open file \((?P<hdf5>file signature not found|truncated file)"
    # onnxruntime's InferenceSession (core/session/inference_session.cc "Load model from ... failed:", the protobuf
    # reader's "Protobuf parsing failed."): an .onnx file that is not a whole one
    r"|Load model from (?P<onnx>[^\n]{1,300}?) failed: ?Protobuf parsing failed"
    # gguf-py's GGUFReader (gguf/gguf_reader.py): the file does not start with GGUF's magic bytes
    r"|(?P<gguf>GGUF magic invalid)"
)


# a call's argument that names a weights file: `load_torch_file(feature_extractor_path)`, `torch.load(args.ckpt)`,
# `load(path)`; not a configuration, a log or an output the same call shape passes
_FILE_ARGUMENT = re.compile(
    r"\((?:[^()\n]{0,300}[,(]\s*)?(?:\w{1,60}=)?(?P<variable>(?:[A-Za-z_][\w.]{0,100}?)?"
    r"(?:path|file|filename|ckpt|checkpoint|weights?)(?:_\w{1,60})?)\s*[,)]",
    re.IGNORECASE,
)
_NOT_WEIGHTS = re.compile(
    r"config|cfg|log|yaml|json|csv|txt|output|out_|save|dir|image|img|audio|video|data|prompt|text|label|vocab|token"
    r"|annotation|list|script|source|input",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GivenFile:
    variable: str
    frame: Frame


def where_the_file_was_given(failure: Failure) -> GivenFile | None:
    """The outermost frame of the user's or the application's own code (never an installed library's) whose call
    passes a weights file by a variable's name: where that file was chosen (a node's
    `load_torch_file(feature_extractor_path)`, a script's `torch.load(args.ckpt)`), before the loaders hand it on
    under their parameters' names."""
    for frame in failure.frames:
        if frame.installed:
            continue
        argument = _FILE_ARGUMENT.search(frame.code)
        if argument is not None and not _NOT_WEIGHTS.search(argument.group("variable")):
            return GivenFile(argument.group("variable"), frame)
    return None


def _why_not_whole(found: re.Match[str]) -> str:
    """What the file that is not a whole one most likely is, by the loader's words, and what to do."""
    if found.group("gguf"):
        return (
            "it is no GGUF file: a Git LFS pointer or an HTML page saved in its place, or a file of another format "
            "(.safetensors, .ckpt) given to a GGUF loader: download the .gguf file again, or load the file with its "
            "own loader"
        )
    if found.group("onnx"):
        return (
            f"{found.group('onnx')} is cut short (an interrupted or too-large automatic download), a Git LFS pointer "
            "or an HTML page saved in its place, or no ONNX file at all (a .pt or .engine given where the .onnx is "
            "expected): download it again, by hand from the model's page if the automatic download fails, and "
            "compare its size with the published file's"
        )
    # pickle reads a Git LFS pointer's "v" as a load key, safetensors its "version " as a header length far too large
    if found.group("key") == "v" or found.group("header") == "HeaderTooLarge":
        return (
            "it may be a Git LFS pointer (a small text file starting 'version https://git-lfs'), left by cloning the "
            "model's repository without Git LFS: run git lfs install and git lfs pull in it, or download the file "
            "again"
        )
    if found.group("key") == "<":
        return (
            "it is an HTML page (a login or error page saved in its place): download it again, from the file's "
            "direct link"
        )
    return (
        "it is cut short or corrupt (an interrupted download, a full disk): download it again and compare its size "
        "or checksum with the source's"
    )


@rule(
    "user-code-error",
    _BROKEN_WEIGHTS,
    source="https://github.com/pytorch/pytorch/blob/main/caffe2/serialize/inline_container.cc (PytorchStreamReader); "
    "https://github.com/huggingface/safetensors/blob/main/safetensors/src/tensor.rs (SafeTensorError); "
    "https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md (the pointer file); https://github.com/microsoft/"
    "onnxruntime/blob/main/onnxruntime/core/session/inference_session.cc (Load model from); settled as an incomplete "
    "or LFS download in https://github.com/city96/ComfyUI-GGUF/issues/43, "
    "https://github.com/turboderp/exllama/issues/242 and https://github.com/Tencent-Hunyuan/HunyuanVideo/"
    "issues/73",
    confidence=0.8,
)
def broken_weights_file(found: re.Match[str], failure: Failure) -> Lead:
    why = _why_not_whole(found)
    given = where_the_file_was_given(failure)
    at = (
        f" The file is the one {given.variable} names, given at {given.frame.short()} (`{given.frame.code.strip()}`)."
        if given is not None
        else ""
    )
    return Lead(
        f"The weights or checkpoint file being loaded is not a whole one "
        f"({scrubbed_head(found.group(0), 100)}): {why}. Not an "
        f"environment problem: the file, not the installed packages.{at}",
        {"what": scrubbed_head(found.group(0), 100), **({"variable": given.variable} if given is not None else {})},
        verdict="not-environment",
        next=("head -c 200 ...  # the weights file: a Git LFS pointer or an HTML page shows as text",),
    )


# A model folder given to from_pretrained (transformers, diffusers, huggingface_hub) that is not the folder the
# library needs: a path that does not exist from where the program runs (then the name is taken for a Hub
# repository id and refused as one), or a folder without the file the loader reads first (a checkpoint sub-folder,
# a half-finished download, a folder of another layout). A name that is a Hub id is not read here: a repository
# without that file is the Hub's or the library's matter (diffusers' single-file loader once asked a retired repo).
_MODEL_FOLDER = (
    # transformers' cached_files (src/transformers/utils/hub.py), for a folder and for a Hub repository alike
    # (after the exception's type the folder runs to the words, spaces and all: "/content/drive/My Drive/x")
    r"(?:\w{0,40}Error: (?P<folder>[^\n'\"`]{1,300}?)|(?:^|(?<=[\s'\"`(:]))(?P<bare>[^\s'\"`]{1,300})) does not "
    r"appear to have a file named (?P<file>[\w.-]{1,120})"
    # diffusers' _get_model_file (src/diffusers/utils/hub_utils.py): a local folder only
    r"|Error no file named (?P<weights>[\w.-]{1,120}) found in directory (?P<directory>[^\n]{1,300})"
    # huggingface_hub's validate_repo_id (src/huggingface_hub/utils/_validators.py): a path that is no folder here
    # reaches the Hub's id check
    r"|Repo id must (?:be in the form 'repo_name' or 'namespace/repo_name'|use alphanumeric chars)[^\n]{0,200}?"
    r": '(?P<repo_id>[^'\n]{1,300})'"
    # transformers' cached_files, when the name is neither a folder nor an id the Hub could hold
    r"|Incorrect path_or_model_id: '(?P<incorrect>[^'\n]{1,300})'"
)


@rule(
    "user-code-error",
    _MODEL_FOLDER,
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/hub.py (cached_files); "
    "https://github.com/huggingface/diffusers/blob/main/src/diffusers/utils/hub_utils.py (_get_model_file); "
    "https://github.com/huggingface/huggingface_hub/blob/main/src/huggingface_hub/utils/_validators.py "
    "(validate_repo_id); settled as the user's path in https://github.com/artidoro/qlora/issues/175, "
    "https://github.com/levihsu/OOTDiffusion/issues/204 and https://github.com/microsoft/LMOps/issues/71",
    confidence=0.8,
)
def model_folder_not_found(found: re.Match[str], failure: Failure) -> Lead | None:
    named = found.group("folder") or found.group("bare")
    directory = found.group("directory") or ""
    directory = directory[:-1] if directory.endswith(".") else directory  # the sentence's full stop, once: ".." is "."
    folder = scrubbed_head((named or directory or found.group("repo_id") or found.group("incorrect")).strip(), 300)
    wanted = (found.group("file") or found.group("weights") or "").rstrip(".")  # the sentence's full stop
    if named and not looks_like_a_path(folder):
        return None  # a Hub repository without that file: not the user's path
    if wanted:
        what = (
            f"The folder given as the model, {folder}, has no {wanted}, the file the loader reads first: the path "
            "points at another folder than the model's (a checkpoint or adapter sub-folder, the folder above it, a "
            "download that did not finish). Give the folder that holds the model's files."
        )
    else:
        what = (
            f"The model was given as {folder}, which is no folder from where the program runs, so the library took "
            "it for a Hugging Face Hub repository id, which it cannot be: a mistyped path, a relative path run from "
            "another working directory, or a model not downloaded there yet."
        )
    return Lead(
        yours(failure, what + unexpanded_home(folder)),
        {"path": folder, **({"file": wanted} if wanted else {})},
        verdict="not-environment",
        next=listing(folder, failure),
    )


@rule(
    "user-code-error",
    r"Could not detect model type(?: of: (?P<path>[^\n]{1,300}))?",
    source="https://github.com/comfyanonymous/ComfyUI/blob/master/comfy/sd.py (load_checkpoint_guess_config, "
    "load_diffusion_model); settled as a file in the wrong loader in https://github.com/Comfy-Org/ComfyUI/issues/4428 "
    "and https://github.com/Comfy-Org/ComfyUI/issues/7221",
    confidence=0.75,
)
def comfyui_model_type_unknown(found: re.Match[str], failure: Failure) -> Lead:
    path = (found.group("path") or "").strip()
    return Lead(
        f"ComfyUI does not recognise the weights in {path or 'the file the loader was given'} as a model of the kind "
        "this loader loads: most often a file in the wrong loader (a LoRA in Load Checkpoint: models/loras and Load "
        "LoRA; a diffusion model alone: models/diffusion_models and Load Diffusion Model, with its text encoders and "
        "VAE loaded apart). A model of an architecture newer than the installed ComfyUI reads the same: update "
        "ComfyUI if the file is a full checkpoint of a new model.",
        {"path": path, "node": "Load Checkpoint"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"CLIPTextEncode[^\n]{0,40}'NoneType' object has no attribute 'tokenize'|clip input is invalid: None",
    source="https://github.com/comfyanonymous/ComfyUI/blob/master/nodes.py (CLIPTextEncode.encode: 'If the clip is "
    "from a checkpoint loader node your checkpoint does not contain a valid clip or text encoder model')",
    confidence=0.8,
)
def comfyui_checkpoint_without_clip(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The text encoder node was given no CLIP: the checkpoint loaded holds no text encoder (a diffusion model "
        "alone, such as Flux's or a GGUF's). Load the text encoder with its own loader (Load CLIP, DualCLIPLoader) and "
        "wire it to the prompt node, or load a full checkpoint. Not an environment problem: the workflow.",
        {"node": "Load Checkpoint", "what": "CLIP"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Failed to load fold input from (?P<path>[^\n]{1,300}?)(?:\.\s|\.?$)",
    source="https://github.com/google-deepmind/alphafold3/blob/main/src/alphafold3/common/folding_input.py "
    "(load_fold_inputs_from_path) and docs/input.md",
    confidence=0.75,
    flags=re.MULTILINE,
)
def alphafold_input_rejected(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"AlphaFold 3 refused its input file {found.group('path').strip()}: the JSON does not follow the input format "
        "(its dialect and version, sequences, MSA in A3M, templates with their mmCIF, bonds). Check it against "
        "docs/input.md of the installed release; the lines after this one name the field. Not an environment problem.",
        {"path": found.group("path").strip(), "what": "input JSON"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"FlashAttention only supports? fp16 and bf16 data type",
    source="https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/flash_api.cpp (mha_fwd's dtype "
    "check)",
    confidence=0.8,
)
def flash_attention_given_float32(found: re.Match[str], failure: Failure) -> Lead:
    """flash-attn runs in half precision only; a model loaded without a dtype is float32 (transformers' default),
    and a trainer without bf16/fp16 keeps its activations in float32."""
    return Lead(
        "FlashAttention was given float32 tensors and runs only on float16 or bfloat16: load the model in half "
        'precision (from_pretrained(..., torch_dtype=torch.bfloat16) or torch_dtype="auto"), set bf16=True (or '
        "fp16=True) in the trainer's arguments, or run under torch.autocast. Not an environment problem.",
        {"option": "torch_dtype", "trainer": "bf16=True / fp16=True"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"You are attempting to perform batched generation with padding_side='right'",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/modeling_flash_attention_utils.py "
    "(the models' flash-attention path refuses right padding when generating a batch)",
    confidence=0.8,
)
def right_padding_in_batched_generation(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Batched generation with the FlashAttention implementation needs the prompts padded on the left, and the "
        "tokenizer pads on the right: set tokenizer.padding_side = 'left' (a processor's: processor.tokenizer."
        "padding_side) before tokenizing, or load the model without attn_implementation='flash_attention_2'. Not an "
        "environment problem.",
        {"option": "padding_side", "value": "left", "implementation": "attn_implementation"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Target modules? (?P<modules>[^\n]{1,200}?) not found in the base model",
    source="https://github.com/huggingface/peft/blob/main/src/peft/tuners/tuners_utils.py (inject_adapter)",
    confidence=0.8,
)
def lora_target_modules_absent(found: re.Match[str], failure: Failure) -> Lead:
    modules = found.group("modules").strip()
    return Lead(
        f"PEFT found none of the target modules {modules} in this model: the names in target_modules (a LoRA "
        "config) are another architecture's. List the model's module names (print(model) or "
        "[n for n, _ in model.named_modules()]) and name its attention/projection layers (q_proj, query_key_value, "
        "c_attn...), or target_modules='all-linear'. Not an environment problem.",
        {"option": "target_modules", "modules": modules},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Column (?P<column>[^\n]{1,120}?) not in the dataset\. Current columns in the dataset: "
    r"(?P<columns>\[[^\n]{0,300}?\])"
    # diffusers' training scripts (examples/text_to_image/train_text_to_image.py and their kin): the column an
    # option names, against the dataset's ("--caption_column' value 'text' needs to be one of: image")
    r"|(?P<option>--\w{1,40}_column)' value '(?P<named>[^'\n]{0,120})' needs to be one of: (?P<listed>[^\n]{0,300})",
    source="https://github.com/huggingface/datasets/blob/main/src/datasets/formatting/formatting.py (key_to_query_type "
    "and the Dataset's column lookup); https://github.com/huggingface/diffusers/blob/main/examples/text_to_image/"
    "train_text_to_image.py (the --image_column and --caption_column checks)",
    confidence=0.75,
)
def dataset_column_absent(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("option"):
        option, named = found.group("option"), scrubbed_head(found.group("named"), 120)
        listed = scrubbed_head(found.group("listed").strip(), 200) or "none"
        return Lead(
            f"The training script's {option} names the column '{named}', and the dataset has no such column (its "
            f"columns: {listed}): pass {option} with the dataset's own column name, or give the dataset that column "
            "(an image dataset needs its captions too: a metadata file beside the images, for an imagefolder). Not "
            "an environment problem.",
            {"option": option, "column": named, "what": "dataset"},
            verdict="not-environment",
        )
    column, columns = found.group("column").strip("'\" "), found.group("columns")
    return Lead(
        f"The dataset has no column {column} (its columns: {scrubbed_head(columns, 160)}): the data's layout is "
        "not the one the script reads (its field names, or a preprocessing step that left "
        + ("no columns at all" if columns.strip("[] ") == "" else "others")
        + "). Rename or map the fields to what the script expects (dataset.rename_column, .map). Not an environment "
        "problem.",
        {"column": column, "what": "dataset"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"JSON parse error: (?P<said>[^\n]{3,200})",
    source="https://github.com/apache/arrow/blob/main/cpp/src/arrow/json/parser.cc (the JSON reader "
    "datasets' load_dataset('json') uses: one object per line, the same fields in each)",
    confidence=0.6,
)
def json_data_file_layout(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"The data file is not JSON as the loader reads it ({scrubbed_head(found.group('said'), 160)}): "
        "load_dataset('json') (Arrow's reader) wants JSON Lines, one object per line with the same fields of the same "
        "types in every row, or one JSON document it can read as a table. Re-save it as .jsonl with one object per "
        "line. Not an environment problem.",
        {"loader": "load_dataset", "format": "JSON Lines (jsonl)"},
        verdict="not-environment",
    )


# Python's own operator error where one side is a container or a model, not a number or an array: a pytree of
# gradients taken with respect to the wrong argument, a module where its output was meant, a dict of outputs
_CONTAINERS = r"dict|list|tuple|Linear|Module|Sequential|\w{0,40}Model|\w{0,40}Output|function|method"


@rule(
    "user-code-error",
    r"unsupported operand type\(s\) for (?P<op>\S{1,3}): '(?P<left>[\w.]{1,80})' and '(?P<right>[\w.]{1,80})'",
    source="https://docs.python.org/3/library/constants.html#NotImplemented (binary operators raise this TypeError "
    "when neither operand supports the other's type); https://docs.jax.dev/en/latest/_autosummary/jax.grad.html",
    confidence=0.6,
)
def arithmetic_on_a_container(found: re.Match[str], failure: Failure) -> Lead | None:
    left, right = found.group("left"), found.group("right")
    if not any(re.fullmatch(_CONTAINERS, side.rsplit(".", 1)[-1]) for side in (left, right)):
        return None  # numbers and arrays of two kinds, or None: not the shape this reads
    where = failure.haystack + " ".join(frame.file for frame in failure.frames)
    jax = any(word in where for word in ("optax", "jax", "equinox", "flax"))
    hint = (
        " In JAX, jax.grad and jax.value_and_grad differentiate their first argument: pass the parameters (the model) "
        "first, so the gradients have the parameters' structure (equinox: eqx.filter_grad)."
        if jax
        else ""
    )
    return Lead(
        f"Arithmetic ({found.group('op')}) was given a '{left}' and a '{right}': a container or a model reached code "
        f"that expected a number or an array, so a value of the wrong structure came from the calling code.{hint} Not "
        "an environment problem.",
        {"operands": f"{left}, {right}", "call": "jax.grad / jax.value_and_grad" if jax else ""},
        verdict="not-environment",
    )


# torch.distributions' argument checks (validate_args, on by default): a parameter outside its constraint when the
# distribution is made, a value outside its support when log_prob or cdf reads it; the values follow the message
@rule(
    "user-code-error",
    r"Expected parameter (?P<param>\w{1,80}) \(\w{1,40} of shape \((?P<shape>[\d, ]{0,80})\)\) of distribution "
    r"(?P<dist>\w{1,80})\([^\n]{0,400}?to satisfy the constraint (?P<constraint>[^\n]{1,120}?), but found invalid "
    r"values"
    r"|Expected value argument \(\w{1,40} of shape \((?P<vshape>[\d, ]{0,80})\)\) to be within the support "
    r"\((?P<support>[^\n]{1,120}?)\) of the distribution (?P<vdist>\w{1,80})\(",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributions/distribution.py (__init__ checks each "
    "parameter against its constraint, _validate_sample each value against the support)",
    confidence=0.8,
)
def distribution_given_invalid_values(found: re.Match[str], failure: Failure) -> Lead:
    """Most often NaN: the network that computes the distribution's parameters (a policy's mean, a VAE's scale)
    diverged, or its inputs hold NaN; else a value outside the support (a negative scale, a label out of range)."""
    dist = found.group("dist") or found.group("vdist")
    what = (
        f"the parameter {found.group('param')} of {dist} must satisfy {found.group('constraint')}"
        if found.group("param")
        else f"a value given to {dist} must lie within its support ({found.group('support')})"
    )
    shown = failure.message[found.end() :]
    nan = re.search(r"\bnan\b", shown) is not None
    cause = (
        "and it holds NaN: the numbers computed before it diverged (a learning rate too high, inputs whose "
        "normalization is missing or wrong, a division by zero or a log of zero, half precision overflowing) or NaN "
        "came in with the data. Find where "
        "the first NaN appears (torch.autograd.set_detect_anomaly(True), torch.isnan checks on the inputs and the "
        "network's outputs)."
        if nan
        else "and some of its values are outside that: the code computes them outside the range the distribution "
        "takes (a negative scale, probabilities that do not sum to 1, a label out of range)."
    )
    return Lead(
        yours(failure, f"torch.distributions checks its arguments: {what}, {cause}"),
        {"distribution": dist, "values": "NaN" if nan else "out of range"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    # CPython's float() and int() (Objects/floatobject.c, longobject.c): the value's type named at the end
    r"(?P<call>float|int)\(\) argument must be a string(?:, a bytes-like object)? or a (?:real )?number, not "
    r"'(?P<type>[\w.]{1,80})'",
    source="https://github.com/python/cpython/blob/main/Objects/floatobject.c (PyNumber_Float's TypeError); "
    "https://github.com/python/cpython/blob/main/Objects/longobject.c",
    confidence=0.7,
)
def number_from_an_object(found: re.Match[str], failure: Failure) -> Lead:
    """A number asked of an object that is none: a gym space where its sample was meant, None from a lookup that
    found nothing, a list or a tensor of several values where one was meant."""
    kind = found.group("type")
    hint = {
        "NoneType": "None (a lookup that found nothing, a function that returned nothing)",
        "Box": "a Gym space object itself where a value sampled from it was meant (reset() or step() returning "
        "the observation space, not an observation)",
        "list": "a list where one value was meant",
        "tuple": "a tuple where one value was meant (a function that returns several values)",
        "dict": "a dict where one value was meant",
    }.get(kind.rsplit(".", 1)[-1], f"a {kind} where a number was meant")
    return Lead(
        yours(failure, f"{found.group('call')}() was given {hint}: the value came from the calling code."),
        {"type": kind},
        verdict="not-environment",
    )


# What a tensor or an array has and a list, a tuple or a dict has not (a mapping's keys() or items() on a list is
# left alone: a library that now returns a list where it returned a dict reads the same)
_TENSOR_ATTRIBUTES = (
    "view|shape|size|to|cuda|cpu|float|half|bfloat16|double|long|int|dim|ndim|detach|numpy|reshape|permute|unsqueeze"
    "|squeeze|transpose|contiguous|device|dtype|item|clone|flatten|backward|astype|repeat|expand|softmax|argmax"
)


@rule(
    "user-code-error",
    rf"'(?P<container>list|tuple|dict)' object has no attribute '(?P<name>{_TENSOR_ATTRIBUTES})'",
    source="https://docs.python.org/3/library/stdtypes.html (list, tuple and dict have none of a tensor's or an "
    "array's methods): the value's structure, not a release",
    confidence=0.65,
)
def container_where_a_tensor_was_expected(found: re.Match[str], failure: Failure) -> Lead | None:
    """A builtin container where a tensor was expected. Python's builtins do not change their methods between
    releases: the value came in another structure than the code reading it expects (a model with several outputs, a
    collated batch, outputs gathered from several devices)."""
    container, name = found.group("container"), found.group("name")
    frame = failure.last_frame
    if frame is not None and not frame.user:
        return None  # a library's code asked for it: a library's value from another release reads the same
    return Lead(
        yours(
            failure,
            f"A {container} reached code that expected a tensor or an array (it asked for .{name}): the value came in "
            "another structure than that code reads, most often a model that returns several outputs (a list: a "
            "multi-head model, or one trained with another training script) where one tensor was expected, a batch "
            "collated into a list, or outputs gathered from several devices. Print the value's type where it is made.",
        ),
        {"container": container, "attribute": name},
        verdict="not-environment",
    )


@rule(
    "out-of-memory",
    r"Some modules are dispatched on the CPU or the disk\. Make sure you have enough GPU RAM to fit the quantized "
    r"model",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/quantizers/quantizer_bnb_4bit.py "
    "(validate_environment: a device_map that puts quantized modules off the GPU)",
    confidence=0.8,
)
def quantized_model_larger_than_gpu(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The quantized model does not fit in the GPU's free memory, so device_map='auto' put some of its modules on "
        "the CPU or the disk, which bitsandbytes' quantization refuses. Free the GPU (other processes, other models "
        "loaded before), use a smaller model or 4-bit (BitsAndBytesConfig(load_in_4bit=True)), or allow the offload "
        "with BitsAndBytesConfig(llm_int8_enable_fp32_cpu_offload=True) and a device_map of your own; for training, "
        "a smaller batch_size and context length. Not an environment problem.",
        {"config": "BitsAndBytesConfig", "option": "load_in_4bit", "knob": "batch_size"},
        verdict="not-environment",
    )


# tools whose own errors read "PROG: error: ..." too: a build's compiler and linker, not a command line refused
_TOOLCHAIN = frozenset(
    {"gcc", "g++", "cc", "c++", "clang", "clang++", "nvcc", "ld", "ld.lld", "ld.gold", "ptxas", "collect2", "cmake",
     "make", "ninja", "cl", "link", "hipcc", "icpx", "as"}
)  # fmt: skip


@rule(
    "user-code-error",
    r"^(?P<prog>[\w.-]{1,80}): error: (?P<said>unrecognized arguments: [^\n]{1,200}|the following arguments are "
    r"required: [^\n]{1,200}|argument [^\n]{1,200}|'Configuration check failed[^\n]{0,200}|[^\n]{3,200})$",
    source="https://github.com/python/cpython/blob/main/Lib/argparse.py (ArgumentParser.error: 'PROG: error: "
    "MESSAGE' and exit status 2); jsonargparse (LightningCLI) reports the same way",
    confidence=0.55,
    flags=re.MULTILINE,
)
def command_line_refused(found: re.Match[str], failure: Failure) -> Lead | None:
    prog, said = found.group("prog"), found.group("said")
    argparse_own = re.match(r"unrecognized arguments|the following arguments are required|argument ", said)
    if prog.lower() in _TOOLCHAIN or not (prog.endswith(".py") or argparse_own or "usage:" in failure.haystack):
        return None  # a compiler's or linker's own "error:" (a build), or a line that only looks like argparse's
    return Lead(
        f"{prog}'s command-line parser refused the command line ({scrubbed_head(said, 160)}): an option it does not "
        "take, a value it does not accept, a required one missing, or options in the wrong order (a subcommand such "
        f"as LightningCLI's fit goes before --config). `{prog} --help` lists what it takes; an option that another "
        "release of the script takes is a script of another version. Not an environment problem.",
        {"program": prog, "said": scrubbed_head(said, 160), "where": "command line"},
        verdict="not-environment",
        next=(f"python {prog} --help" if prog.endswith(".py") else f"{prog} --help",),
    )


@rule(
    "user-code-error",
    r"Asking to pad but the tokenizer does not have a padding token",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/tokenization_utils_base.py "
    "(_get_padding_truncation_strategies)",
    confidence=0.85,
)
def tokenizer_without_pad_token(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The tokenizer was asked to pad a batch and has no padding token (GPT-2, GPT-NeoX and Llama tokenizers ship "
        "none): set one before tokenizing, assigning tokenizer.eos_token to tokenizer.pad_token (the attention mask "
        "hides it), or add a new one ([PAD]) with tokenizer.add_special_tokens and resize the model's embeddings. "
        "Not an environment problem.",
        {"option": "pad_token", "value": "tokenizer.eos_token"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Input length of input_ids is (?P<length>\d+), but `?max_length`? is set to (?P<max>\d+)",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/generation/utils.py "
    "(_validate_generated_length)",
    confidence=0.8,
)
def prompt_fills_max_length(found: re.Match[str], failure: Failure) -> Lead:
    length, most = found.group("length"), found.group("max")
    return Lead(
        f"generate() was given a prompt of {length} tokens and max_length={most}, which counts the prompt too: no room "
        "is left to generate. Set max_new_tokens (the tokens to generate, whatever the prompt's length), or a "
        "max_length larger than the longest prompt (a script's own option for it, such as --max_length_generation). "
        "Not an environment problem.",
        {"option": "max_new_tokens", "prompt_tokens": length, "max_length": most},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"(?P<count>\d+) validation errors? for (?P<model>\w{1,80})",
    source="https://docs.pydantic.dev/latest/errors/validation_errors/ (a configuration model refusing the values "
    "it was given: extra_forbidden, missing, the wrong type)",
    confidence=0.6,
    on="exception",
)
def configuration_refused_by_its_schema(found: re.Match[str], failure: Failure) -> Lead | None:
    if "ValidationError" not in failure.type:
        return None
    model, count = found.group("model"), found.group("count")
    # pydantic lists each refused field on a line of its own, its reason indented under it
    fields = re.findall(r"^([A-Za-z_][\w.]{0,80})$", failure.haystack[found.end() :], re.MULTILINE)
    named = f" ({', '.join(dict.fromkeys(fields[:4]))})" if fields else ""
    return Lead(
        f"The configuration given to {model} does not fit its schema: {count} field(s) refused{named}. A field "
        "placed where the schema does not take it, misspelt, missing or of the wrong type; a configuration written for "
        "another release of the tool reads the same. Compare it with the tool's own example configuration for the "
        "installed release. Not an environment problem.",
        {"config": model, "fields": ", ".join(fields[:4])},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"`model` must be a `LightningModule`[^\n]{0,80}?, got `(?P<got>[\w.]{1,80})`",
    source="https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/pytorch/utilities/"
    "compile.py (_maybe_unwrap_optimized); https://lightning.ai/docs/pytorch/stable/upgrade/migration_guide.html "
    "(lightning.pytorch and pytorch_lightning are two packages)",
    confidence=0.8,
)
def lightning_two_packages(found: re.Match[str], failure: Failure) -> Lead:
    got = found.group("got")
    mixed = got.rsplit(".", 1)[-1] == "LightningModule"
    return Lead(
        (
            "The Trainer and the model come from two packages: a LightningModule of pytorch_lightning is not one of "
            "lightning.pytorch (the unified lightning package), and the reverse. Import both from the same one "
            "(`import lightning.pytorch as pl`, or `import pytorch_lightning as pl`) everywhere, the model's module "
            "included."
            if mixed
            else f"The Trainer was given a {got}, not a LightningModule: pass the LightningModule itself."
        )
        + " Not an environment problem.",
        {"packages": "lightning.pytorch / pytorch_lightning", "got": got},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"You are using ZeRO-Offload with a client provided optimizer",
    source="https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/engine.py (_configure_optimizer: "
    "zero_force_ds_cpu_optimizer)",
    confidence=0.85,
)
def zero_offload_with_own_optimizer(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The DeepSpeed configuration offloads the optimizer (ZeRO-Offload) while the code passes an optimizer of its "
        'own, which DeepSpeed refuses: name the optimizer in the ds-config\'s "optimizer" section (or pass '
        'deepspeed.ops.adam.DeepSpeedCPUAdam), or set "zero_force_ds_cpu_optimizer": false in the ds-config to keep '
        "yours (slower). Not an environment problem.",
        {"config": "ds-config", "option": "zero_force_ds_cpu_optimizer", "optimizer": "DeepSpeedCPUAdam"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"The model did not return a loss from the inputs, only the following keys: (?P<keys>[^\n.]{0,200})"
    r"(?:\. For reference, the inputs it received are (?P<inputs>[^\n.]{0,300}))?",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/trainer.py (Trainer.compute_loss); "
    "utils/generic.py (find_labels: a model's label arguments are those of its forward named like 'label', and "
    "start_positions/end_positions for question answering)",
    confidence=0.85,
)
def trainer_batch_without_labels(found: re.Match[str], failure: Failure) -> Lead:
    """The Trainer takes the loss from the model's output, which a model computes only when the batch carries its
    labels: a batch without them (a collator that does not make them) or a model class without a head that computes a
    loss."""
    inputs = (found.group("inputs") or "").strip()
    names = [n.strip() for n in inputs.split(",") if n.strip()]
    # the label arguments find_labels knows: any name with "label" in it, and question answering's two positions
    labelled = any("label" in n or n in ("start_positions", "end_positions") for n in names)
    seen = f" The batch held {inputs}: no labels among them." if names and not labelled else ""
    return Lead(
        "The Trainer found no loss in the model's output (it returned only "
        f"{(found.group('keys') or '').strip() or 'other keys'}).{seen} A model returns a loss only when the batch "
        "carries its labels and the class has a head that computes one: make the data collator add the labels (for "
        "a causal LM, DataCollatorForLanguageModeling(tokenizer, mlm=False)) or the dataset carry a labels column, "
        "and load the task's class (AutoModelForCausalLM, AutoModelForSequenceClassification, not AutoModel). When "
        "a collator of your own builds the labels from raw columns, keep those columns with "
        "TrainingArguments(remove_unused_columns=False). Not an environment problem.",
        {"inputs": inputs, "collator": "DataCollatorForLanguageModeling", "option": "labels"},
        verdict="not-environment",
    )


# transformers' PreTrainedModel.cuda/.to/.half/.float of a quantized model (modeling_utils.py), in the words of its
# releases: 4.3x refuses every move; 4.4x refuses 8-bit moves and 4-bit ones under bitsandbytes < 0.43.2; 5.x asks
# for bitsandbytes >= 0.48.0 to move an 8-bit model with to()
_QUANTIZED_REFUSAL = (
    r"Calling `(?P<call>cuda|to)\(\)` is not supported for `(?P<bits>4-bit|8-bit|4-bit` or `8-bit)` quantized models"
    r"(?P<old_bnb> with the installed version of bitsandbytes)?"
    r"|You need to install `pip install bitsandbytes>=(?P<bnb_floor>0\.\d{1,3}\.\d{1,3})` if you want to move a 8-bit "
    r"model across devices"
    r"|`\.(?:to|cuda)` is not supported for (?:`(?:4-bit` or `8-bit|8-bit)` bitsandbytes|HQQ-quantized) models"
    r"|`\.(?:half|float)\(\)` is not supported for quantized model"
    r"|You cannot cast a (?:bitsandbytes|GPTQ) model in a new `dtype`"
)


@rule(
    "user-code-error",
    _QUANTIZED_REFUSAL,
    source="https://github.com/huggingface/transformers/blob/v4.46.3/src/transformers/modeling_utils.py "
    "(PreTrainedModel.cuda, .to, .half, .float of a quantized model: 4-bit models move with bitsandbytes >= 0.43.2; "
    "in v5, 8-bit models move with to() under bitsandbytes >= 0.48.0)",
    confidence=0.85,
)
def quantized_model_moved_or_cast(found: re.Match[str], failure: Failure) -> Lead:
    """A model loaded quantized was placed and cast by from_pretrained: moving or casting it again is refused, except
    where the installed bitsandbytes is the only obstacle (the message names the release that moves it)."""
    floor = found.group("bnb_floor") or ("0.43.2" if found.group("old_bnb") and found.group("bits") == "4-bit" else "")
    if floor:
        # transformers 4.4x's cuda() of a 4-bit model returns nothing once the move is allowed: to() returns the model
        call = " and move it with model = model.to('cuda') (cuda() of a 4-bit model returns None in transformers 4.4x)"
        return Lead(
            f"transformers moves this quantized model only with bitsandbytes {floor} or newer (the message says so). "
            f"Upgrade bitsandbytes{call if found.group('call') == 'cuda' else ''}, or leave the model where "
            "from_pretrained put it (its device_map).",
            {"package": "bitsandbytes", "version": floor},
            install(("bitsandbytes", f">={floor}")),
            verdict="environment",
            family="version-mismatch",
            next=("python -m pip show bitsandbytes transformers",),
        )
    return Lead(
        "The model was loaded quantized (bitsandbytes, GPTQ or HQQ), so from_pretrained already placed it on its "
        "devices and gave it its dtype; a later .to(), .cuda(), .half() or .float() of it is refused. Remove that "
        "call (or the device=/dtype argument that makes a pipeline or a training library call it), and choose the "
        "placement and dtype when loading: from_pretrained(..., device_map=..., torch_dtype=...; dtype= in "
        "transformers 5, where an 8-bit model also moves with .to('cuda') under bitsandbytes 0.48 or newer). When "
        "the call is a library's own (accelerate, a pipeline, a trainer), not yours, that library's release may not "
        "be the one made for the installed transformers: compare their versions. Not an environment problem "
        "otherwise.",
        {"setting": "device_map", "option": "torch_dtype"},
        verdict="not-environment",
        next=("python -m pip show transformers accelerate bitsandbytes",),
    )


# the features a model takes as inputs or labels: a feature named otherwise is a raw column of the dataset
_MODEL_FEATURES = re.compile(
    r"\w*_ids|\w*_mask|input_features|input_values|\w*_values|\w*_embeds|labels?|\w*_positions|\w*_features"
)


@rule(
    "user-code-error",
    r"Unable to create tensor, you should probably activate truncation and/or padding(?:[^\n]{0,200}?features "
    r"\(`(?P<feature>\w{1,80})` in this case\))?",
    source="https://github.com/huggingface/transformers/blob/v4.46.3/src/transformers/tokenization_utils_base.py "
    "(BatchEncoding.convert_to_tensors: any failure to make a tensor of a feature, with its name)",
    confidence=0.85,
)
def tokenized_batch_of_unequal_lengths(found: re.Match[str], failure: Failure) -> Lead:
    """A batch becomes a tensor only when each feature's rows have one length and hold numbers: a tokenizer call or a
    collator that neither pads nor truncates, labels left unpadded, or a raw column of text that reached the
    collator."""
    feature = found.group("feature") or ""
    if feature and not _MODEL_FEATURES.fullmatch(feature):
        cause = (
            f"The batch carries `{feature}`, which is no model input: a raw column of the dataset (text) reached the "
            "collator, and text cannot become a tensor. Drop it after tokenizing (dataset.map(..., "
            f"remove_columns=[...]) or dataset.remove_columns(['{feature}'])), or leave the Trainer's "
            "remove_unused_columns at True."
        )
    elif feature in ("labels", "label", "label_ids"):
        cause = (
            f"The rows of `{feature}` have different lengths: labels are not padded by the tokenizer's padding. Use a "
            "collator that pads them too (DataCollatorForSeq2Seq, which pads labels with -100), or pad and truncate "
            "them to one length when you build them."
        )
    else:
        cause = (
            "The rows of a tokenized batch have different lengths, so they cannot become one tensor: call the "
            'tokenizer with padding=True (or padding="max_length") and truncation=True, or give the Trainer a '
            "collator that pads (DataCollatorWithPadding; DataCollatorForSeq2Seq for labels); a feature nested one "
            "level too deep (a list of lists where ints are expected) gives the same error."
        )
    return Lead(
        f"{cause} Not an environment problem.",
        {
            "feature": feature,
            "option": "padding=True",
            "setting": "truncation=True",
            "collator": "DataCollatorWithPadding",
        },
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"num_samples should be a positive integer value, but got num_samples=0\b",
    source="https://github.com/pytorch/pytorch/blob/main/torch/utils/data/sampler.py (RandomSampler, "
    "WeightedRandomSampler)",
    confidence=0.8,
)
def sampler_given_an_empty_dataset(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "A sampler was asked for no samples: most often a shuffling DataLoader (or the Trainer's own RandomSampler) "
        "given a dataset of length zero, because the data path matched no files, a filter removed every sample, or "
        "the split is empty; or a WeightedRandomSampler given num_samples=0. Check that the dataset's length is "
        "above zero before training. Not an environment problem.",
        {"option": "shuffle", "where": "len(dataset)"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    # accelerate's set_module_tensor_to_device; its older releases say "this look incorrect"
    r"Trying to set a tensor of shape (?P<given>torch\.Size\(\[[\d, ]{0,60}\]\)) in \"(?P<name>\w{1,80})\" \(which has "
    r"shape (?P<expected>torch\.Size\(\[[\d, ]{0,60}\]\))\), this looks? incorrect",
    source="https://github.com/huggingface/accelerate/blob/main/src/accelerate/utils/modeling.py "
    "(set_module_tensor_to_device: a checkpoint's tensor whose shape is not the model's); DeepSpeed's ZeRO-3 "
    "checkpoints keep empty placeholders unless stage3_gather_16bit_weights_on_model_save "
    "(https://www.deepspeed.ai/docs/config-json/); bitsandbytes packs 4-bit weights into [N, 1] tensors "
    "(Params4bit), which transformers saves with bitsandbytes >= 0.41.3 (quantizers/quantizer_bnb_4bit.py)",
    confidence=0.7,
)
def checkpoint_shape_not_the_models(found: re.Match[str], failure: Failure) -> Lead:
    """A checkpoint's weight is loaded into a model built from a configuration of another shape: the checkpoint and
    the configuration (or the class) are of different models, or a vocabulary resized on one side only. Two shapes
    say more: an empty tensor is a sharded save that was never gathered; [N, 1] is a packed 4-bit weight."""
    given, expected, name = found.group("given"), found.group("expected"), found.group("name")
    where = f'{given} into "{name}" of {expected}'
    params = {"given": given, "expected": expected}
    if given == "torch.Size([0])":
        return Lead(
            f"A weight of the checkpoint is empty ({where}): it was saved from a sharded run (DeepSpeed ZeRO-3 or "
            "FSDP) without gathering the weights, so each tensor is a placeholder. Save again with "
            "stage3_gather_16bit_weights_on_model_save: true in the ds-config (or FSDP's full state dict), or "
            "rebuild whole weights from the ZeRO checkpoint with its zero_to_fp32.py. Not an environment problem.",
            {**params, "setting": "stage3_gather_16bit_weights_on_model_save", "tool": "zero_to_fp32.py"},
            verdict="not-environment",
        )
    if given.endswith(", 1])") and expected.count(",") == 1:
        return Lead(
            f"A weight of the checkpoint is packed 4-bit ({where}): the checkpoint was saved quantized with "
            "bitsandbytes, and this model was built unquantized. Load it with a transformers and bitsandbytes that "
            "read saved 4-bit checkpoints (4-bit serialization needs bitsandbytes 0.41.3 or newer) and with its "
            "quantization_config (the one in its config.json), or load the unquantized original.",
            {**params, "package": "bitsandbytes", "option": "quantization_config"},
            verdict="environment",
            family="version-mismatch",
            confidence=0.6,
            next=("python -m pip show transformers bitsandbytes accelerate",),
        )
    return Lead(
        f"A weight of the checkpoint does not have the model's shape: {where}. The model was built from a "
        "configuration (or a class) of another size than the checkpoint: a config.json of another model or variant, "
        "a vocabulary resized on one side only (after adding tokens, call resize_token_embeddings before loading the "
        "fine-tuned weights), or a LoRA/adapter merged into another base. Load the checkpoint with its own "
        "config.json; if both are right, compare the transformers release that saved it with the installed one.",
        {**params, "option": "resize_token_embeddings"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Invalid image type\. Expected either PIL\.Image\.Image[^\n]{0,160}?, but got (?P<got><class '[\w.]{1,80}'>)",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/image_utils.py "
    "(make_list_of_images)",
    confidence=0.85,
)
def image_processor_given_no_image(found: re.Match[str], failure: Failure) -> Lead:
    got = found.group("got")
    path = "'str'" in got
    return Lead(
        f"The image processor was given {got}, not an image"
        + (": a path. Load it first, Image.open(path).convert('RGB'), and pass that." if path else ".")
        + " Not an environment problem.",
        {"got": got, "call": "Image.open" if path else "", "where": "image_processor.preprocess"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"If the VAE is from a checkpoint loader node your checkpoint does not contain a valid VAE",
    source="https://github.com/comfyanonymous/ComfyUI/blob/master/comfy/sd.py (VAE.throw_exception_if_invalid)",
    confidence=0.8,
)
def comfyui_checkpoint_without_vae(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The VAE node was given no VAE: the checkpoint loaded holds none (a diffusion model alone, such as many Flux "
        "files). Load the VAE with its own loader (Load VAE: Flux's ae.safetensors) and wire it to the decode node, "
        "or load a checkpoint that embeds one (Load Checkpoint). Not an environment problem: the workflow.",
        {"node": "Load Checkpoint", "what": "VAE"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"You do not have CLIP state dict!",
    source="https://github.com/lllyasviel/stable-diffusion-webui-forge/blob/main/backend/loader.py (the text "
    "encoder's state dict is missing from what was loaded)",
    confidence=0.8,
)
def forge_checkpoint_without_text_encoders(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Forge loaded a checkpoint without its text encoders: Flux, SD3 and GGUF files are often the diffusion model "
        "alone. Put the text encoders (clip_l.safetensors and t5xxl, as the model's page names them) in "
        "models/text_encoder and its VAE (Flux: ae.safetensors) in models/VAE, and select them all in the "
        "'VAE / Text Encoder' menu (the hires-fix pass too). Not an environment problem.",
        {"menu": "VAE / Text Encoder", "files": "clip_l, t5xxl, ae.safetensors"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Unexpected architecture type in GGUF file, expected one of (?P<known>[^\n]{1,160}?) but got "
    r"'(?P<got>[^'\n]{1,60})'",
    source="https://github.com/city96/ComfyUI-GGUF/blob/main/loader.py (the general.architecture key a GGUF file "
    "carries)",
    confidence=0.8,
)
def gguf_of_another_architecture(found: re.Match[str], failure: Failure) -> Lead:
    got = found.group("got")
    return Lead(
        f"The GGUF file says its architecture is '{got}' (its general.architecture key), which this loader does not "
        f"load (it takes {found.group('known')}): a file of another model, or one a different converter wrote. Use the "
        "loader for that kind of model, or a GGUF of the model converted for this loader. Not an environment problem.",
        {"key": "general.architecture", "got": got, "what": "GGUF file"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"^AssertionError: (?:'detection' in self\.models|Detection model not found)",
    source="https://github.com/deepinsight/insightface/blob/master/python-package/insightface/app/face_analysis.py "
    "(FaceAnalysis.__init__ globs <root>/models/<name>/*.onnx, then asserts a detection model among them); settled as "
    "an unextracted antelopev2 pack in https://github.com/cubiq/ComfyUI_InstantID/issues/11",
    confidence=0.8,
    on="exception",
)
def insightface_pack_not_in_place(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "insightface found no face-detection model among the .onnx files of its model pack's folder: the pack "
        "(antelopev2, buffalo_l) is not where FaceAnalysis looks, <root>/models/<name>/. Most often the zip was not "
        "extracted, or extracted one folder too deep (models/antelopev2/antelopev2/*.onnx); in ComfyUI the root is "
        "ComfyUI/models/insightface. Put the pack's .onnx files directly in that folder. Not an environment problem: "
        "the model files.",
        {"package": "insightface", "what": "the model pack's .onnx files"},
        verdict="not-environment",
        next=("ls ComfyUI/models/insightface/models/*/  # each pack's .onnx files, one level down",),
    )


# torch refuses to start CUDA in a process forked from one where CUDA already runs (torch/cuda/__init__.py,
# _lazy_init): a DataLoader's workers, a multiprocessing pool or vLLM's workers forked after the parent touched CUDA.
# Lightning checks the same before it forks its ranks (ddp_fork, ddp_notebook: the strategies of a notebook).
@rule(
    "user-code-error",
    r"Cannot re-initialize CUDA in forked subprocess"
    r"|(?P<lightning>Lightning can't create new processes if CUDA is already initialized)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py (_lazy_init); "
    "https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/fabric/strategies/launchers/"
    "multiprocessing.py (_check_bad_cuda_fork)",
    confidence=0.9,
)
def cuda_in_forked_child(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("lightning"):
        return Lead(
            yours(
                failure,
                "Lightning starts its ranks by forking this process (the ddp_fork and ddp_notebook strategies, what a "
                "notebook gets), and the code had already started CUDA before fit(): a torch.cuda call "
                "(torch.cuda.set_device, a .cuda() or .to('cuda'), memory on the GPU). Leave the devices to the "
                "Trainer (accelerator='gpu', devices=...) and remove those calls (in a notebook, then restart the "
                "kernel: CUDA stays started in it), or run the script outside a notebook with strategy='ddp'.",
            ),
            {"fix": "remove torch.cuda calls before fit()", "option": "strategy"},
            verdict="not-environment",
        )
    return Lead(
        yours(
            failure,
            "CUDA was started in the parent process before it forked its workers (fork is multiprocessing's default "
            "start method on Linux), and a forked child cannot use it. Start the workers with 'spawn' "
            "(multiprocessing.set_start_method('spawn') under `if __name__ == '__main__':`, "
            "DataLoader(multiprocessing_context='spawn'), VLLM_WORKER_MULTIPROC_METHOD=spawn for vLLM), or do not "
            "touch CUDA before the workers start.",
        ),
        {"fix": "spawn", "option": "multiprocessing start method"},
        verdict="not-environment",
    )


# A configuration object asked for a key its file does not have: mmcv's ConfigDict (an AttributeError from its
# __getattr__), OmegaConf's ConfigAttributeError and ConfigKeyError ("Missing key train"), a struct config's "Key 'x'
# is not in struct". Whose config lacks it the error does not say: the user's (a config of another script, an
# override misspelt) or the project's own (a key it left out, or one a newer library reads). Only the exception
# itself is read, and Hydra's report of an override (a logger's warning that quotes it goes on without the key).
@rule(
    "user-code-error",
    r"'ConfigDict' object has no attribute '(?P<key>\w{1,80})'|Config(?:Attribute|Key)Error: Missing key "
    r"(?P<key2>[\w.]{1,80})|Key '(?P<key3>\w{1,80})' is not in struct"
    r"|Could not override '(?P<override>[\w.]{1,120})'",  # Hydra's report of a command line's override
    source="https://github.com/open-mmlab/mmcv/blob/v1.7.0/mmcv/utils/config.py (ConfigDict.__getattr__); "
    "https://github.com/omry/omegaconf/blob/master/omegaconf/errors.py (ConfigAttributeError, ConfigKeyError); "
    "https://github.com/omry/omegaconf/blob/master/NEWS.md (2.1: a missing key raises, where 2.0 returned None); "
    "https://hydra.cc/docs/advanced/override_grammar/basic/ (+key=value appends a key)",
    confidence=0.6,
)
def config_key_missing(found: re.Match[str], failure: Failure) -> Lead | None:
    key = found.group("key") or found.group("key2") or found.group("key3") or found.group("override")
    params = {"key": key, "option": "config"}
    override = found.group("override") is not None
    if failure.kind != "exception" and not override:
        return None  # a logger's line quoting it (mmengine's, NeMo's warnings), the run went on: not its failure
    if override:
        # Hydra: the command line's key=value names a key the config has not (its own next line says to append)
        return Lead(
            f"A command-line override names `{key}`, which the configuration does not have: correct the key's "
            f"spelling or path, or append it with +{key}=... as Hydra's message says. An option a library removed "
            "reads the same (Lightning 2's Trainer has no `gpus`: `devices`).",
            {**params, "fix": f"+{key}="},
            verdict="not-environment",
        )
    if key in _OBJECT_ATTRIBUTES:
        return Lead(
            yours(
                failure,
                f"A configuration object (a ConfigDict) was given where a model, module or tensor is expected: the "
                f"code asked it for `{key}`, which is an object's, not a config's. Arguments swapped in a call, or "
                "a config passed where the object it describes (built from it) belongs.",
            ),
            params,
            verdict="not-environment",
        )
    if key == "device" and "mmdet" in failure.haystack + " ".join(f.file for f in failure.frames):
        # mmdet >= 2.25's train_detector reads cfg.device, which only mmdet's own tools/train.py sets (get_device())
        return Lead(
            "MMDetection's train_detector reads cfg.device (from 2.25), which its own tools/train.py sets and an "
            "older project's training script does not: the script was written for an older MMDetection. Set "
            "cfg.device = get_device() (mmdet.utils) in the script, or install the MMDetection release the project "
            "pins.",
            {**params, "package": "mmdet"},
            verdict="environment",
            family="api-version-skew",
        )
    omegaconf = " OmegaConf 2.0 returned None for a missing key where 2.1 and newer raise this: code written for "
    omegaconf += "2.0 reads the same (install the OmegaConf the project pins)."
    return Lead(
        f"The configuration has no `{key}`, which the code asks for. Whose config lacks it the error does not say: a "
        "config file of another script or model given to this one (an evaluation config given to training), or the "
        f"project's own config for this very script (a key it left out, or one a newer release adds: add `{key}`, "
        "select the option that adds it such as a Hydra experiment, or take the project's newer release)."
        + (omegaconf if key == (found.group("key2") or found.group("key3")) else ""),
        params,
        verdict="unknown",
    )


# an attribute of a module or tensor, which no config has: the config was given in the object's place
_OBJECT_ATTRIBUTES = frozenset({
    "parameters", "named_parameters", "state_dict", "load_state_dict", "eval", "to", "cuda", "forward", "shape",
    "size", "modules", "children", "numpy", "dtype", "zero_grad",
})  # fmt: skip


# MMDetection checks that a detector's heads have as many classes as its dataset names (mmdet/datasets/utils.py,
# NumClassCheckHook): a custom dataset whose class names were not given keeps COCO's 80
@rule(
    "user-code-error",
    r"The `num_classes` \((?P<heads>\d{1,6})\) in (?P<head>\w{1,80}) of \w{1,80} does not matches? the length of "
    r"`(?:CLASSES|classes)` \(?(?P<classes>\d{1,6})\) in (?P<dataset>\w{1,80})",
    source="https://github.com/open-mmlab/mmdetection/blob/v2.28.2/mmdet/datasets/utils.py (NumClassCheckHook)",
    confidence=0.9,
)
def detector_classes_not_dataset_classes(found: re.Match[str], failure: Failure) -> Lead:
    heads, classes, dataset = found.group("heads"), found.group("classes"), found.group("dataset")
    if int(heads) == int(classes) + 1:
        return Lead(
            f"The model's {found.group('head')} counts {heads} classes, one more than the {classes} the {dataset} "
            "lists: a background class, as MMDetection 1.x configs counted it. Set num_classes to the number of "
            f"object classes ({classes}). Not an environment problem.",
            {"option": "num_classes", "num_classes": heads, "classes": classes},
            verdict="not-environment",
        )
    coco = " (COCO's 80: the dataset's own class names were not given)" if classes == "80" else ""
    return Lead(
        f"The model's {found.group('head')} predicts {heads} classes, but the {dataset} lists {classes}{coco}. Give "
        "the dataset its class names in the config (classes=(...) in each of data.train, data.val and data.test in "
        "MMDetection 2; metainfo=dict(classes=(...)) in 3), or set num_classes to the number of classes the data "
        "has. Not an environment problem.",
        {"option": "classes", "num_classes": heads, "classes": classes},
        verdict="not-environment",
    )


# vLLM splits the attention heads over the tensor-parallel ranks (its model config's verify_with_parallel_config).
@rule(
    "user-code-error",
    r"Total number of attention heads \((?P<heads>\d+)\) must be divisible by tensor parallel size \((?P<tp>\d+)\)",
    source="https://github.com/vllm-project/vllm/blob/main/vllm/config (ModelConfig.verify_with_parallel_config)",
    confidence=0.9,
)
def heads_not_divisible_by_tp(found: re.Match[str], failure: Failure) -> Lead:
    heads, tp = int(found.group("heads")), int(found.group("tp"))
    fits = [n for n in range(1, min(heads, 64) + 1) if heads % n == 0]
    return Lead(
        f"The model has {heads} attention heads, which {tp} tensor-parallel GPUs cannot share evenly: choose a "
        f"tensor_parallel_size that divides {heads} ({', '.join(map(str, fits))}); to use more GPUs, add "
        "pipeline_parallel_size or run more replicas.",
        {"option": "tensor_parallel_size", "heads": str(heads)},
        verdict="not-environment",
    )


# accelerate's shared state read before an Accelerator (or PartialState) made it, or after its reset
# (src/accelerate/state.py, AcceleratorState.__getattr__ and PartialState's checks).
@rule(
    "user-code-error",
    r"Please make sure to properly initialize your accelerator via `accelerator = Accelerator\(\)`"
    r"|The `PartialState` or `Accelerator` must be initialized before calling this function",
    source="https://github.com/huggingface/accelerate/blob/main/src/accelerate/state.py",
    confidence=0.9,
)
def accelerator_not_made_yet(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        yours(
            failure,
            "accelerate's state was read before an Accelerator was made (or after it was reset): create "
            "`accelerator = Accelerator()` (or PartialState()) first, once per process, before any other accelerate "
            "call.",
        ),
        {"fix": "accelerator = Accelerator()"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class "
    r"'(?P<type>[\w.]{1,120})'>",
    source="https://github.com/pytorch/pytorch/blob/main/torch/utils/data/_utils/collate.py "
    "(default_collate_err_msg_format)",
    confidence=0.85,
)
def uncollatable_item(found: re.Match[str], failure: Failure) -> Lead:
    """DataLoader's default collate batches tensors, arrays, numbers, strings and their dicts and lists; what the
    dataset's __getitem__ returned was something else."""
    kind = found.group("type")
    advice = (
        "convert the image to a tensor in the dataset's transform (torchvision's transforms.ToTensor(), or "
        "v2.ToImage() with v2.ToDtype)"
        if kind.startswith("PIL.")
        else "a sample has a field that is None; fill it, or drop such samples in a collate_fn"
        if kind == "NoneType"
        else "convert it to a tensor in the dataset, or pass DataLoader a collate_fn that batches it"
    )
    return Lead(
        yours(
            failure,
            f"The dataset's __getitem__ returned a {kind}, which DataLoader's default collate cannot batch: {advice}.",
        ),
        {"type": kind, "function": "collate_fn"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"(?:Loading (?P<model>\S{1,200}) requires you to execute the configuration file in that repo|The repository for "
    r"(?P<model2>\S{1,200}) contains custom code which must be executed to correctly load the model)",
    # transformers' dynamic_module_utils.resolve_trust_remote_code, in its older and newer words; datasets' own
    # words end "load the dataset" (a dataset script, which datasets 4 no longer runs at all) and are not read here
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/dynamic_module_utils.py "
    "(resolve_trust_remote_code)",
    confidence=0.85,
)
def remote_code_not_trusted(found: re.Match[str], failure: Failure) -> Lead:
    model = found.group("model") or found.group("model2") or "the model"
    return Lead(
        yours(
            failure,
            f"{model.rstrip('.')} ships its own modelling code in its repository, which transformers runs only when "
            "the call allows it: read that code, then pass trust_remote_code=True to from_pretrained (and to the "
            "tokenizer's and the pipeline's calls), or use a transformers release that has the architecture built "
            "in, which needs no remote code.",
        ),
        {"option": "trust_remote_code=True", "model": model.rstrip(".")},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"The (?P<kind>decoder|encoder) prompt \(length (?P<length>\d{1,9})\) is longer than the maximum model length of "
    r"(?P<limit>\d{1,9})"
    r"|This model's maximum context length is (?P<limit2>\d{1,9}) tokens\. However, you requested (?P<length2>\d{1,9})",
    # vLLM's check of a request (vllm/v1/engine/processor.py, _validate_model_input) and the OpenAI-compatible
    # servers' 400 error for the same
    source="https://github.com/vllm-project/vllm/blob/main/vllm/v1/engine/processor.py (_validate_model_input); "
    "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/serving_engine.py",
    confidence=0.85,
)
def prompt_longer_than_context(found: re.Match[str], failure: Failure) -> Lead:
    length = found.group("length") or found.group("length2")
    limit = found.group("limit") or found.group("limit2")
    return Lead(
        f"The request holds {length} tokens and the model is served with a context of {limit}: the input is too "
        "long for this server's max_model_len (an image counts as many tokens; a chat history grows). Shorten or "
        "truncate the input (fewer or smaller images, a shorter history), or serve the model with a larger "
        "--max-model-len if the model and the GPU's memory allow it. Not an environment problem.",
        {"tokens": length, "max_model_len": limit, "option": "--max-model-len"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Attempting to deserialize object on CUDA device (?P<device>\d{1,3}) but torch\.cuda\.device_count\(\) is "
    r"(?P<count>\d{1,3})",
    source="https://github.com/pytorch/pytorch/blob/main/torch/serialization.py (validate_cuda_device)",
    confidence=0.85,
)
def checkpoint_saved_on_another_gpu(found: re.Match[str], failure: Failure) -> Lead:
    device, count = found.group("device"), found.group("count")
    return Lead(
        yours(
            failure,
            f"The checkpoint's tensors were saved on cuda:{device} and this process sees {count} GPU"
            f"{'s' if count != '1' else ''} (CUDA_VISIBLE_DEVICES renumbers the ones it shows from 0): torch.load "
            "puts them back on the GPU they were saved from unless told otherwise. Pass map_location "
            "(map_location='cuda:0', or 'cpu' and then .to(device)).",
        ),
        {"device": f"cuda:{device}", "visible": count, "option": "map_location"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"which implies that the global size of its dimension (?P<dim>\d{1,3}) should be divisible by (?P<by>\d{1,6}), but "
    r"it is equal to (?P<size>\d{1,12})",
    # jax/_src/pjit.py and api.py (device_put): an array's dimension that the mesh axes it is sharded over do not divide
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/pjit.py (the sharding's divisibility check); "
    "https://docs.jax.dev/en/latest/notebooks/Distributed_arrays_and_automatic_parallelization.html",
    confidence=0.85,
)
def sharding_does_not_divide(found: re.Match[str], failure: Failure) -> Lead | None:
    if failure.user_frame is None:
        return (
            None  # a server's or a library's log line: its own mesh (built over more devices than meant) is as likely
        )
    dim, by, size = found.group("dim"), found.group("by"), found.group("size")
    return Lead(
        yours(
            failure,
            f"Dimension {dim} of an array is {size} and the mesh axes it is sharded over have {by} devices: a "
            f"sharded dimension must be a multiple of its mesh axes' size. Pad or batch it to a multiple of {by} (a "
            "batch size per device), shard another dimension, or replicate it (PartitionSpec(None, ...)).",
        ),
        {"dimension": dim, "divisor": by, "size": size},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    # datasets' own checks (datasets/formatting/formatting.py _check_valid_column_key; arrow_dataset.py set_format,
    # remove_columns, select_columns, rename_column): the column asked for, and the ones there are
    r"(?:Original column names?|Input columns?|Columns? to remove|Columns?(?: name)?) "
    r"[\[{]?'?(?P<asked>[^\]}\n]{1,200}?)'?[\]}]? not in the dataset\.?"
    r"(?: Current columns in the dataset: (?P<columns>\[[^\]\n]{0,500}\]))?"
    # a row or batch of a dataset indexed by a name it lacks: the KeyError of formatting.py's LazyDict
    r"|^(?:[\w.]*\.)?KeyError: ['\"](?P<key>[^'\"\n]{1,80})['\"]$",
    source="https://github.com/huggingface/datasets/blob/main/src/datasets/formatting/formatting.py "
    "(_check_valid_column_key, LazyDict.__getitem__); src/datasets/arrow_dataset.py (set_format)",
    confidence=0.8,
    flags=re.MULTILINE,
)
def dataset_column_missing(found: re.Match[str], failure: Failure) -> Lead | None:
    key = found.group("key")
    if key is not None:
        last = failure.last_frame
        # only a row or batch of a Hugging Face dataset: any other dict's missing key says nothing of a column
        if last is None or last.owner != "datasets" or "formatting" not in last.file:
            return None
    asked = (key or found.group("asked") or "").strip("'\" ")
    columns = found.group("columns") or ""
    there = f" (its columns: {columns})" if columns else ""
    return Lead(
        yours(
            failure,
            f"The dataset has no column '{asked}'{there}: the code or its configuration names a column this dataset "
            "does not hold (a trainer's dataset_text_field, a map function's key, a format's columns). Name one of "
            "its columns, or load the variant of the dataset that has it (a tokenized or formatted one).",
        ),
        {"column": asked, "columns": columns},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"(?P<cls>\w{1,80}) does not support Flash Attention 2\.0 yet",
    # transformers' modeling_utils.py (_check_and_enable_flash_attn_2 / _flash_attn_2_can_dispatch): the class does
    # not declare _supports_flash_attn_2, and the load asked for it
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/modeling_utils.py "
    "(_supports_flash_attn_2); https://huggingface.co/docs/transformers/en/attention_interface (attn_implementation)",
    confidence=0.8,
)
def flash_attention_2_asked_of_a_model_without_it(found: re.Match[str], failure: Failure) -> Lead:
    cls = found.group("cls")
    return Lead(
        yours(
            failure,
            f"The model was loaded with Flash Attention 2 asked for (attn_implementation='flash_attention_2', or "
            f"use_flash_attention_2=True, in the load call or the project's configuration), which {cls}, as the "
            "installed transformers reads it, does not implement. Load it with attn_implementation='eager' (or "
            "'sdpa' where the class has it; transformers before 4.36 takes neither: drop use_flash_attention_2). "
            f"For a model class of transformers itself, a newer transformers may implement it for {cls}.",
        ),
        {"model": cls, "option": "attn_implementation", "fix": "attn_implementation='eager'"},
        verdict="not-environment",
        next=("python -m pip show transformers",),
    )
