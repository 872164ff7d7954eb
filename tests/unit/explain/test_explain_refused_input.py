"""explain's last resort reads a library's refusal of its input (worded as a check of what it was given) as the
caller's input, when the user's code called that library; not a refusal between two libraries."""

from __future__ import annotations

import io

import pytest

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.verdict import REFUSED_INPUT

HEAD = 'Traceback (most recent call last):\n  File "/home/me/train.py", line 12, in <module>\n    model = build(cfg)\n'
LIB = '  File "/venv/lib/python3.11/site-packages/somelib/core.py", line 40, in build\n    raise ValueError(msg)\n'
OTHER = '  File "/venv/lib/python3.11/site-packages/otherlib/api.py", line 9, in make\n    return build(cfg)\n'


def _diagnose(log: str):  # type: ignore[no-untyped-def]
    return explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: Empty image embeds must be provided for T2V",
        "ValueError: Mixed use with adapters is not allowed now.",
        "ValueError: filter_spec must consist of booleans and callables only.",
        "somelib.errors.ConfigError: Please specify a tokenizer path",
    ],
)
def test_a_librarys_refusal_of_what_the_users_call_gave_it_is_the_users_input(message: str) -> None:
    for log in (HEAD + LIB + message + "\n", message + "\n"):  # with the frames, and pasted without them
        diagnosis = _diagnose(log)
        assert diagnosis is not None and diagnosis.decided_by == REFUSED_INPUT, (log, diagnosis)
        assert (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
        assert not diagnosis.decided  # a guess, said as one
    framed = _diagnose(HEAD + LIB + message + "\n")
    assert "train.py:12" in framed.cause and "somelib" in framed.cause, framed.cause


def test_a_missing_argument_pasted_without_frames_is_the_callers() -> None:
    # with a library's frame, the rule of a call signature that changed reads it (rules/versions_calls.py)
    diagnosis = _diagnose("TypeError: __call__() missing 1 required positional argument: 'x'\n")
    assert diagnosis is not None and diagnosis.decided_by == REFUSED_INPUT, diagnosis


def test_a_refusal_between_two_libraries_or_an_unworded_error_is_not_read_as_the_users_input() -> None:
    between = _diagnose(HEAD.replace("build(cfg)", "make(cfg)") + OTHER + LIB + "ValueError: x must be provided\n")
    assert between is not None and between.decided_by != REFUSED_INPUT, between
    plain = _diagnose(HEAD + LIB + "ValueError: bias_4d_view.stride(0) overflows\n")
    assert plain is not None and plain.decided_by != REFUSED_INPUT, plain
    # an environment's kind of error is never a refused input, whatever its words
    missing = _diagnose(HEAD + LIB + "FileNotFoundError: a config file is required at /etc/x.yaml\n")
    assert missing is None or missing.decided_by != REFUSED_INPUT, missing


def test_an_error_raised_in_the_users_own_code_is_read_as_the_users_code_not_as_a_refusal() -> None:
    own = HEAD + '  File "/home/me/model.py", line 3, in build\n    raise ValueError("depth must be positive")\n'
    diagnosis = _diagnose(own + "ValueError: depth must be positive\n")
    assert diagnosis is not None and diagnosis.decided_by == "structure:raised-in-user-code", diagnosis


@pytest.mark.parametrize(
    ("caller", "message"),
    [
        # what the environment gives, not the call: a variable, a login
        ("client = build(cfg)", "somelib.Error: The api_key option must be set by passing it or by setting the "
         "SOMELIB_API_KEY environment variable"),
        ("client = build(cfg)", "ValueError: Please provide a token: log in with `somelib login`"),
        # a value outside the library's list: most often newer than the installed library knows
        ("model = build(cfg)", "ValueError: `rope_scaling`'s type field must be one of ['su', 'yarn'], got longrope"),
        # a builtin's type check, at import: a library on a Python it predates
        ("from somelib import build", "TypeError: an integer is required (got type bytes)"),
        ("from somelib import build", "ValueError: x must be provided"),
    ],
)  # fmt: skip
def test_a_check_of_what_the_environment_gives_a_newer_value_or_an_import_is_not_the_users_input(
    caller: str, message: str
) -> None:
    diagnosis = _diagnose(HEAD.replace("model = build(cfg)", caller) + LIB + message + "\n")
    assert diagnosis is None or diagnosis.decided_by != REFUSED_INPUT, diagnosis


def test_a_console_scripts_refusal_is_the_command_lines_and_a_users_own_bin_script_is_a_call() -> None:
    script = (
        'Traceback (most recent call last):\n  File "/home/me/venv/bin/somelib", line 8, in <module>\n'
        "    sys.exit(main())\n"
    )
    diagnosis = _diagnose(script + LIB + "ValueError: --num_processes must be at least 1\n")
    assert diagnosis is not None and diagnosis.decided_by == REFUSED_INPUT, diagnosis
    assert "your command line: somelib" in diagnosis.cause and "sys.exit" not in diagnosis.cause, diagnosis.cause
    own = script.replace("venv/bin/somelib", "proj/bin/train.py")
    mine = _diagnose(own + LIB + "ValueError: x must be provided\n")
    assert mine is not None and "your call: /home/me/proj/bin/train.py:8" in mine.cause, mine


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: cfg.SOLVER.IMS_PER_BATCH must be divisible by the number of GPUs",  # a config key, no variable
        "ValueError: max_new_tokens must be greater than 0 (got 0): one token is reserved",  # a token is no login
        "ValueError: `prompt` or `prompt_embeds` is required",
    ],
)
def test_an_upper_case_key_a_token_of_text_and_a_required_argument_are_the_users_input(message: str) -> None:
    diagnosis = _diagnose(HEAD + LIB + message + "\n")
    assert diagnosis is not None and diagnosis.decided_by == REFUSED_INPUT, diagnosis


