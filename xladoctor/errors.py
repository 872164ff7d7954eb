"""The two kinds of error xladoctor itself raises, and what every front end makes of them.

UsageError: bad usage or bad input (an unknown option value, a malformed snapshot, a missing file). The CLI
prints it as one `xladoctor: error:` line and exits 2, the magic prints one line, the Python API lets it
through: it is a ValueError. Every more specific bad-input error subclasses it, so a front end catches one
class. InternalError: xladoctor's own bug (its bundled data is broken); exit 3.
"""

from __future__ import annotations


class UsageError(ValueError):
    """Bad usage or bad input: one line for a person, exit code 2."""


class CommandNotRunnable(UsageError):
    """A command given to run (profile's CMD) does not exist or cannot be executed: the shell's 127 or 126."""

    def __init__(self, message: str, exit_status: int) -> None:
        super().__init__(message)
        self.exit_status = exit_status


class InternalError(RuntimeError):
    """A bug in xladoctor, not in the user's environment or input: exit code 3."""
