"""A log inside one line of a log (a JSON logger's record, a Python repr of captured stderr) is read as the lines it
holds, each numbered as the file's line; a line whose backslashes are a Windows path's stays one line."""

from __future__ import annotations

import io
import json

import pytest

from xladoctor.explain.embedded import embedded_lines
from xladoctor.explain.engine import explain_stream

# a shape error (torch's addmm check) raised under the user's frame: only the traceback's structure tells whose
# line to change, so a reader that sees one long line cannot name it
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/me/train.py", line 12, in <module>\n'
    "    y = model(x)\n"
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", line 125, in forward\n'
    "    return F.linear(input, self.weight, self.bias)\n"
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x10 and 20x5)"
)


def _explained(text: str) -> tuple[str | None, int | None, str]:
    diagnosis = explain_stream("x.log", io.BytesIO(text.encode()), None).diagnosis
    assert diagnosis is not None
    return diagnosis.family, diagnosis.line, diagnosis.cause


def test_the_plain_traceback_is_the_reference() -> None:
    family, _, cause = _explained(TRACEBACK)
    assert family == "user-code-error" and "your code at /home/me/train.py:12 (`y = model(x)`)" in cause


@pytest.mark.parametrize(
    "wrap",
    [
        pytest.param(lambda log: json.dumps({"level": "error", "message": log}), id="json-record"),
        pytest.param(lambda log: json.dumps({"level": "error", "message": log}, ensure_ascii=True), id="json-ascii"),
        pytest.param(lambda log: f"CalledProcessError: stderr={log.encode()!r}", id="bytes-repr"),
        pytest.param(lambda log: f"worker exited: {log!r}", id="str-repr"),
    ],
)
def test_an_escaped_traceback_reads_as_the_traceback_on_its_files_line(wrap) -> None:  # type: ignore[no-untyped-def]
    text = "INFO starting\nINFO loading\n" + wrap(TRACEBACK) + "\nINFO shutting down\n"
    family, line, cause = _explained(text)
    assert (family, line) == ("user-code-error", 3) and "your code at /home/me/train.py:12 (`y = model(x)`)" in cause


def test_the_lines_are_cut_to_the_string_that_holds_them() -> None:
    record = json.dumps(
        {"ts": 1, "message": 'Traceback (most recent call last):\n  File "a.py", line 1\nValueError: "x"'}
    )
    lines = embedded_lines(record)
    assert lines == ["Traceback (most recent call last):", '  File "a.py", line 1', 'ValueError: "x"']


def test_one_escaped_newline_before_a_frame_is_enough() -> None:
    record = json.dumps(
        {"message": '  File "/x/peft/peft_model.py", line 37, in <module>\n    from transformers import Cache'}
    )
    assert embedded_lines(record) == [
        '  File "/x/peft/peft_model.py", line 37, in <module>',
        "    from transformers import Cache",
    ]


@pytest.mark.parametrize(
    "line",
    [
        # Windows paths, raw and JSON-escaped: their "\n" and "\r" are a folder's first letter, no line break
        r"FileNotFoundError: [Errno 2] No such file or directory: 'C:\Users\nick\nets\run\model.pt'",
        r'  File "C:\Users\nvidia\new\train.py", line 3, in <module>',
        json.dumps({"path": "C:\\Users\\nick\\nets\\ValueError.py", "message": "saved"}),
        # one newline a message quotes, with no line of a log after it
        r"ValueError: could not convert string to float: 'a\nb'",
        "",
    ],
)
def test_a_line_with_no_log_inside_stays_one_line(line: str) -> None:
    assert embedded_lines(line) is None


def test_a_windows_path_in_an_error_keeps_its_reading() -> None:
    log = (
        "Traceback (most recent call last):\n"
        + r'  File "C:\Users\nick\new\train.py", line 3, in <module>'
        + ("\nModuleNotFoundError: No module named 'triton'\n")
    )
    assert _explained(log)[0] == "module-not-found"


def test_escaped_quotes_and_unicode_are_the_characters_they_stand_for() -> None:
    record = json.dumps({"message": "Traceback (most recent call last):\n  File \"/x/a.py\", line 1\nKeyError: 'café'"})
    lines = embedded_lines(record)
    assert lines is not None and lines[-1] == "KeyError: 'café'" and lines[1] == '  File "/x/a.py", line 1'
