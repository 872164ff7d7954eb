"""Exit codes, mapped in one place and documented in the README and `--help`."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a run of xladoctor tells its caller."""

    OK = 0  # nothing failed
    FAILED = 1  # a check or smoke test failed (or warned, with --strict)
    USAGE = 2  # bad usage or bad input: unknown option value, malformed facts file, missing path
    INTERNAL = 3  # xladoctor's own bug: a check raised, or its bundled data is broken
    INTERRUPTED = 130  # Ctrl-C


HELP_TEXT = (
    "Exit codes: 0 nothing failed; 1 a check or smoke test failed (or warned, with --strict); "
    "2 bad usage or bad input; 3 xladoctor's own bug (a check raised); 130 interrupted."
)
