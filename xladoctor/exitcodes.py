"""Exit codes, mapped in one place and documented in the README and `--help`."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a run of xladoctor tells its caller."""

    OK = 0  # nothing failed
    FAILED = 1  # a check or smoke test failed (or warned, with --strict)
    USAGE = 2  # bad usage or bad input: unknown option value, malformed facts file, missing path
    INTERNAL = 3  # xladoctor's own bug: a check raised, or its bundled data is broken
    INTERRUPTED = 130  # Ctrl-C (SIGINT); any stopping signal N gives 128 + N (SIGTERM 143, SIGHUP 129)


HELP_TEXT = (
    "Exit codes: 0 nothing failed; 1 a check or smoke test failed (or warned, with --strict); "
    "2 bad usage or bad input (also: the report could not be written); 3 xladoctor's own bug; "
    "128+N stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)."
)


# kubernetes/node-problem-detector pkg/custompluginmonitor/types/types.go @146a394f: `OK Status = 0`, `NonOK = 1`,
# `Unknown = 2`; plugin/plugin.go @011b9e6a reads exit 0 as OK, 1 as NonOK and any other status as Unknown.
NPD_OK, NPD_PROBLEM, NPD_UNKNOWN = 0, 1, 2


def npd_exit_code(code: ExitCode) -> int:
    """What `check --format npd` exits with: NPD's OK for 0, its problem for 1, unknown for anything else (an
    `error` finding, 3, is xladoctor's own failure to decide, not the node's)."""
    return {ExitCode.OK: NPD_OK, ExitCode.FAILED: NPD_PROBLEM}.get(code, NPD_UNKNOWN)
