"""The last resort's likeness guess (xladoctor/explain/similar.py) and its index of settled development reports."""

from __future__ import annotations

import io
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from xladoctor.explain import similar
from xladoctor.explain.engine import explain_stream

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "corpus"))

import corpus  # noqa: E402

# Two settled reports of a made-up library, as an index holds them.
_WIDGET_LOG = "widgetlib frobnicator spline reticulation overflowed: quaternion manifold collapsed\n"
_OTHER_LOG = "gadgetron sprocket tension exceeded: flywheel governor tripped\n"


def _index() -> similar.Index:
    counts = {"widget": similar.words(_WIDGET_LOG), "other": similar.words(_OTHER_LOG)}
    idf = {w: 1.0 for c in counts.values() for w in c}
    return similar.Index(
        idf,
        (
            similar.Known("widget", "https://github.com/o/widgetlib/issues/1", "framework-internal-error",
                          "framework-bug", "A bug of widgetlib, fixed in 2.1 (the maintainer).", ("widgetlib",),
                          similar.vector(counts["widget"], idf)),
            similar.Known("other", "https://github.com/o/gadgetron/issues/2", "bad-configuration", "environment",
                          "GADGET_TENSION was set too low (the reporter).", ("GADGET_TENSION",),
                          similar.vector(counts["other"], idf)),
        ),
    )  # fmt: skip


@pytest.fixture
def small_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(similar, "index", _index)


def _diagnose(log: str):  # type: ignore[no-untyped-def]
    return explain_stream("run.log", io.BytesIO(log.encode()), None)


def test_a_log_that_reads_like_a_settled_report_gets_its_family_as_a_guess_with_its_thread(small_index: None) -> None:
    log = "step 3\nRuntimeError: widgetlib frobnicator spline reticulation overflowed (quaternion manifold)\n"
    explanation = _diagnose(log)
    diagnosis = explanation.diagnosis
    assert (diagnosis.family, diagnosis.verdict, diagnosis.decided_by) == (
        "framework-internal-error", "unknown", "structure:similar-report",
    )  # fmt: skip
    assert "https://github.com/o/widgetlib/issues/1" in diagnosis.cause and "A guess" in diagnosis.cause
    assert not diagnosis.decided and not explanation.failing()  # a guess is no decided cause: exit 0


def test_a_log_like_no_settled_report_gets_no_guess(small_index: None) -> None:
    diagnosis = _diagnose("error: the pump stalled at the valve\n").diagnosis  # a line: no frameless guess either
    assert diagnosis.family is None and diagnosis.decided_by == "structure:last-error"
    pasted = _diagnose("RuntimeError: the pump stalled at the valve\n").diagnosis
    assert pasted.decided_by == "structure:frameless-exception"  # likeness comes before the base rate's guess


def test_a_report_left_out_is_not_its_own_neighbour(small_index: None) -> None:
    log = "RuntimeError: widgetlib frobnicator spline reticulation overflowed: quaternion manifold collapsed\n"
    with similar.excluding("widget"):
        assert _diagnose(log).diagnosis.decided_by != "structure:similar-report"
    assert _diagnose(log).diagnosis.decided_by == "structure:similar-report"


def test_a_decided_log_is_never_guessed(small_index: None) -> None:
    log = "widgetlib frobnicator spline\nImportError: libcudnn.so.9: cannot open shared object file: No such file\n"
    assert _diagnose(log).diagnosis.family == "missing-library"


def test_the_index_holds_only_development_reports_and_no_word_of_one_report_alone() -> None:
    table = similar.index()
    development = {r.id for r in corpus.part("development")}
    evaluation = {r.id for r in corpus.part("evaluation")}
    ids = {k.id for k in table.reports}
    assert ids == development and not ids & evaluation
    used = Counter(w for k in table.reports for w in k.vector)
    assert set(used) <= set(table.idf)
    # a word two reports or more use has an idf of log(N/2) at most: no one report's user name, host or path is kept
    assert max(table.idf.values()) <= round(math.log(len(development) / 2), 4)


