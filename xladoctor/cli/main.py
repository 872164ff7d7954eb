"""`main(argv) -> int`: every failure mapped to an exit code, in one place; signals stop every child first."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
from types import FrameType
from typing import Any

import typer

from xladoctor import proc, signals
from xladoctor.cli.app import HELP_ORDER, app_for
from xladoctor.errors import CommandNotRunnable, InternalError, UsageError
from xladoctor.exitcodes import ExitCode

# `xladoctor` and `xladoctor --json` mean `xladoctor check ...`: anything but a command name goes to `check`.
COMMANDS = HELP_ORDER
_OUTPUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EBADF, errno.EIO, errno.EFBIG, errno.EDQUOT}


class Interrupted(BaseException):
    """A stopping signal arrived: unwinds the command (its `finally` blocks remove temporary folders)."""

    def __init__(self, signum: int, stopped: list[str]) -> None:
        super().__init__(signum)
        self.signum = signum
        self.stopped = stopped


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """First signal: stop every child now and unwind. A second one while unwinding: finish the job and leave."""
    if proc.INTERRUPTED.is_set():
        proc.stop_all()
        proc.kill_descendants()
        proc.remove_scratch()
        os._exit(128 + signum)
    proc.INTERRUPTED.set()
    raise Interrupted(signum, proc.stop_all())


def _error(message: str, hint: str | None = None) -> None:
    from xladoctor.sanitize import one_line  # only when there is an error to say: start-up stays light

    if sys.stderr is not None:  # a closed stderr (2>&-): the exit code still says it
        with contextlib.suppress(OSError, ValueError):
            print(f"xladoctor: error: {one_line(message)}", file=sys.stderr, flush=True)
            if hint:
                print(f"hint: {one_line(hint)}", file=sys.stderr, flush=True)


class ClosedStream(io.TextIOBase):
    """What sys.stdout or sys.stdin is when the shell closed that descriptor (`>&-`, `<&-`): using it is bad input
    (exit 2, one line), never a crash on None. Its descriptor is held open on the null device meanwhile, so no
    file xladoctor opens can become descriptor 1 and receive a child's output."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name_ = name

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, f"{self.name_} is closed")

    def read(self, size: int | None = -1) -> str:
        raise UsageError(f"{self.name_} is closed (<&-): give the input as a file")

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        return self.read(size)

    @property
    def buffer(self) -> Any:
        raise UsageError(f"{self.name_} is closed (<&-): give the input as a file")

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        return None


def _closed_descriptors() -> None:
    """stdin, stdout or stderr closed by the caller: hold the descriptor on the null device (opened, never
    replaced), and make the stream one that says so when it is used."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        with contextlib.suppress(OSError):
            held = os.open(os.devnull, os.O_RDWR)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
        setattr(sys, name, ClosedStream(name) if name != "stderr" else None)


def _ascii_safe_streams() -> None:
    """A terminal or pipe that cannot encode the report's marks (PYTHONIOENCODING=ascii, LANG=C) gets escapes,
    never a UnicodeEncodeError; the text reporter then uses ASCII marks too."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and hasattr(stream, "reconfigure"):
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors="backslashreplace")


def _stdout_written() -> str | None:
    """Flush stdout; why the report could not be written (a full disk, a closed pipe), or None."""
    if sys.stdout is None or isinstance(sys.stdout, ClosedStream):
        return None  # nothing reached it: a write would have raised
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        return "stdout was closed before the report was written (a broken pipe)"
    except OSError as exc:
        return f"cannot write the report to stdout: {exc.strerror or exc}"
    return None


def _silence_stdout() -> None:
    """After a failed write to stdout, the interpreter's own flush at exit must not print a traceback."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        if sys.stdout is not None:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(devnull, sys.stdout.fileno())


def _run(args: list[str]) -> int:
    try:
        result = app_for(args)(args=args, prog_name="xladoctor", standalone_mode=False)
        code = int(result) if isinstance(result, int) else int(ExitCode.OK)
    except typer.Exit as exc:
        code = int(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        _error("interrupted")
        return int(ExitCode.INTERRUPTED)
    except SystemExit:
        # click answers EPIPE with sys.exit(1) after wrapping the streams in PacifyFlushWrapper; say what happened
        if type(sys.stdout).__name__ != "PacifyFlushWrapper":
            raise
        _error("stdout was closed before the report was written (a broken pipe)")
        _silence_stdout()
        return int(ExitCode.USAGE)
    except OSError as exc:  # the report's own writes: probes and files turn their errors into data or UsageError
        if not isinstance(exc, BrokenPipeError) and exc.errno not in _OUTPUT_ERRNOS:
            raise
        broken = isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE
        _error(
            "stdout was closed before the report was written (a broken pipe)"
            if broken
            else f"cannot write the report to stdout: {exc.strerror or exc}"
        )
        _silence_stdout()
        return int(ExitCode.USAGE)
    problem = _stdout_written()
    if problem is not None:
        _error(problem)
        _silence_stdout()
        return int(ExitCode.USAGE)
    return code


def _is_matrix_error(exc: InternalError) -> bool:
    """A MatrixError (matrix/relations.py) without importing the matrix at start-up: only a command that loaded
    the matrix can have raised one."""
    relations = sys.modules.get("xladoctor.matrix.relations")
    return relations is not None and isinstance(exc, relations.MatrixError)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code; every failure is mapped here, in one place."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0] not in COMMANDS and args[0] not in ("--help", "-h", "--version")):
        args.insert(0, "check")
    signals.remember_inherited()  # before any handler: a signal the caller ignored stays ignored (nohup, `&`)
    proc.INTERRUPTED.clear()
    _closed_descriptors()
    _ascii_safe_streams()
    # a file-size limit (ulimit -f) must make a write fail with EFBIG, not kill xladoctor mid-write
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    previous = {sig: signal.signal(sig, _on_signal) for sig in signals.catchable()}
    try:
        with proc.children_cleaned_up():
            return _run(args)
    except Interrupted as stop:
        name = signal.Signals(stop.signum).name
        what = f"; stopped {', '.join(stop.stopped)}" if stop.stopped else ""
        _error(f"interrupted by {name}{what}; every child process was stopped and its temporary files removed")
        return 128 + stop.signum
    except CommandNotRunnable as exc:  # profile's CMD: 127 not found, 126 not executable, as a shell says
        _error(str(exc))
        return exc.exit_status
    except UsageError as exc:
        _error(str(exc), exc.hint)
        return int(ExitCode.USAGE)
    except typer.TyperException as exc:  # unknown option, bad value, missing argument
        message = exc.format_message().strip().splitlines()
        _error(message[0] if message else type(exc).__name__)
        return int(ExitCode.USAGE)
    except InternalError as exc:
        if _is_matrix_error(exc):
            _error(f"bundled compatibility matrix is broken (a bug in xladoctor): {exc}")
        else:
            _error(f"a bug in xladoctor: {exc}")
        return int(ExitCode.INTERNAL)
    except Exception as exc:  # xladoctor's own bug: one line and exit 3, never a traceback for a user to decode
        _error(f"a bug in xladoctor ({type(exc).__name__}: {exc}); please report it with `xladoctor snapshot`")
        return int(ExitCode.INTERNAL)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
