"""The two kinds of error xladoctor itself raises, and what every front end makes of them.

UsageError: bad usage or bad input (an unknown option value, a malformed snapshot, a missing file). The CLI
prints it as one `xladoctor: error:` line (and, when the error carries one, a `hint:` line: "did you mean ...",
as uv and pip do) and exits 2, the magic prints one line, the Python API lets it
through: it is a ValueError. Every more specific bad-input error subclasses it, so a front end catches one
class. InternalError: xladoctor's own bug (its bundled data is broken); exit 3.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class UsageError(ValueError):
    """Bad usage or bad input: one line for a person, exit code 2; `hint` says what to type instead."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def did_you_mean(name: str, choices: Iterable[str], listing: str | None = None) -> str | None:
    """The hint for an unknown name: the closest valid ones, else the command that lists them (None: no hint)."""
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.6)
    if close:
        return f"did you mean {' or '.join(repr(c) for c in close)}?"
    return f"`{listing}` lists them" if listing else None


def unknown_names(what: str, unknown: Iterable[str], choices: Iterable[str], listing: str | None = None) -> UsageError:
    """`unknown check or area 'gpuu'` and a did-you-mean hint for the first unknown name. Without a `listing`
    command the few valid names are in the message itself."""
    names = list(unknown)
    valid = list(choices)
    message = f"unknown {what} {', '.join(repr(n) for n in names)}"
    if listing is None:
        message += f"; valid: {', '.join(valid)}"
    return UsageError(message, did_you_mean(names[0], valid, listing))


class CommandNotRunnable(UsageError):
    """A command given to run (profile's CMD) does not exist or cannot be executed: the shell's 127 or 126."""

    def __init__(self, message: str, exit_status: int) -> None:
        super().__init__(message)
        self.exit_status = exit_status


class InternalError(RuntimeError):
    """A bug in xladoctor, not in the user's environment or input: exit code 3."""
