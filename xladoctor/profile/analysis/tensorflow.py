"""TensorFlow: tf.function retracing (which function, where, why), jit_compile functions XLA cannot compile, and
autoclustering asked for in TF_XLA_FLAGS that clusters nothing (the CPU needs --tf_xla_cpu_global_jit) or leaves
most of a tf.function outside XLA (which ops, at which lines)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from xladoctor.findings import Status
from xladoctor.profile.analysis import events as ev
from xladoctor.profile.model import Location, Observation, ProcessRecord

AREA = "tensorflow"
RETRACING = "https://www.tensorflow.org/guide/function#controlling_retracing"
TF_FUNCTION = "https://www.tensorflow.org/api_docs/python/tf/function"
AUTOCLUSTERING = "https://www.tensorflow.org/xla#auto-clustering"
# A function traced this often is retracing: once per input signature is normal (a training and an eval
# signature, a last partial batch), three and more traces of one function is the pattern TF's own warning
# (polymorphic_function.py: 5 of the last 10 calls) catches late.
RETRACE_THRESHOLD = 3
# Autoclustering "clusters little" when XLA takes less than half of a tf.function's ops; functions smaller than
# this are left alone (TF does not cluster below --tf_xla_min_cluster_size ops, and a few ops outside cost little).
LITTLE_SHARE = 0.5
LITTLE_MIN_OPS = 4
_AUTO_JIT = re.compile(r"--tf_xla_auto_jit=(1|2|-?\d+|fusible)")
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
    counts = {
        str(e.get("key")): ev.count_of(e.get("count")) for e in record.of_kind("count") if e.get("of") == "tf_trace"
    }
    found = []
    for events in traces.values():
        first = events[0]
        definition = Location.from_record(first.get("definition"))
        if definition is None:
            continue
        # the fix goes where the function is called with what makes it retrace, not at its decorator
        where = next((c for e in events[1:] if (c := Location.from_record(e.get("called_from")))), None) or definition
        total = max(len(events), counts.get(f"{definition.file}:{definition.line}", 0))
        if total < RETRACE_THRESHOLD:
            continue
        causes: dict[str, int] = {}
        args: dict[str, str] = {}
        previous_by_cache: dict[object, dict[str, str]] = {}
        for event in events[1:] if len(events) > 1 else ():
            cache, signature = ev.key_of(event.get("cache")), _signature(event)
            if cache not in previous_by_cache and event.get("previous") == 0:
                kind = "recreated"
            else:
                why = _why(previous_by_cache.get(cache, _signature(first)), signature) or "other:"
                kind, _, arg = why.partition(":")
                if arg:
                    args.setdefault(kind, arg)
            causes[kind] = causes.get(kind, 0) + 1
            previous_by_cache[cache] = signature
        previous_by_cache.setdefault(ev.key_of(first.get("cache")), _signature(first))
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
                evidence={"function": name, "traces": total, "causes": causes, "defined_at": definition.short()},
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
            code_fix=(f"move {op} out of the jit_compile=True function, or drop jit_compile=True for this function",),
            refs=(TF_FUNCTION,),
            evidence={"op": op, "device": event.get("device"), "graph": event.get("graph")},
        )
    return list(seen.values())


def _asked_flags(record: ProcessRecord) -> str | None:
    """TF_XLA_FLAGS when they ask for autoclustering, else None."""
    for event in record.of_kind("tf_xla_clusters"):
        flags = str(event.get("tf_xla_flags", ""))
        if _AUTO_JIT.search(flags):
            return flags
    return None


def _clustered_anything(record: ProcessRecord) -> bool:
    return any(isinstance(e.get("clusters"), Mapping) and e.get("clusters") for e in record.of_kind("tf_xla_clusters"))


def _on_gpu(record: ProcessRecord) -> bool:
    return any(":GPU:" in str(e.get("device", "")) for e in record.of_kind("tf_xla_coverage"))


def _turned_on(flags: str, record: ProcessRecord) -> bool:
    """Whether the flags cluster on the device the functions ran on: the CPU also needs --tf_xla_cpu_global_jit."""
    return "--tf_xla_cpu_global_jit" in flags or _on_gpu(record)


def _little(record: ProcessRecord) -> list[Mapping[str, Any]]:
    """Coverage of the traced tf.functions of which XLA took less than half of at least LITTLE_MIN_OPS ops."""
    found = []
    for event in record.of_kind("tf_xla_coverage"):
        ops, outside = event.get("ops"), event.get("outside")
        if not isinstance(ops, int) or not isinstance(outside, int) or isinstance(ops, bool):
            continue
        if ops >= LITTLE_MIN_OPS and ops - outside < LITTLE_SHARE * ops:
            found.append(event)
    return found


def autoclustering(record: ProcessRecord) -> list[Observation]:
    flags = _asked_flags(record)
    if flags is None or _clustered_anything(record):
        return []
    turned_on = _turned_on(flags, record)
    if turned_on and _little(record):
        return []  # the flags are right: autoclustering_partial names each function and the ops left outside
    graphs = next((e.get("function_graphs", 0) for e in record.of_kind("tf_xla_clusters")), 0)
    hint = (
        ""
        if turned_on
        else " On the CPU, --tf_xla_auto_jit alone clusters nothing: --tf_xla_cpu_global_jit turns it on there."
    )
    value = f"{flags} --tf_xla_cpu_global_jit".strip()
    asked = _AUTO_JIT.search(flags)
    return [
        Observation(
            "tf-autoclustering-inactive",
            AREA,
            Status.WARN,
            f"TF_XLA_FLAGS asks for autoclustering ({asked.group(0) if asked else flags}), "
            "but no graph of the program was clustered",
            detail=f"The {graphs} function graphs TensorFlow ran hold no XLA cluster (_XlaCompile node).{hint}",
            remediation=(f"export TF_XLA_FLAGS={shlex.quote(value)}",) if not turned_on else (),
            refs=(AUTOCLUSTERING,),
            evidence={"tf_xla_flags": flags, "function_graphs": graphs},
        )
    ]


def _outside_list(event: Mapping[str, Any], cwd: str | None) -> tuple[list[str], Location | None]:
    shown = event.get("outside_shown")
    described, first = [], None
    for item in shown if isinstance(shown, list) else []:
        if not isinstance(item, Mapping):
            continue
        where = Location.from_record(item.get("location"))
        first = first or where
        described.append(f"{item.get('op', '?')} ({where.short(cwd)})" if where else str(item.get("op", "?")))
    return described, first


def autoclustering_partial(record: ProcessRecord) -> list[Observation]:
    """A tf.function of which XLA took less than half: ops it cannot compile split the function."""
    flags = _asked_flags(record)
    if flags is None or not (_clustered_anything(record) or _turned_on(flags, record)):
        return []  # nothing clustered and the flags lack what turns it on: autoclustering's own finding
    found: list[Observation] = []
    seen: set[tuple[str, str]] = set()
    for event in _little(record):
        ops, outside = int(event["ops"]), int(event["outside"])
        name = str(event.get("function", "?"))
        where = Location.from_record(event.get("definition"))
        key = (name, f"{where.file}:{where.line}" if where else "")
        if key in seen:
            continue
        seen.add(key)
        listed, first = _outside_list(event, record.cwd)
        more = outside - len(listed)
        found.append(
            Observation(
                "tf-autoclustering-partial",
                AREA,
                Status.WARN,
                f"XLA autoclustering took {ops - outside} of the {ops} ops of tf.function {name}; "
                f"{outside} run outside XLA",
                detail="Left outside XLA: "
                + (", ".join(listed) or "?")
                + (f" and {more} more" if more > 0 else "")
                + ". An op XLA has no kernel for on this device stays outside every cluster, and so do the ops "
                "that would close a cycle through it: one such op in the middle of a function splits it, and "
                "clusters smaller than --tf_xla_min_cluster_size are not made. Each boundary also costs a copy "
                "between TensorFlow and XLA.",
                location=first or where,
                code_fix=(
                    f"move the ops XLA cannot compile (strings, tf.print, tf.py_function, ...) out of {name}, "
                    "to its caller or the tf.data pipeline",
                    f"to learn which op XLA refuses: decorate {name} with @tf.function(jit_compile=True) once; "
                    "the call then fails naming the op",
                ),
                refs=(AUTOCLUSTERING, TF_FUNCTION),
                evidence={
                    "function": name,
                    "ops": ops,
                    "outside": outside,
                    "outside_ops": event.get("outside_ops"),
                    "clusters": event.get("clusters"),
                    "device": event.get("device"),
                },
            )
        )
    return found


DETECTORS: tuple[Callable[[ProcessRecord], list[Observation]], ...] = (
    retracing,
    jit_unsupported,
    autoclustering,
    autoclustering_partial,
)
