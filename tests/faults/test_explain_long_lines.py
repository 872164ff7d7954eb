"""`xladoctor explain` on lines longer than its buffers: exact line numbers, matches found wherever they lie.

A line over 64 KiB is read in pieces and searched across their joins; a notebook saved on one line (minified)
is read as the output lines its JSON strings hold, with the file's own line numbers.
"""

from __future__ import annotations

import base64
import io
import json
import random
from pathlib import Path

import nbformat
import pytest
from conftest import run_cli
from nbformat.v4 import new_code_cell, new_notebook, new_output

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.scan import CHUNK_BYTES, CONTEXT, MAX_LINE_BYTES, WHOLE_LINE

EVALUE = (
    "/usr/local/lib/python3.10/dist-packages/_XLAC.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN2at6native12cpu_fallbackERKN3c1014OperatorHandleEPSt6vectorINS1_6IValueESaIS6_EEbNS1_11DispatchKeyE"
)
XLAC = f"ImportError: {EVALUE}"  # as torch_xla's import prints it (https://github.com/pytorch/xla/issues/8292)
XLAC_AT = XLAC.index("_XLAC")  # where the signature's match starts


def _explain(data: bytes, name: str = "run.log"):
    return explain_stream(name, io.BytesIO(data), None)


def _found(explanation) -> list[tuple[str, int, tuple[tuple[int, str], ...]]]:
    return [(m.id, m.count, m.evidence) for m in explanation.matches]


def test_a_200_kb_third_line_does_not_move_the_fifth() -> None:
    log = b"starting\nstep 1\n" + b"x" * 200_000 + b"\nstep 2\n" + XLAC.encode() + b"\nexiting\n"
    explanation = _explain(log)
    assert _found(explanation) == [("torch-xla-undefined-symbol", 1, ((5, XLAC),))]
    assert explanation.lines == 6


@pytest.mark.parametrize("trailing_newline", [True, False])
def test_lines_are_counted_exactly_around_lines_of_every_length(trailing_newline: bool) -> None:
    lengths = [70_000, 3 * CHUNK_BYTES + 5, 0, MAX_LINE_BYTES, MAX_LINE_BYTES + 1, WHOLE_LINE + 1, CHUNK_BYTES, 10]
    log = b"".join(b"y" * n + b"\n" for n in lengths) + XLAC.encode() + (b"\n" if trailing_newline else b"")
    explanation = _explain(log)
    assert _found(explanation) == [("torch-xla-undefined-symbol", 1, ((len(lengths) + 1, XLAC),))]
    assert explanation.lines == len(lengths) + 1 and explanation.bytes == len(log)


# Where a long line is cut into pieces (every MAX_LINE_BYTES) and where the reader's 1 MiB blocks end.
JOINS = [MAX_LINE_BYTES, CHUNK_BYTES, CHUNK_BYTES + MAX_LINE_BYTES]


