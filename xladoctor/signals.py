"""The signal dispositions xladoctor was started with, kept so that what it starts gets them back.

`nohup xladoctor gate -- CMD` must leave SIGHUP ignored for CMD, and a background job (`xladoctor ... &` in a
script) must leave SIGINT ignored, exactly as `exec` and `nohup CMD` do. So a stopping signal that the caller
ignored is never caught (xladoctor ignores it too, as its caller asked), and `restore_for_exec` gives the command
the caller's dispositions. SIGPIPE and SIGXFSZ are the exception: the interpreter ignores both before any of our
code runs, so what the caller had is unknowable; the command gets the default, as `subprocess` does
(restore_signals=True).
"""

from __future__ import annotations

import signal

# The signals that stop xladoctor (each child stopped first, see cli/main.py); ignored ones stay ignored.
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_RESET_BY_PYTHON = (signal.SIGPIPE, signal.SIGXFSZ)

_IGNORED_BY_CALLER: set[int] = set()


def remember_inherited() -> None:
    """Called first thing in main(), before any handler is installed: which stopping signals arrived ignored."""
    _IGNORED_BY_CALLER.clear()
    _IGNORED_BY_CALLER.update(sig for sig in STOPPING if signal.getsignal(sig) == signal.SIG_IGN)


def ignored_by_caller(sig: int) -> bool:
    return sig in _IGNORED_BY_CALLER


def catchable() -> tuple[signal.Signals, ...]:
    """The stopping signals xladoctor may catch: those its caller did not ignore."""
    return tuple(sig for sig in STOPPING if sig not in _IGNORED_BY_CALLER)


def restore_for_exec() -> None:
    """Just before exec: the caller's dispositions for the stopping signals, the default for SIGPIPE/SIGXFSZ."""
    for sig in STOPPING:
        signal.signal(sig, signal.SIG_IGN if sig in _IGNORED_BY_CALLER else signal.SIG_DFL)
    for sig in _RESET_BY_PYTHON:
        signal.signal(sig, signal.SIG_DFL)
