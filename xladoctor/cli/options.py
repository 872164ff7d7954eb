"""The diagnosis options (xladoctor/options.py) as typer parameters, and their values as a request's keywords.

`check` and `gate` declare only their own parameters plus `**options`; `diagnosis_options` adds one typer
parameter per option to the command's signature, so the flags, their help and their defaults live in one place.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

import typer

from xladoctor.errors import UsageError
from xladoctor.options import OPTIONS, Option

F = TypeVar("F", bound=Callable[..., Any])
_KW = inspect.Parameter.KEYWORD_ONLY


def _parameters(option: Option, flag: str, help: str, smoke_default: bool) -> list[inspect.Parameter]:
    def param(name: str, kind: Any, default: Any, *flags: str, text: str = help) -> inspect.Parameter:
        return inspect.Parameter(
            name, _KW, default=default, annotation=Annotated[kind, typer.Option(*flags, help=text)]
        )

    if option.kind == "smoke":
        none_help = "Static checks only" + (
            " (the default)." if not smoke_default else ": read metadata, import no framework, run nothing."
        )
        names_help = (
            "Run only these" if smoke_default else "Also run these"
        ) + " smoke tests (repeat or comma-separate)."
        return [
            param("smoke", list[str] | None, None, flag, text=names_help),
            param("no_smoke", bool, False, "--no-smoke", text=none_help),
        ]
    kinds = {
        "interpreter": str | None,
        "names": list[str] | None,
        "seconds": float,
        "switch": bool,
        "count": int | None,
        "choice": str | None,
        "path": str | None,
    }
    return [param(option.name, kinds[option.kind], option.default, flag)]


def diagnosis_options(
    rename: Mapping[str, tuple[str, str]] | None = None, exclude: tuple[str, ...] = (), smoke_default: bool = True
) -> Callable[[F], F]:
    """Add the diagnosis options to a command's signature (before typer reads it); `rename` gives an option
    another flag and help (gate's --require for --only), `exclude` leaves options out."""

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        added: list[inspect.Parameter] = []
        for option in OPTIONS:
            if option.name not in exclude:
                flag, help = (rename or {}).get(option.name, (option.flag, option.help))
                added.extend(_parameters(option, flag, help, smoke_default))
        command.__signature__ = signature.replace(parameters=[*own, *added])  # type: ignore[attr-defined]
        return command

    return decorate


def request_values(options: Mapping[str, Any], smoke_default: bool) -> dict[str, Any]:
    """The keywords of make_request from the typer values of `diagnosis_options`."""
    values = {k: v for k, v in options.items() if k not in ("smoke", "no_smoke")}
    if options.get("no_smoke") and options.get("smoke"):
        raise UsageError("--no-smoke and --smoke cannot be used together")
    values["smoke"] = False if options.get("no_smoke") else (options.get("smoke") or smoke_default)
    return values