@pytest.mark.parametrize("join", JOINS)
@pytest.mark.parametrize("before", [len(XLAC) + 1, len(XLAC) - XLAC_AT, len(XLAC) // 2, XLAC_AT + 1, 1, 0])
def test_a_failure_inside_a_long_line_is_found_once_across_the_joins(join: int, before: int) -> None:
    """The failure text starts `before` characters ahead of a join of a 2.5 MiB line (line 2)."""
    start = join - before
    line = "y" * (start - 1) + " " + XLAC + " " + "z" * (5 * CHUNK_BYTES // 2 - start - len(XLAC))
    explanation = _explain(f"first line\n{line}\nlast line\n".encode())
    shown = f"…{'y' * (CONTEXT - XLAC_AT - 1)} {XLAC} {'z' * (CONTEXT - 1)}…"
    assert _found(explanation) == [("torch-xla-undefined-symbol", 1, ((2, shown),))]
    assert explanation.lines == 3


def test_every_failure_of_a_long_line_is_counted_and_the_first_shown() -> None:
    line = " | ".join(["x" * 30_000, XLAC, "x" * 100_000, XLAC, "x" * 3 * CHUNK_BYTES, XLAC])
    [match] = _explain(line.encode()).matches
    assert (match.count, [n for n, _ in match.evidence]) == (3, [1, 1, 1])
    assert match.evidence[0][1] == f"…{'x' * (CONTEXT - XLAC_AT - 3)} | {XLAC} | {'x' * (CONTEXT - 3)}…"


def test_a_specific_signature_wins_its_stretch_of_a_long_line_as_it_wins_a_short_line() -> None:
    """`libcudnn.so.9: cannot open shared object file` is libcudnn-missing, not also the generic one."""
    cudnn = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"
    other = "ImportError: libc10.so: cannot open shared object file: No such file or directory"
    long_line = " ".join(["x" * 20_000, cudnn, "x" * 20_000, other, "x" * 20_000])
    short = _explain(f"{cudnn}\n{other}\n".encode())
    long = _explain(f"{long_line}\n".encode())
    assert [(m.id, m.count) for m in short.matches] == [("libcudnn-missing", 1), ("shared-library-missing", 1)]
    assert [(m.id, m.count) for m in long.matches] == [("libcudnn-missing", 1), ("shared-library-missing", 1)]


def _traceback() -> list[str]:
    """An IPython traceback of `import torch_xla` against another torch, as a notebook stores it (colours kept)."""
    return [
        "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
        "\x1b[0;31mImportError\x1b[0m                               Traceback (most recent call last)",
        "Cell \x1b[0;32mIn[3], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m \x1b[38;5;28;01mimport\x1b[39;00m "
        "\x1b[38;5;21;01mtorch_xla\x1b[39;00m\n",
        "File \x1b[0;32m/usr/local/lib/python3.10/dist-packages/torch_xla/__init__.py:20\x1b[0m\n"
        "\x1b[1;32m     17\x1b[0m \x1b[38;5;28;01mimport\x1b[39;00m \x1b[38;5;21;01mtorch\x1b[39;00m\n"
        "\x1b[0;32m---> 20\x1b[0m \x1b[38;5;28;01mimport\x1b[39;00m \x1b[38;5;21;01m_XLAC\x1b[39;00m\n",
        f"\x1b[0;31mImportError\x1b[0m: {EVALUE}",
    ]


def _minified_notebook() -> str:
    """A Colab-style run saved on one line: a plot (base64 PNG), a pip log, then the failing import."""
    png = base64.b64encode(random.Random(8292).randbytes(285_000)).decode()
    pip_log = "".join(
        f"Requirement already satisfied: package{i} in /usr/local/lib/python3.10/dist-packages (1.{i}.0)\n"
        for i in range(1100)
    )
    cells = [
        new_code_cell(
            "import matplotlib.pyplot as plt\nplt.plot(range(10))",
            execution_count=1,
            outputs=[
                new_output(
                    "display_data",
                    data={"image/png": png, "text/plain": "<Figure size 640x480 with 1 Axes>"},
                    metadata={},
                )
            ],
        ),
        new_code_cell("!pip install torch_xla", execution_count=2, outputs=[new_output("stream", text=pip_log)]),
        new_code_cell(
            "import torch_xla",
            execution_count=3,
            outputs=[new_output("error", ename="ImportError", evalue=EVALUE, traceback=_traceback())],
        ),
    ]
    notebook = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    nbformat.validate(notebook)
    return json.dumps(json.loads(nbformat.writes(notebook)), separators=(",", ":"))  # minified: one line


def test_a_notebook_saved_on_one_line_is_read_as_its_output_lines(tmp_path: Path) -> None:
    text = _minified_notebook()
    assert "\n" not in text and 480_000 < len(text) < 500_000 and text.index(EVALUE) > 4 * MAX_LINE_BYTES
    path = tmp_path / "run.ipynb"
    path.write_text(text)
    for name, data in [(str(path), path.read_bytes()), ("<stdin>", path.read_bytes())]:  # by name, then by content
        explanation = explain_stream(name, io.BytesIO(data), None)
        assert explanation.format == "notebook" and explanation.lines == 1
        # the error's evalue, then the traceback's last line, colours removed; both on the file's line 1
        assert _found(explanation) == [("torch-xla-undefined-symbol", 2, ((1, EVALUE), (1, XLAC)))]
    result = run_cli("explain", str(path), "--no-facts", "--json")
    assert result.returncode == 1, result.stderr
    [match] = json.loads(result.stdout)["matches"]
    assert match["evidence"] == [{"line": 1, "text": EVALUE}, {"line": 1, "text": XLAC}]


@pytest.mark.parametrize("join", [MAX_LINE_BYTES, CHUNK_BYTES])
@pytest.mark.parametrize("before", [len(XLAC) + 8, len(XLAC) // 2, 7, 1, 0, -1, -2, -6])
def test_a_notebook_output_longer_than_a_piece_is_read_across_the_joins(join: int, before: int) -> None:
    """One output string (a stream, unsplit) of 1.5 MiB without a quote in it: the reader must cut inside it,
    and never inside an escape (`\\n`, `\\u001b`); the failure line starts `before` bytes ahead of a join."""

    def notebook(pad: int) -> str:
        stream = "x" * pad + "\nTraceback (most recent call last):\n\x1b[0;31m" + XLAC + "\x1b[0m\n" + "y\n" * 600_000
        output = {"name": "stderr", "output_type": "stream", "text": stream}
        cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [output], "source": "x"}
        return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, separators=(",", ":"))

    probe = notebook(1000)
    text = notebook(1000 + join - before - probe.index("ImportError"))
    assert text.index("ImportError") == join - before
    explanation = _explain(text.encode(), name="<stdin>")
    assert _found(explanation) == [("torch-xla-undefined-symbol", 1, ((1, XLAC),))]
    assert explanation.lines == 1
