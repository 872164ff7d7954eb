"""Record which per-host facts a step of a diagnosis reads, so another worker's diagnosis can reuse what did not.

While a `Recorder` is installed, reading a watched attribute (`ResourceFacts.disk_free`) of any instance of its
class, or a watched variable of `Facts.env` (`TPU_WORKER_ID`), adds that item to the reads of the current scope.
Every way a check reaches these values goes through attribute access: the generated `__eq__`, `__repr__` and
`dataclasses.replace` read fields with `getattr`, and `obj.__dict__` is itself an attribute (it counts as reading
every watched field). Iterating over or sizing the environment counts as reading every watched variable (ENV_ANY).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from xladoctor.facts.model import Facts

ENV_ANY = "env:*"  # the whole environment was looked at (iterated, sized, compared, copied)


def env_item(name: str) -> str:
    return f"env:{name}"


class _Env(Mapping[str, Any]):
    """Facts.env as the recorded step sees it: reading a watched variable, or all of them, is recorded."""

    def __init__(self, inner: Mapping[str, Any], recorder: Recorder) -> None:
        self._inner = inner
        self._recorder = recorder

    def _read(self, key: object) -> None:
        if isinstance(key, str) and self._recorder.watches_env(key):
            self._recorder.add(env_item(key))

    def __getitem__(self, key: str) -> Any:
        self._read(key)
        return self._inner[key]

    def __contains__(self, key: object) -> bool:
        self._read(key)
        return key in self._inner

    def __iter__(self) -> Iterator[str]:
        self._recorder.add(ENV_ANY)
        return iter(self._inner)

    def __len__(self) -> int:
        self._recorder.add(ENV_ANY)
        return len(self._inner)

    def __repr__(self) -> str:
        self._recorder.add(ENV_ANY)
        return repr(self._inner)

    def copy(self) -> dict[str, Any]:  # what MappingProxyType offers beyond Mapping
        self._recorder.add(ENV_ANY)
        return dict(self._inner)

    def __or__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        return {**self.copy(), **other}

    def __ror__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        return {**other, **self.copy()}


class Recorder:
    """Installs read hooks on the classes that hold watched attributes, for the `with` block only (not thread-safe)."""

    def __init__(self, watched: Mapping[type, Mapping[str, str]], env: Callable[[str], bool]) -> None:
        self.watched = watched  # class -> {attribute: item recorded when it is read}
        self.watches_env = env  # whether reading this variable of Facts.env is recorded
        self._scopes: list[set[str]] = []

    def add(self, item: str) -> None:
        if self._scopes:
            self._scopes[-1].add(item)

    @contextmanager
    def scope(self) -> Iterator[set[str]]:
        """The items read inside the block (nested scopes report to their own set only)."""
        reads: set[str] = set()
        self._scopes.append(reads)
        try:
            yield reads
        finally:
            self._scopes.pop()

    def _hook(self, cls: type, items: Mapping[str, str]) -> Callable[[Any, str], Any]:
        every = tuple(items.values())
        get = object.__getattribute__
        recorder = self

        def getattribute(obj: Any, name: str) -> Any:
            value = get(obj, name)
            if recorder._scopes:
                item = items.get(name)
                if item is not None:
                    recorder.add(item)
                elif name == "__dict__":
                    recorder._scopes[-1].update(every)
                if name == "env" and cls is Facts and isinstance(value, Mapping):
                    return _Env(value, recorder)
            return value

        return getattribute

    @contextmanager
    def installed(self) -> Iterator[Recorder]:
        classes = {*self.watched, Facts}
        for cls in classes:
            if "__getattribute__" in vars(cls):
                raise TypeError(f"{cls.__name__} defines __getattribute__; its reads cannot be recorded")
        try:
            for cls in classes:
                setattr(cls, "__getattribute__", self._hook(cls, self.watched.get(cls, {})))  # noqa: B010
            yield self
        finally:
            for cls in classes:
                if "__getattribute__" in vars(cls):
                    delattr(cls, "__getattribute__")
