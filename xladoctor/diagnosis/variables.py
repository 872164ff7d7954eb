"""The environment variables a check declares, and the only ones its `env` lets it read.

A check that takes `env` names its variables, `@check(..., env=("PJRT_DEVICE", "GPU_NUM_DEVICES"))`, so the docs
can list them and `compare` knows which variables can change its verdict (a rank or a worker id that differs on
every worker changes none of the others'). Reading a variable it did not declare raises UndeclaredVariable, which
fails the check (an `error` finding) in every test that reaches that line, instead of a declaration going stale.
A check whose variables come from the facts themselves (the names an installed torch_xla deprecates) declares
EVERY_VARIABLE and gets the whole environment.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from xladoctor.facts.paths import env_path

EVERY_VARIABLE = "*"


class UndeclaredVariable(Exception):
    """A check read an environment variable its `@check(env=...)` does not name (a bug in the check)."""


def variable_paths(names: Sequence[str]) -> tuple[str, ...]:
    """What reading these variables reads (xladoctor/facts/paths.py): 'env.NAME' each, or 'env' for every one."""
    return ("env",) if EVERY_VARIABLE in names else tuple(env_path(n) for n in names)


class DeclaredEnv(Mapping[str, str]):
    """The environment as a check sees it: only its declared variables, read-only.

    Mapping's get, `in`, keys and items all go through __getitem__ and __iter__, so an undeclared name raises
    wherever it is asked for, and a declared one that is unset reads as unset."""

    __slots__ = ("_env", "_names", "_allowed")

    def __init__(self, env: Mapping[str, str], names: Sequence[str]) -> None:
        self._env = env
        self._names = tuple(names)
        self._allowed = frozenset(names)

    def __getitem__(self, key: str) -> str:
        if key not in self._allowed:
            raise UndeclaredVariable(f"{key!r} is read but not declared: add it to the check's env=(...)")
        return self._env[key]

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._names if name in self._env)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"DeclaredEnv({dict(self)!r})"


def env_for(env: Mapping[str, str], names: Sequence[str]) -> Mapping[str, str]:
    """What a check that declares `names` is handed."""
    return env if EVERY_VARIABLE in names else DeclaredEnv(env, names)
