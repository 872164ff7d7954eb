"""TensorFlow: tf.function retracing (which function, where, why), jit_compile functions XLA cannot compile, and
autoclustering asked for in TF_XLA_FLAGS that clusters nothing (the CPU needs --tf_xla_cpu_global_jit)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from xladoctor.findings import Status
from xladoctor.profile.model import Location, Observation, ProcessRecord

AREA = "tensorflow"
RETRACING = "https://www.tensorflow.org/guide/function#controlling_retracing"
TF_FUNCTION = "https://www.tensorflow.org/api_docs/python/tf/function"
AUTOCLUSTERING = "https://www.tensorflow.org/xla#auto-clustering"
# A function traced this often is retracing: once per input signature is normal (a training and an eval
# signature, a last partial batch), three and more traces of one function is the pattern TF's own warning
# (polymorphic_function.py: 5 of the last 10 calls) catches late.
RETRACE_THRESHOLD = 3
_LITERAL = re.compile(r"^Literal\[")
_SPEC = re.compile(r"TensorSpec\(shape=(?P<shape>\([^)]*\)), dtype=(?P<dtype>[\w.]+)")


def _signature(event: Mapping[str, Any]) -> dict[str, str]:
    value = event.get("signature")
    if not isinstance(value, list):
        return {}
    return {str(p[0]): str(p[1]) for p in value if isinstance(p, list) and len(p) == 2}


def _why(previous: dict[str, str], current: dict[str, str]) -> str | None:
    """What made a trace differ from the one before it: a Python value, a shape or a dtype, of which argument."""
    for name, constraint in current.items():
        before = previous.get(name)
        if before is None or before == constraint:
            continue
        if _LITERAL.match(constraint):
            return f"python-value:{name}"
        now_spec, old_spec = _SPEC.search(constraint), _SPEC.search(before)
        if now_spec and old_spec:
            if now_spec.group("dtype") != old_spec.group("dtype"):
                return f"dtype:{name}"
            return f"shape:{name}"
        return f"other:{name}"
    return None


_FIXES = {
    "python-value": (
        "a Python value passed as `{arg}` changes on every call, and each new value is traced into a new graph",
        ("pass it as a tensor: fn(x, tf.constant({arg}))",),
    ),
    "shape": (
        "`{arg}` arrives with a new shape, and each shape is traced into a new graph",
        (
            "@tf.function(reduce_retracing=True)  # one trace with unknown dimensions",
            "# or declare the input signature once, with None for the dimension that varies",
        ),
    ),
    "dtype": ("`{arg}` arrives with a new dtype", ("cast it once before the call: tf.cast({arg}, tf.float32)",)),
    "recreated": (
        "the tf.function is created again (in a loop or per call), so its traces are never reused",
        ("define the @tf.function once, outside the loop, and call that one object",),
    ),
    "other": ("its arguments differ from call to call", ("@tf.function(reduce_retracing=True)",)),
}


def retracing(record: ProcessRecord) -> list[Observation]:
    traces: dict[str, list[Mapping[str, Any]]] = {}
    for event in record.of_kind("tf_trace"):
        definition = event.get("definition")
        key = f"{definition.get('file')}:{definition.get('line')}" if isinstance(definition, Mapping) else "?"
        traces.setdefault(key, []).append(event)
    counts = {str(e.get("key")): int(e.get("count") or 0) for e in record.of_kind("count") if e.get("of") == "tf_trace"}
    found = []
    for events in traces.values():
        first = events[0]
        where = Location.from_record(first.get("definition"))
        if where is None:
            continue
        total = max(len(events), counts.get(f"{where.file}:{where.line}", 0))
        if total < RETRACE_THRESHOLD:
            continue
        causes: dict[str, int] = {}
        args: dict[str, str] = {}
        previous_by_cache: dict[object, dict[str, str]] = {}
        for event in events[1:] if len(events) > 1 else ():
            cache, signature = event.get("cache"), _signature(event)
            if cache not in previous_by_cache and event.get("previous") == 0:
                kind = "recreated"
            else:
                why = _why(previous_by_cache.get(cache, _signature(first)), signature) or "other:"
                kind, _, arg = why.partition(":")
                if arg:
                    args.setdefault(kind, arg)
            causes[kind] = causes.get(kind, 0) + 1
            previous_by_cache[cache] = signature
        previous_by_cache.setdefault(first.get("cache"), _signature(first))
        main = max(causes, key=lambda k: causes[k]) if causes else "other"
        text, code = _FIXES[main]
        arg = args.get(main, "x")
        name = str(first.get("function", "?"))
        steps = tuple(sorted({s for e in events if isinstance(s := e.get("step"), int)}))
        found.append(
            Observation(
                "tf-function-retracing",
                AREA,
                Status.WARN,
                f"tf.function {name} was traced {total} times: {text.format(arg=arg).split(',')[0]}",
                detail=f"Tracing builds and optimizes a new graph, which costs far more than the call itself: "
                f"{text.format(arg=arg)}. (TensorFlow warns only after 5 of 10 calls retrace, twice per function.)",
                location=where,
                count=total,
                steps=steps,
                code_fix=tuple(c.format(arg=arg) for c in code),
                refs=(RETRACING, TF_FUNCTION),
                evidence={"function": name, "traces": total, "causes": causes},
            )
        )
    return found


def jit_unsupported(record: ProcessRecord) -> list[Observation]:
    seen: dict[tuple[str, str], Observation] = {}
    for event in record.of_kind("tf_jit_unsupported"):
        op, where = str(event.get("op", "?")), Location.from_record(event.get("location"))
        key = (op, f"{where.file}:{where.line}" if where else "")
        if key in seen:
            continue
        seen[key] = Observation(
            "tf-jit-compile-unsupported-op",
            AREA,
            Status.FAIL,
            f"jit_compile=True cannot compile {op}: the call raised InvalidArgumentError",
            detail=f"XLA has no kernel for {op} on {event.get('device', 'this device')}, and a function with "
            "jit_compile=True never falls back to TensorFlow's own kernels: it fails.",
            location=where,
            code_fix=(
                f"move {op} out of the jit_compile=True function, or drop jit_compile=True for this function",
            ),
            refs=(TF_FUNCTION,),
            evidence={"op": op, "device": event.get("device"), "graph": event.get("graph")},
        )
    return list(seen.values())


def autoclustering(record: ProcessRecord) -> list[Observation]:
    for event in record.of_kind("tf_xla_clusters"):
        flags = str(event.get("tf_xla_flags", ""))
        clusters = event.get("clusters") if isinstance(event.get("clusters"), Mapping) else {}
        asked = re.search(r"--tf_xla_auto_jit=(1|2|-?\d+|fusible)", flags)
        if not asked or clusters:
            continue
        cpu_global = "--tf_xla_cpu_global_jit" in flags
        hint = (
            ""
            if cpu_global
            else " On the CPU, --tf_xla_auto_jit alone clusters nothing: --tf_xla_cpu_global_jit turns it on there."
        )
        value = f"{flags} --tf_xla_cpu_global_jit".strip() if not cpu_global else flags
        return [
            Observation(
                "tf-autoclustering-inactive",
                AREA,
                Status.WARN,
                f"TF_XLA_FLAGS asks for autoclustering ({asked.group(0)}), but no graph of the program was clustered",
                detail=f"The {event.get('function_graphs', 0)} function graphs TensorFlow ran hold no XLA cluster "
                f"(_XlaCompile node).{hint}",
                remediation=(f"export TF_XLA_FLAGS={shlex.quote(value)}",) if not cpu_global else (),
                refs=(AUTOCLUSTERING,),
                evidence={"tf_xla_flags": flags, "function_graphs": event.get("function_graphs")},
            )
        ]
    return []


DETECTORS: tuple[Callable[[ProcessRecord], list[Observation]], ...] = (retracing, jit_unsupported, autoclustering)
