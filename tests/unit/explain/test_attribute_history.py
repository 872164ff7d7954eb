"""The attribute history (compat_matrix/failures/attribute-history.json, written from the released wheels by
scripts/attribute_history.py) and explain's reading of it: an attribute that some releases of a library's class had
is a release question, whoever asked for it; one that the table does not know changing is left to the other rules."""

from __future__ import annotations

import io
import json
from importlib import resources

import pytest
from test_explain_structure import _with_trl  # real facts with one distribution set to a version

from xladoctor.explain.engine import explain_stream
from xladoctor.matrix.failures import attribute_history

RULE = "api-version-skew:attribute_that_came_and_went"


def _explain(log: str):  # type: ignore[no-untyped-def]
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None
    return diagnosis


def _traceback(code: str, message: str, library: str = "") -> str:
    site = "/opt/venv/lib/python3.11/site-packages"
    inner = f'  File "{site}/{library}", line 88, in step\n    {code}\n' if library else ""
    return (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 12, in <module>\n'
        f"    {code if not library else 'step(model)'}\n{inner}AttributeError: {message}\n"
    )


def test_the_table_holds_what_the_wheels_say() -> None:
    # transformers 4.48 moved the attention classes to a shared interface and dropped their num_heads; protobuf 6.30
    # (the 30.0 release) removed MessageFactory.GetPrototype, deprecated since 4.x
    (llama,) = attribute_history("LlamaAttention", "num_heads")
    assert (llama.package, llama.had, llama.removed, llama.after) == ("transformers", (("4.30", "4.47"),), True, "4.48")
    (factory,) = attribute_history("MessageFactory", "GetPrototype")
    assert (factory.package, factory.last, factory.after) == ("protobuf", "5.29", "6.30")
    assert attribute_history("LlamaAttention", "no_such_attribute") == []
    assert attribute_history("NoSuchClass", "num_heads") == []


def test_every_index_and_run_of_the_table_is_inside_its_package() -> None:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "attribute-history.json").read_text()
    doc = json.loads(text)
    assert doc["generated_by"] == "scripts/attribute_history.py" and doc["source"]
    for package, read in doc["packages"].items():
        series, classes = read["series"], read["classes"]
        assert series and read["imports"], package
        for _, runs in classes:
            assert all(0 <= int(i) < len(series) for run in runs.split(",") for i in run.split("-")), package
        for attribute, by_runs in read["changed"].items():
            assert not attribute.startswith("_"), (package, attribute)  # private names are not kept
            for runs, indexes in by_runs.items():
                assert all(0 <= int(i) < len(series) for run in runs.split(",") for i in run.split("-"))
                assert all(0 <= int(i) < len(classes) for i in indexes.split(","))


def test_an_attribute_a_release_removed_is_read_so_even_at_the_users_own_line() -> None:
    diagnosis = _explain(
        _traceback(
            "heads = model.model.layers[0].self_attn.num_heads  # transformers/models/llama",
            "'LlamaAttention' object has no attribute 'num_heads'",
        )
    )
    assert diagnosis.decided_by == RULE and diagnosis.verdict == "environment"
    assert "transformers<4.48" in diagnosis.cause + " ".join(diagnosis.remediation)
    assert "your code at /home/me/run.py:12" in diagnosis.cause
    assert "class of your own" not in diagnosis.cause  # the log names transformers


def test_without_the_library_in_the_log_it_says_when_it_does_not_apply() -> None:
    diagnosis = _explain(_traceback("n = attn.num_heads", "'LlamaAttention' object has no attribute 'num_heads'"))
    assert diagnosis.decided_by == RULE
    assert "If LlamaAttention is a class of your own" in diagnosis.cause


def test_an_attribute_that_went_and_came_back_gives_no_command() -> None:
    (cache,) = attribute_history("DynamicCache", "get_max_length")
    assert len(cache.had) > 1  # 4.36 to 4.48, and again in later releases
    diagnosis = _explain(
        _traceback("n = cache.get_max_length()", "'DynamicCache' object has no attribute 'get_max_length'")
    )
    assert diagnosis.decided_by == RULE
    assert not any("transformers" in c and "install" in c for c in diagnosis.remediation)
    assert "pip show transformers" in diagnosis.cause


def test_the_librarys_own_code_missing_its_own_attribute_is_not_read_as_another_release() -> None:
    log = _traceback(
        "n = self.self_attn.num_heads",
        "'LlamaAttention' object has no attribute 'num_heads'",
        library="transformers/models/llama/modeling_llama.py",
    )
    assert _explain(log).decided_by != RULE


