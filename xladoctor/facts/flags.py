"""Flags variables (TF_XLA_FLAGS, XLA_FLAGS): a token's flag name, and the tokens left without some flags."""

from __future__ import annotations

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
