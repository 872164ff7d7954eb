"""The names probe, run for real on a package written for the test, and what explain says of its answers."""

from __future__ import annotations

import dataclasses
import io
import os
import sys
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.installed_names import confirm_name, question, said
from xladoctor.facts import Facts, facts_from_json
from xladoctor.probes import names
from xladoctor.probes.names import NameFacts, probe_name


@pytest.fixture
def facts_of_this_python() -> Facts:
    """A recorded snapshot whose interpreter is the one running the tests: the probe's target."""
    facts = facts_from_json(load_json(FACTS_DIR / "colab-t4.json"))
    assert facts.python is not None
    return dataclasses.replace(facts, python=dataclasses.replace(facts.python, executable=sys.executable))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on the target's path with a package `shop`: a name kept, one moved to a submodule, one gone."""
    root = tmp_path / "site"
    (root / "shop" / "tools").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("from .core import Basket\n__all__ = ['Basket']\n")
    (root / "shop" / "core.py").write_text("class Basket:\n    pass\n")
    (root / "shop" / "tools" / "__init__.py").write_text("")
    (root / "shop" / "tools" / "pricing.py").write_text("def discount(x):\n    return x\n")
    (root / "lazyshop").mkdir()
    (root / "lazyshop" / "__init__.py").write_text("def __getattr__(name):\n    raise AttributeError(name)\n")
    (root / "lazyshop" / "inner.py").write_text("class Hidden:\n    pass\n")
    monkeypatch.setenv("PYTHONPATH", str(root))
    return root


def test_a_name_the_module_exports_is_found_in_its_own_file(site: Path) -> None:
    facts = probe_name(sys.executable, "shop", "Basket")
    assert facts is not None and facts.found == "shop" and facts.kind == "package" and facts.in_module is True
    assert "does have Basket" in said(facts)


def test_a_name_defined_only_in_a_submodule_has_moved(site: Path) -> None:
    facts = probe_name(sys.executable, "shop", "discount")
    assert facts is not None and facts.in_module is False and facts.defined_in == ("shop/tools/pricing.py",)
    assert "defines it in shop.tools.pricing: it moved inside the package" in said(facts)


def test_a_name_no_file_mentions_is_confirmed_gone(site: Path) -> None:
    facts = probe_name(sys.executable, "shop", "checkout")
    assert facts is not None and facts.complete and facts.mentioned_count == 0
    assert "none of its 4 source files mentions it" in said(facts)


def test_a_module_that_hands_on_names_it_does_not_spell_is_never_said_to_have_moved(site: Path) -> None:
    facts = probe_name(sys.executable, "lazyshop", "Hidden")
    assert facts is not None and facts.dynamic_exports and facts.defined_in == ("lazyshop/inner.py",)
    assert said(facts) == ""  # mentioned, not decided: its __getattr__ may hand it on


def test_a_fifo_named_like_a_module_is_not_read(site: Path) -> None:
    os.mkfifo(site / "shop" / "stuck.py")  # opening it to read would wait for a writer forever
    facts = probe_name(sys.executable, "shop", "checkout", timeout_s=20)
    assert facts is not None and facts.complete and facts.mentioned_count == 0


def test_a_package_the_target_lacks_says_so(site: Path) -> None:
    facts = probe_name(sys.executable, "no_such_shop", "Basket")
    assert facts is not None and facts.found == ""
    assert "no_such_shop is not installed in this interpreter" in said(facts)


def test_a_submodule_the_package_lacks_is_named(site: Path) -> None:
    facts = probe_name(sys.executable, "shop.gone", "x")
    assert facts is not None and facts.found == "shop"
    assert "shop has no submodule gone" in said(facts)


@pytest.mark.parametrize("module", ["os; rm -rf /", "shop\n", "../shop", "a..b", "x" * 200])
def test_what_a_log_says_reaches_the_target_only_as_identifiers(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the probe must not start for a name that is not an identifier")

    monkeypatch.setattr(names, "run_probe", refuse)
    assert probe_name(sys.executable, module, "name") is None
    assert probe_name(sys.executable, "shop", module) is None


def test_an_answer_to_another_question_is_not_read() -> None:
    assert names.name_facts({"module": "other", "name": "x", "found": "other"}, "shop", "x") is None
    assert names.name_facts({"module": "shop", "name": "x", "found": 3}, "shop", "x") is None


def test_explain_joins_what_the_installed_source_says(site: Path, facts_of_this_python: Facts) -> None:
    log = (
        'Traceback (most recent call last):\n  File "/home/me/app.py", line 1, in <module>\n'
        "    from shop import checkout\nImportError: cannot import name 'checkout' from 'shop'\n"
    )
    explanation = explain_stream("run.log", io.BytesIO(log.encode()), facts_of_this_python)
    assert question(explanation) == ("shop", "checkout")
    joined = confirm_name(explanation, facts_of_this_python, timeout_s=20)
    assert joined.diagnosis is not None
    assert any("has no checkout: none of its" in line for line in joined.diagnosis.joined), joined.diagnosis.joined


def test_a_diagnosis_of_another_family_asks_nothing(facts_of_this_python: Facts) -> None:
    log = "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    explanation = explain_stream("run.log", io.BytesIO(log.encode()), facts_of_this_python)
    assert (
        question(explanation) is None and confirm_name(explanation, facts_of_this_python, timeout_s=20) is explanation
    )


def test_a_compiled_module_s_names_are_not_guessed() -> None:
    facts = NameFacts(module="m._C", name="f", found="m._C", kind="compiled")
    assert "cannot be read from its source" in said(facts)
