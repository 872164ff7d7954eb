"""`%load_ext xladoctor` and the `%xladoctor` line magic: run diagnose() and show its report in the notebook."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, NoReturn

from xladoctor.api import DiagnoseError, DiagnosisReport, diagnose


class MagicUsageError(ValueError):
    """Bad `%xladoctor` arguments: shown as one line, never a traceback."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse would print usage and call sys.exit(2)
        raise MagicUsageError(message)


def _parser() -> _Parser:
    parser = _Parser(prog="%xladoctor", add_help=False)
    parser.add_argument("--python", help="interpreter to diagnose (default: this kernel's)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--no-smoke", action="store_true", help="static checks only")
    group.add_argument("--smoke", action="append", help="smoke tests to run (repeat or comma-separate)")
    parser.add_argument("--only", action="append", help="check ids or areas to run")
    parser.add_argument("--skip", action="append", help="check ids or areas to skip")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per child process")
    parser.add_argument("--strict", action="store_true", help="count warnings as failures in exit_code")
    return parser


def parse_line(line: str) -> dict[str, Any]:
    """The keyword arguments of diagnose() that a `%xladoctor` line asks for."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise MagicUsageError(f"cannot parse {line!r}: {exc}") from None
    args = _parser().parse_args(argv)
    kwargs: dict[str, Any] = {"python": args.python, "only": args.only, "skip": args.skip, "strict": args.strict}
    kwargs["smoke"] = False if args.no_smoke else (args.smoke or True)
    if args.timeout is not None:
        kwargs["timeout"] = args.timeout
    return kwargs


def xladoctor_magic(line: str = "") -> DiagnosisReport | None:
    """%xladoctor [--no-smoke | --smoke NAMES] [--python PATH] [--only/--skip IDS] [--timeout S] [--strict]"""
    try:
        return diagnose(**parse_line(line))
    except (MagicUsageError, DiagnoseError) as exc:
        print(f"%xladoctor: error: {exc}", file=sys.stderr)
        return None


def load_ipython_extension(ipython: Any) -> None:
    """Register `%xladoctor` (IPython calls this for `%load_ext xladoctor`)."""
    ipython.register_magic_function(xladoctor_magic, magic_kind="line", magic_name="xladoctor")