def test_a_builtins_type_check_at_a_call_is_no_refused_input_and_a_line_that_imports_then_calls_is_a_call() -> None:
    builtin = _diagnose(HEAD + LIB + "TypeError: an integer is required (got type bytes)\n")
    assert builtin is None or builtin.decided_by != REFUSED_INPUT, builtin
    both = HEAD.replace("model = build(cfg)", "import somelib; model = somelib.build(cfg)")
    called = _diagnose(both + LIB + "ValueError: x must be provided\n")
    assert called is not None and called.decided_by == REFUSED_INPUT, called


@pytest.mark.parametrize(
    "message",
    [
        "RuntimeError: CUDA is required but not available for bitsandbytes",
        "ValueError: The `sentencepiece` package is required for this tokenizer",
        "ValueError: A token is required to access this repository",
        "TypeError: a string is required, not int",
    ],
)
def test_what_is_required_of_the_machine_or_a_builtins_type_is_not_the_users_input(message: str) -> None:
    diagnosis = _diagnose(HEAD + LIB + message + "\n")
    assert diagnosis is None or diagnosis.decided_by != REFUSED_INPUT, diagnosis


@pytest.mark.parametrize("line", ["import somelib  # noqa; needed", "from somelib import a; import b"])
def test_a_line_of_imports_alone_is_at_import_whatever_else_it_holds(line: str) -> None:
    diagnosis = _diagnose(HEAD.replace("model = build(cfg)", line) + LIB + "ValueError: x must be provided\n")
    assert diagnosis is None or diagnosis.decided_by != REFUSED_INPUT, diagnosis


def test_a_users_extensionless_script_in_a_projects_bin_is_a_call() -> None:
    script = 'Traceback (most recent call last):\n  File "/home/me/proj/bin/train", line 8, in <module>\n    run()\n'
    diagnosis = _diagnose(script + LIB + "ValueError: x must be provided\n")
    assert diagnosis is not None and "your call: /home/me/proj/bin/train:8" in diagnosis.cause, diagnosis
