"""`%load_ext xladoctor` and the `%xladoctor` line magic: run diagnose() and show its report in the notebook.

The magic's arguments are the CLI's diagnosis options (xladoctor/options.py), parsed with argparse.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, NoReturn

from xladoctor.api import DiagnosisReport, diagnose
from xladoctor.errors import UsageError
from xladoctor.options import OPTIONS
from xladoctor.sanitize import one_line


class MagicUsageError(UsageError):
    """Bad `%xladoctor` arguments: shown as one line, never a traceback."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse would print usage and call sys.exit(2)
        raise MagicUsageError(message)


def _parser() -> _Parser:
    parser = _Parser(prog="%xladoctor", add_help=False)
    for option in OPTIONS:
        if option.kind == "smoke":
            group = parser.add_mutually_exclusive_group()
            group.add_argument("--no-smoke", action="store_true", help="static checks only")
            group.add_argument(option.flag, dest=option.name, action="append", help=option.help)
        elif option.kind == "names":
            parser.add_argument(option.flag, dest=option.name, action="append", help=option.help)
        elif option.kind == "switch":
            parser.add_argument(option.flag, dest=option.name, action="store_true", help=option.help)
        elif option.kind == "seconds":
            parser.add_argument(option.flag, dest=option.name, type=float, default=option.default, help=option.help)
        elif option.kind == "count":
            parser.add_argument(option.flag, dest=option.name, type=int, default=option.default, help=option.help)
        else:
            parser.add_argument(option.flag, dest=option.name, default=option.default, help=option.help)
    return parser


def parse_line(line: str) -> dict[str, Any]:
    """The keyword arguments of diagnose() that a `%xladoctor` line asks for."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise MagicUsageError(f"cannot parse {line!r}: {exc}") from None
    args = vars(_parser().parse_args(argv))
    no_smoke = args.pop("no_smoke")
    args["smoke"] = False if no_smoke else (args["smoke"] or True)
    return args


def xladoctor_magic(line: str = "") -> DiagnosisReport | None:
    """%xladoctor [--no-smoke | --smoke NAMES] [--python PATH] [--only/--skip IDS] [--timeout S] [--strict]"""
    try:
        return diagnose(**parse_line(line))
    except UsageError as exc:
        print(f"%xladoctor: error: {one_line(str(exc))}", file=sys.stderr)
        return None


def load_ipython_extension(ipython: Any) -> None:
    """Register `%xladoctor` (IPython calls this for `%load_ext xladoctor`)."""
    ipython.register_magic_function(xladoctor_magic, magic_kind="line", magic_name="xladoctor")
