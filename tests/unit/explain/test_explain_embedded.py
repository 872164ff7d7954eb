# ruff: noqa: E501 - log lines as their tools print them
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
        # JSON's \uXXXX escapes (a non-ASCII path) and Python's \xNN bytes: the same traceback
        pytest.param(lambda log: json.dumps({"message": log.replace("/home/me", "/home/zoë")}), id="json-unicode"),
        pytest.param(lambda log: f"CalledProcessError: stderr={log.encode()!r}", id="bytes-repr"),
        pytest.param(lambda log: f"worker exited: {log!r}", id="str-repr"),
        # the other kind of quote inside the string's first line (an apostrophe in JSON, a frame's " in a repr)
        pytest.param(lambda log: json.dumps({"message": "Worker 'w0' can't go on:\n" + log}), id="json-apostrophe"),
        pytest.param(lambda log: "stderr=b'" + repr(log.encode())[2:], id="bytes-repr-quotes"),
    ],
)
def test_an_escaped_traceback_reads_as_the_traceback_on_its_files_line(wrap) -> None:  # type: ignore[no-untyped-def]
    text = "INFO starting\nINFO loading\n" + wrap(TRACEBACK) + "\nINFO shutting down\n"
    family, line, cause = _explained(text)
    assert (family, line) == ("user-code-error", 3) and "train.py:12 (`y = model(x)`)" in cause


def test_the_lines_are_cut_to_the_string_that_holds_them() -> None:
    record = json.dumps(
        {"ts": 1, "message": 'Traceback (most recent call last):\n  File "a.py", line 1\nValueError: "x"'}
    )
    lines = embedded_lines(record)
    # what came before the string is a line of its own (a launcher's words may be there), the string's lines after
    assert lines == [
        '{"ts": 1, "message": "',
        "Traceback (most recent call last):",
        '  File "a.py", line 1',
        'ValueError: "x"',
    ]


def test_a_quote_of_the_other_kind_is_no_string_boundary() -> None:
    record = json.dumps({"message": "Can't load 'bert':\nOSError: Can't load tokenizer for 'bert-base'"})
    lines = embedded_lines(record)
    assert lines is not None and lines[-2:] == ["Can't load 'bert':", "OSError: Can't load tokenizer for 'bert-base'"]
    frame = "stderr=b'  File \"/x/peft/peft_model.py\", line 37, in <module>\\n    from transformers import Cache\\n'"
    assert embedded_lines(frame) == [
        "stderr=b'",
        '  File "/x/peft/peft_model.py", line 37, in <module>',
        "    from transformers import Cache",
        "",
    ]


def test_a_failure_said_before_the_string_is_still_read() -> None:
    assert (
        _explained("RuntimeError: NCCL watchdog timed out; last output: 'UserWarning: x\\nDeprecationWarning: y'\n")[0]
        == "hang-timeout"
    )


def test_escapes_of_bytes_and_surrogate_pairs_are_the_characters_they_stand_for() -> None:
    lines = embedded_lines(
        "stderr=b'Traceback (most recent call last):\\nKeyError: \\'caf\\xc3\\xa9 \\xf0\\x9f\\x94\\xa5\\'\\n'"
    )
    assert lines is not None and lines[2] == "KeyError: 'café 🔥'"
    record = json.dumps({"message": "Traceback (most recent call last):\nKeyError: '🔥'"})
    assert (embedded_lines(record) or [])[-1] == "KeyError: '🔥'"


def test_one_escaped_newline_before_a_frame_is_enough() -> None:
    record = json.dumps(
        {"message": '  File "/x/peft/peft_model.py", line 37, in <module>\n    from transformers import Cache'}
    )
    assert (embedded_lines(record) or [])[-2:] == [
        '  File "/x/peft/peft_model.py", line 37, in <module>',
        "    from transformers import Cache",
    ]


@pytest.mark.parametrize(
    "line",
    [
        # Windows paths, raw and JSON-escaped: their "\n" and "\r" are a folder's first letter, no line break
        r"FileNotFoundError: [Errno 2] No such file or directory: 'C:\Users\nick\nets\run\model.pt'",
        r'  File "C:\Users\nvidia\new\train.py", line 3, in <module>',
        r"RuntimeError: Parent directory D:\runs\exp1 does not exist.",
        r"OSError: C:\Users\rahul\llama does not appear to have a file named config.json",
        r"File ~\anaconda3\Lib\site-packages\torch\nn\modules\module.py:1518, in Module._call_impl(self, *args)",
        r"ValueError: bad file D:\data\nlp\runtimeError",
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
        + r'  File "C:\Users\me\train.py", line 3, in <module>'
        + "\n    torch.save(model, path)\n"
        + r"RuntimeError: Parent directory D:\runs\exp1 does not exist."
        + "\n"
    )
    family, _, cause = _explained(log)
    assert family == "disk-or-permission" and r"D:\runs\exp1" in cause


def test_escaped_quotes_and_unicode_are_the_characters_they_stand_for() -> None:
    record = json.dumps({"message": "Traceback (most recent call last):\n  File \"/x/a.py\", line 1\nKeyError: 'café'"})
    lines = embedded_lines(record)
    assert lines is not None and lines[-1] == "KeyError: 'café'" and lines[2] == '  File "/x/a.py", line 1'
