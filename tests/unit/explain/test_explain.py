"""`xladoctor explain`: signatures found in logs, notebooks and stdin; honest when nothing is known."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import jsonschema
from conftest import run_cli, run_cli_peak_kib

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.scan import CHUNK_BYTES, MAX_LINE_BYTES, ChunkReader, scan
from xladoctor.reporters.explain_report import explain_schema, explanation_to_json

XLAC = (
    "ImportError: /usr/local/lib/python3.10/dist-packages/_XLAC.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN2at6native12cpu_fallbackERKN3c1014OperatorHandleEPSt6vectorINS1_6IValueESaIS6_EEbNS1_11DispatchKeyE"
)
TF_FLAG = "F0000 00:00:1.0 12 parse_flags_from_env.cc:234] Unknown flag in TF_XLA_FLAGS: --tf_xla_bogus_flag=1"


def _explain(text: str, name: str = "log.txt"):
    return explain_stream(name, io.BytesIO(text.encode()), None)


def test_matches_are_ordered_by_first_appearance_with_counts_and_line_numbers() -> None:
    log = "\n".join(["noise"] * 5 + [TF_FLAG, "noise", XLAC, XLAC, "tail"]) + "\n"
    explanation = _explain(log)
    assert [(m.id, m.count, m.evidence[0][0]) for m in explanation.matches] == [
        ("tf-xla-flags-unknown-flag", 1, 6),
        ("torch-xla-undefined-symbol", 2, 8),
    ]
    assert explanation.lines == 10 and explanation.bytes == len(log)


def test_line_numbers_survive_chunk_boundaries() -> None:
    filler = "x" * 99 + "\n"
    count = (CHUNK_BYTES // len(filler)) * 3 + 7  # the error sits past the third 1 MiB chunk
    log = filler * count + XLAC + "\n"
    [match] = _explain(log).matches
    assert match.evidence[0] == (count + 1, XLAC)


def test_an_endless_line_is_handed_on_in_pieces_not_held() -> None:
    blob = b"a" * (3 * CHUNK_BYTES) + b"\n" + XLAC.encode() + b"\n"
    chunks = list(ChunkReader(io.BytesIO(blob)))
    assert max(len(c) for c in chunks) <= CHUNK_BYTES + MAX_LINE_BYTES
    assert "".join(chunks).encode() == blob  # nothing cut, nothing added (under LONG_LINE_KEPT_BYTES)
    result = scan(chunks)
    assert result.lines == 2  # the long line is one line, not 3 MiB / 64 KiB of them
    assert [(h.signature.id, h.evidence) for h in result.hits] == [("torch-xla-undefined-symbol", [(2, XLAC)])]


def test_colour_codes_of_ipython_tracebacks_are_ignored() -> None:
    coloured = (
        "\x1b[0;31mImportError\x1b[0m: /x/_XLAC.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3fooEv"
    )
    [match] = _explain(coloured + "\n").matches
    assert (
        match.evidence[0][1]
        == "ImportError: /x/_XLAC.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3fooEv"
    )


def test_a_log_copied_from_a_web_page_reads_as_the_log_itself() -> None:
    # a forum's no-break spaces, a zero-width mark, and HTML's entities from a page's source: the same failure
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 9, in <module>\n'
        "    loss = model(x)\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        '23.64 GiB of which 1.02 GiB is free. Of the allocated memory 20.1 GiB is allocated by PyTorch, and "x" '
        "<= 1 GiB is reserved by PyTorch but unallocated.\n"
    )
    pasted = traceback.replace(" ", "\u00a0").replace('"', "&quot;").replace("<", "&lt;").replace("(", "\u200b(")
    plain, copied = _explain(traceback).diagnosis, _explain(pasted).diagnosis
    assert plain is not None and copied is not None
    assert (copied.family, copied.decided_by, copied.line) == (plain.family, plain.decided_by, plain.line)
    assert plain.family == "out-of-memory"
    assert copied.record == plain.record


def test_curly_quotes_an_editor_made_of_straight_ones_read_as_the_straight_ones() -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 9, in <module>\n'
        "    import flash_attn\n"
        "ModuleNotFoundError: No module named 'flash_attn'\n"
    )
    typeset = traceback.replace("'flash_attn'", "\u2018flash_attn\u2019").replace(
        '"/home/u/train.py"', "\u201c/home/u/train.py\u201d"
    )
    plain, copied = _explain(traceback).diagnosis, _explain(typeset).diagnosis
    assert plain is not None and copied is not None
    assert plain.family == "module-not-found"
    assert (copied.family, copied.decided_by, copied.line) == (plain.family, plain.decided_by, plain.line)


def test_a_notebook_is_read_from_its_json_lines(tmp_path: Path) -> None:
    # what Jupyter writes (nbformat 4, indent 1): each output line is one JSON string, colours escaped
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 1,
                "metadata": {},
                "source": ["import torch_xla\n"],
                "outputs": [
                    {
                        "ename": "ImportError",
                        "evalue": XLAC.split(": ", 1)[1],
                        "output_type": "error",
                        "traceback": [
                            "\x1b[0;31m---------------\x1b[0m",
                            f"\x1b[0;31mImportError\x1b[0m: {XLAC.split(': ', 1)[1]}",
                        ],
                    }
                ],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps(notebook, indent=1))
    explanation = explain_stream(str(path), path.open("rb"), None)
    assert explanation.format == "notebook"
    [match] = explanation.matches
    assert match.id == "torch-xla-undefined-symbol" and match.count == 2  # the evalue and the traceback line
    assert match.evidence[0][1].startswith("/usr/local/lib/python3.10/dist-packages/_XLAC")


def test_a_notebook_s_curly_double_quotes_stay_inside_its_json_strings(tmp_path: Path) -> None:
    # nbformat writes UTF-8 as it is: a straight quote made of a curly one would end the JSON string it is in
    error = (
        "OSError: libcudart.so.12: cannot open shared object file: No such file or directory "
        "(needed by \u201cmodel.so\u201d)"
    )
    notebook = {
        "cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["import model\n"],
                   "outputs": [{"name": "stderr", "output_type": "stream", "text": [error + "\n"]}]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False), encoding="utf-8")
    diagnosis = explain_stream(str(path), path.open("rb"), None).diagnosis
    assert diagnosis is not None and diagnosis.record.endswith("(needed by \u201cmodel.so\u201d)")


def test_no_known_signature_is_said_with_the_most_error_like_lines() -> None:
    log = "starting\nstep 1 ok\nRuntimeError: something nobody has seen before\nshutting down\n"
    explanation = _explain(log)
    assert explanation.matches == ()
    assert explanation.candidates == ((3, "RuntimeError: something nobody has seen before"),)


def test_without_facts_a_version_pin_is_not_guessed() -> None:
    [match] = _explain(XLAC + "\n").matches
    assert match.remediation == ()
    assert match.note is not None and "pass --python" in match.note
    [flag] = _explain(TF_FLAG + "\n").matches  # a command that needs no versions is given as it is
    assert flag.remediation == ("unset TF_XLA_FLAGS  # or remove --tf_xla_bogus_flag from it",)


def test_json_output_validates_against_the_published_schema(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_text(f"hello\n{TF_FLAG}\n")
    result = run_cli("explain", str(log), "--no-facts", "--json")
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    jsonschema.validate(document, explain_schema())
    assert run_cli("schema", "explain").stdout == json.dumps(explain_schema(), indent=2) + "\n"
    nothing = run_cli("explain", "-", "--no-facts", "--json", input="all good\n")
    assert nothing.returncode == 0
    jsonschema.validate(json.loads(nothing.stdout), explain_schema())
    jsonschema.validate(explanation_to_json(_explain(XLAC)), explain_schema())


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for args, needle in [
        (("explain", str(tmp_path / "missing.log")), "cannot read"),
        (("explain", str(tmp_path)), "cannot read"),
        (("explain", "-", "--no-facts", "--python", sys.executable), "choose one of --python, --facts and --no-facts"),
        (("schema", "nonsense"), "unknown schema 'nonsense'"),
    ]:
        result = run_cli(*args, input="")
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("xladoctor: error: ") and needle in lines[0], lines


def test_memory_stays_bounded_on_a_large_log(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    line = b"I1129 12:00:01.123456 12345 step.cc:12] step 1234 loss=0.1234 lr=3e-4 throughput=1234.5 samples/s\n"
    with log.open("wb") as out:
        for _ in range(64):  # 64 MiB
            out.write(line * ((1 << 20) // len(line)))
        out.write(XLAC.encode() + b"\n")
    returncode, out, peak_kib = run_cli_peak_kib("explain", str(log), "--no-facts", "--json")
    assert returncode == 1
    assert [m["id"] for m in json.loads(out)["matches"]] == ["torch-xla-undefined-symbol"]
    assert peak_kib < 100 * 1024  # KiB: a 64 MiB log must not be held in memory
