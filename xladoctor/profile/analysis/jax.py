"""JAX: jitted functions of the user's code that are traced and compiled again and again, with JAX's own reason
(jax_explain_cache_misses: new input shapes or dtypes, a static argument that changes, a function re-created
on every call) and the call site that caused it."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from xladoctor.findings import Status
from xladoctor.profile.analysis import events as ev
from xladoctor.profile.model import Location, Observation, ProcessRecord
from xladoctor.sanitize import clip

AREA = "jax"
# docs/faq.rst and docs/jit-compilation.md (jax v0.10.2): jit caches by input shapes/dtypes, static argument
# values and the function object; each miss traces and compiles again.
JIT_CACHING = "https://docs.jax.dev/en/latest/jit-compilation.html#caching"
STATIC_ARGS = "https://docs.jax.dev/en/latest/jit-compilation.html#marking-arguments-as-static"
EXPLAIN_MISSES = "https://docs.jax.dev/en/latest/config_options.html#jax_explain_cache_misses"
# One retrace is normal (a last partial batch, an evaluation shape); more means every new value compiles again.
MISSES_WARN = 2
# "different input types:\n  * at x, now f32[3] and before f32[2]" (jax/_src/pjit.py explain_tracing_cache_miss)
_TYPES = re.compile(r"\* at (?P<arg>[^,]+), now (?P<now>\S+) and before (?P<before>\S+)")
_STATIC = re.compile(r"Static\(val=(?P<now>[^)]*)\) and before .*?Static\(val=(?P<before>[^)]*)\)")

_CAUSES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "types": (
        "its input shapes or dtypes change from call to call",
        (
            "pad or bucket the inputs to a few fixed shapes (e.g. pad every batch to the longest bucket)",
            "cast inputs to one dtype before the call",
        ),
        (JIT_CACHING,),
    ),
    "static-or-pytree": (
        "a static argument (static_argnums/static_argnames) or the structure of its inputs changes from call to call",
        (
            "pass a value that changes as a traced argument (drop it from static_argnums) unless it decides a shape "
            "or a Python branch; keep static arguments to a few values",
        ),
        (STATIC_ARGS, JIT_CACHING),
    ),
    "redefined": (
        "jax.jit is applied to a function created anew on every call (a lambda or closure inside the loop), so "
        "nothing is ever reused",
        ("define the function and apply jax.jit once, outside the loop, then call that jitted function",),
        (JIT_CACHING,),
    ),
    "context": (
        "the tracing context changed (a config option, a mesh or a transformation around the call)",
        ("call it under the same jax config and context each time",),
        (JIT_CACHING,),
    ),
    "other": ("its cache key changed", ("read JAX's explanation in the evidence",), (EXPLAIN_MISSES,)),
}


def _detail(cause: str, explanation: str) -> str:
    if cause == "types":
        found = _TYPES.search(explanation)
        if found:
            return f" (`{found.group('arg')}` is now {found.group('now')}, before {found.group('before')})"
    if cause == "static-or-pytree":
        found = _STATIC.search(explanation)
        if found:
            return f" (a static value is now {found.group('now')}, before {found.group('before')})"
    return ""


def recompilation(record: ProcessRecord) -> list[Observation]:
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for event in record.of_kind("jax_cache_miss"):
        if event.get("cause") == "first":
            continue
        definition = event.get("definition")
        where = definition if isinstance(definition, Mapping) else event.get("location")
        key = (
            str(event.get("function")),
            f"{where.get('file')}:{where.get('line')}" if isinstance(where, Mapping) else "?",
        )
        groups.setdefault(key, []).append(event)
    found = []
    for (name, defined), events in groups.items():
        first = events[0]
        at = first.get("location")
        hook_key = f"{name}:{at.get('file')}:{at.get('line')}" if isinstance(at, Mapping) else ""
        misses = ev.occurrences(record, "jax_cache_miss", hook_key, len(events)) if hook_key else len(events)
        if misses < MISSES_WARN:
            continue
        causes = [str(e.get("cause")) for e in events]
        cause = max(set(causes), key=causes.count)
        why, fix, refs = _CAUSES.get(cause, _CAUSES["other"])
        example = next((str(e.get("explanation", "")) for e in events if e.get("cause") == cause), "")
        steps = ev.steps(events)
        found.append(
            Observation(
                "jax-recompilation",
                AREA,
                Status.WARN,
                clip(f"{name}() was traced and compiled {misses + 1} times: {why}{_detail(cause, example)}", 300),
                detail="Each cache miss traces the Python function and compiles it with XLA again, which costs far "
                "more than running it. JAX's own explanation (jax_explain_cache_misses) of one of them:\n"
                + clip(example, 800),
                location=Location.from_record(first.get("location")),
                count=misses,
                steps=steps,
                code_fix=fix,
                refs=refs,
                evidence={
                    "function": name,
                    "defined_at": defined,
                    "cache_misses": misses,
                    "causes": {c: causes.count(c) for c in sorted(set(causes))},
                },
            )
        )
    return found


DETECTORS: tuple[Callable[[ProcessRecord], list[Observation]], ...] = (recompilation,)