def test_the_index_is_what_the_corpus_makes() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "corpus_index.py"), "--check"], capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_the_family_most_of_the_nearest_reports_share_outvotes_the_nearest_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one report of the query's words alone (bad-configuration) and three that share most of them (a defect)
    texts = {
        "lone": ("bad-configuration", "widgetlib frobnicator spline overflowed"),
        "a": ("framework-internal-error", "widgetlib frobnicator spline overflowed quaternion"),
        "b": ("framework-internal-error", "widgetlib frobnicator spline overflowed manifold"),
        "c": ("framework-internal-error", "widgetlib frobnicator spline overflowed collapsed"),
    }
    counts = {key: similar.words(text) for key, (_, text) in texts.items()}
    idf = {w: 1.0 for c in counts.values() for w in c}
    reports = tuple(
        similar.Known(key, f"https://x/{key}", family, "unknown", "", (), similar.vector(counts[key], idf))
        for key, (family, _) in texts.items()
    )
    monkeypatch.setattr(similar, "index", lambda: similar.Index(idf, reports))
    query = "widgetlib frobnicator spline overflowed"
    [(nearest, cosine)] = similar.ranked(query, 1)
    assert nearest.id == "lone" and cosine == pytest.approx(1.0)
    chosen, near = similar.likeliest(query) or (None, 0.0)
    assert chosen is not None and chosen.family == "framework-internal-error" and near == pytest.approx(1.0)
    with similar.excluding("a", "b"):  # one voter of each family left: the nearer one wins
        assert (similar.likeliest(query) or (None, 0.0))[0].id == "lone"  # type: ignore[union-attr]


def test_a_faint_likeness_is_offered_last_and_weaker(monkeypatch: pytest.MonkeyPatch) -> None:
    small = _index()
    rare = {word: 2.0 for word in small.idf}  # words few reports have (COMMON_IDF is 1.5)
    monkeypatch.setattr(similar, "index", lambda: similar.Index(rare, small.reports))
    # two words of each report: cosine 2/sqrt(4*8) = 0.35 with the widget report, 2/sqrt(4*7) = 0.38 with the other
    log = "error: widgetlib frobnicator then gadgetron sprocket went quiet\n"
    diagnosis = _diagnose(log).diagnosis
    assert diagnosis.decided_by == similar.FAINT_GUESS and diagnosis.family == "bad-configuration"
    assert "faintly" in diagnosis.cause and diagnosis.confidence < 0.35 and not diagnosis.decided
    frameless = _diagnose("RuntimeError: widgetlib frobnicator then gadgetron sprocket went quiet\n").diagnosis
    assert frameless.decided_by == "structure:frameless-exception"  # the base rate's guess comes first
    one_each = _diagnose("error: widgetlib then gadgetron went quiet\n").diagnosis  # one word shared with each
    assert one_each.family is None


def test_words_most_reports_have_make_no_faint_likeness(small_index: None) -> None:
    # the small index weighs every word at idf 1.0, under COMMON_IDF: a faint likeness of common words only
    assert _diagnose("error: widgetlib frobnicator then gadgetron sprocket went quiet\n").diagnosis.family is None


def test_a_guess_quotes_a_message_that_runs_past_its_first_line(small_index: None) -> None:
    log = (
        "ValueError: The quadrature grid could not be split evenly across the requested blocks of the solver.\n"
        "Pass 'allow_ragged_blocks=True' to the partitioner to accept uneven blocks.\n"
    )
    diagnosis = _diagnose(log).diagnosis
    assert diagnosis.decided_by == "structure:frameless-exception", diagnosis
    assert "allow_ragged_blocks=True" in diagnosis.cause, diagnosis.cause
    one_line = _diagnose("ValueError: The quadrature grid could not be split evenly across the blocks.\n").diagnosis
    assert "The whole message" not in one_line.cause  # the record shows a message of one line
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    noisy = (
        log.replace("uneven blocks.", f"uneven blocks (token {token}).")
        + "wandb: Waiting for W&B process to finish... (failed 1).\n"
        + "Exception ignored in: <function Pool.__del__ at 0x7f0a2b3c4d50>\n"
    )
    said = _diagnose(noisy).diagnosis.cause
    assert "allow_ragged_blocks=True" in said and "wandb" not in said and "Exception ignored" not in said, said
    assert token[:8] not in said  # redacted before it is quoted
