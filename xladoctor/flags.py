"""Flags variables (TF_XLA_FLAGS, XLA_FLAGS): a token's flag name, and the command that keeps the others."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable


def flag_name(token: str) -> str:
    """'--tf_xla_auto_jit=2' -> 'tf_xla_auto_jit'."""
    return token.lstrip("-").split("=", 1)[0]


def named(names: Iterable[str]) -> Callable[[str], bool]:
    """A predicate: does a token set one of these flags?"""
    wanted = set(names)
    return lambda token: flag_name(token) in wanted


def tokens_without(value: str, drop: Callable[[str], bool]) -> list[str]:
    return [t for t in value.split() if not drop(t)]


def set_command(variable: str, tokens: list[str]) -> str:
    """`export VAR='tokens'`, or `unset VAR` when none are left."""
    return f"export {variable}={shlex.quote(' '.join(tokens))}" if tokens else f"unset {variable}"


def set_without(variable: str, value: str, drop: Callable[[str], bool]) -> str:
    """The command that keeps a flags variable's other tokens."""
    return set_command(variable, tokens_without(value, drop))