def test_an_attribute_no_release_changed_is_left_to_the_other_rules() -> None:
    log = _traceback("x = attn.no_such_thing", "'LlamaAttention' object has no attribute 'no_such_thing'")
    assert _explain(log).decided_by != RULE


def test_a_class_two_libraries_have_is_read_only_when_the_log_says_whose() -> None:
    message = "'ColwiseParallel' object has no attribute 'desired_input_layouts'"
    assert {h.package for h in attribute_history("ColwiseParallel", "desired_input_layouts")} == {
        "torch",
        "transformers",
    }
    assert _explain(_traceback("p.desired_input_layouts", message)).decided_by != RULE
    named = _explain(
        _traceback("p.desired_input_layouts", message, library="torch/distributed/tensor/parallel/style.py")
    )
    assert named.decided_by != RULE  # torch's own code: not another release
    from_user = _explain(_traceback("p.desired_input_layouts  # torch.distributed.tensor.parallel", message))
    assert from_user.decided_by == RULE and "torch" in from_user.cause


@pytest.mark.parametrize(
    ("installed", "contradicted", "said"),
    [
        ("4.57.1", False, "lacks num_heads, as the log says"),
        ("4.46.3", True, "has num_heads: the log came from another environment"),
        (None, True, "not installed"),
    ],
)
def test_the_installed_release_confirms_or_contradicts_the_attribute_history(
    installed: str | None, contradicted: bool, said: str
) -> None:
    log = _traceback("n = attn.num_heads  # transformers", "'LlamaAttention' object has no attribute 'num_heads'")
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), _with_trl(installed, "transformers")).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == RULE
    assert diagnosis.contradicted is contradicted and said in " ".join(diagnosis.joined), diagnosis.joined


def _no_module(module: str) -> str:
    return (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 3, in <module>\n'
        f"    import {module}\nModuleNotFoundError: No module named '{module}'\n"
    )


def test_a_module_path_is_read_with_the_releases_that_had_it() -> None:
    gone = _explain(_no_module("pytorch_lightning.utilities.distributed"))
    assert "up to 2.0 and not from 2.1 on" in gone.cause
    assert any("'pytorch-lightning<2.1'" in c for c in gone.remediation), gone.remediation
    older = _explain(_no_module("torch._six"))
    assert "no release of torch read (2.0 .. " in older.cause and "older than 2.0" in older.cause
    added = _explain(_no_module("transformers.models.gemma"))
    assert "from 4.38 on" in added.cause and any("'transformers>=4.38'" in c for c in added.remediation)


def test_a_framework_that_cannot_move_alone_gets_words_not_a_pin() -> None:
    diagnosis = _explain(_no_module("torch._custom_ops"))
    assert "from 2.1 on" in diagnosis.cause and "torchvision and torchaudio of its release" in diagnosis.cause
    assert not any("install" in c and "torch" in c for c in diagnosis.remediation), diagnosis.remediation


def test_a_name_that_is_no_module_is_not_said_to_be_missing_from_every_release() -> None:
    log = (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 3, in <module>\n'
        "    from transformers import NoSuchModelClass\n"
        "ImportError: cannot import name 'NoSuchModelClass' from 'transformers' (/env/transformers/__init__.py)\n"
    )
    diagnosis = _explain(log)
    assert diagnosis.family == "api-version-skew" and "no release of transformers" not in diagnosis.cause


def test_a_class_named_with_its_module_is_looked_up_by_its_own_name() -> None:
    qualified = "transformers.models.llama.modeling_llama.LlamaAttention"
    log = f"AttributeError: '{qualified}' object has no attribute 'num_heads'\n"
    diagnosis = _explain(log)
    assert diagnosis.decided_by == RULE and "LlamaAttention has num_heads" in diagnosis.cause


def test_bitsandbytes_4bit_layers_name_the_release_that_gave_them_their_quantisation_state() -> None:
    # bitsandbytes 0.43 gave Linear4bit its own quant_state (the wheels' source); code written for it, run on an
    # older bitsandbytes, asks for an attribute the installed class lacks
    (linear,) = attribute_history("Linear4bit", "quant_state")
    assert linear.package == "bitsandbytes" and linear.had[0][0] == "0.43"
    diagnosis = _explain(_traceback("s = layer.quant_state", "'Linear4bit' object has no attribute 'quant_state'"))
    assert diagnosis.decided_by == RULE and "bitsandbytes>=0.43" in diagnosis.cause
