"""`main(argv) -> int`: every failure mapped to an exit code, in one place."""

from __future__ import annotations

import sys

import typer

from xladoctor.cli.app import app
from xladoctor.errors import InternalError, UsageError
from xladoctor.exitcodes import ExitCode
from xladoctor.matrix import MatrixError

# `xladoctor` and `xladoctor --json` mean `xladoctor check ...`; the order is the one --help lists.
COMMANDS = ("check", "gate", "explain", "snapshot", "compare", "matrix", "schema")


def _error(message: str) -> None:
    print(f"xladoctor: error: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code; every failure is mapped here, in one place."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0] not in COMMANDS and args[0] not in ("--help", "-h", "--version")):
        args.insert(0, "check")
    try:
        result = app(args=args, prog_name="xladoctor", standalone_mode=False)
        return int(result) if isinstance(result, int) else int(ExitCode.OK)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except UsageError as exc:
        _error(str(exc))
        return int(ExitCode.USAGE)
    except typer.TyperException as exc:  # unknown option, bad value, missing argument
        message = exc.format_message().strip().splitlines()
        _error(message[0] if message else type(exc).__name__)
        return int(ExitCode.USAGE)
    except (typer.Abort, KeyboardInterrupt):
        _error("interrupted")
        return int(ExitCode.INTERRUPTED)
    except MatrixError as exc:
        _error(f"bundled compatibility matrix is broken (a bug in xladoctor): {exc}")
        return int(ExitCode.INTERNAL)
    except InternalError as exc:
        _error(f"a bug in xladoctor: {exc}")
        return int(ExitCode.INTERNAL)
    except Exception as exc:  # xladoctor's own bug: one line and exit 3, never a traceback for a user to decode
        _error(f"a bug in xladoctor ({type(exc).__name__}: {exc}); please report it with `xladoctor snapshot`")
        return int(ExitCode.INTERNAL)


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
