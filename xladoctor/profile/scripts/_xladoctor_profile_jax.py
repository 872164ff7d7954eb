# xladoctor profile: the JAX hooks. Verified on jax 0.10.2.
# - Compiles per function: jax.monitoring (jax/_src/monitoring.py) calls a scalar listener when a trace starts
#   ("/jax/core/compile/jaxpr_trace_duration", fun_name=...; dispatch.py LogElapsedTimeContextManager), in the
#   caller's thread, so the stack gives the user's call site; duration listeners get each trace and
#   "/jax/core/compile/backend_compile_duration" (which also wraps persistent-cache hits) with its seconds.
# - Why a trace missed the cache: jax_explain_cache_misses makes jax/_src/interpreters/partial_eval.py log
#   "TRACING CACHE MISS at FILE:LINE:COL (FUNC):" with the reason, at WARNING, on logger
#   jax._src.interpreters.partial_eval, for user files only. We turn it on only when the program has not, and a
#   logger-level filter (it runs before every handler and propagation) records those records and drops the
#   ones the program would not have seen; it also puts back to DEBUG the persistent-cache messages that the
#   option raises to WARNING (compiler.py, compilation_cache.py). Levels and propagation stay the program's.
import logging
import re

import _xladoctor_profile as core

TRACE = "/jax/core/compile/jaxpr_trace_duration"
COMPILE = "/jax/core/compile/backend_compile_duration"
_MISS = re.compile(
    r"^TRACING CACHE MISS at (?P<file>.+?):(?P<line>\d+)(?::\d+)? \((?P<function>[^)]*)\):\n(?P<body>.*)", re.S
)
_DEFINED = re.compile(
    r"(?:for |never seen function:\n\s+)(?P<name>\S+).*? defined at (?P<file>\S+):(?P<line>\d+)", re.S
)
_PERSISTENT = re.compile(
    r"^(PERSISTENT COMPILATION CACHE MISS|Not writing persistent cache entry|Writing .* to persistent compilation cache)"
)
_LOGGERS = ("jax._src.interpreters.partial_eval", "jax._src.compiler", "jax._src.compilation_cache")
_state = {"we_enabled": False, "compiles": {}}


def _cause(body):
    if "seen another function defined on the same line" in body:
        return "redefined"
    if "never seen function" in body:
        return "first"
    if "different input pytree" in body:
        return "static-or-pytree"
    if "different input types" in body:
        return "types"
    if "Tracing context" in body or "context" in body.split("\n", 1)[0]:
        return "context"
    return "other"


class _MissFilter(logging.Filter):
    def filter(self, record):
        try:
            message = record.getMessage()
        except Exception:
            return True
        if record.name.endswith("partial_eval") and message.startswith("TRACING CACHE MISS"):
            _record_miss(message)
            return not _state["we_enabled"]
        if _state["we_enabled"] and record.levelno == logging.WARNING and _PERSISTENT.match(message):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


@core.guarded("JAX cache misses")
def _record_miss(message):
    found = _MISS.match(message)
    if not found:
        return
    body = found.group("body")
    defined = _DEFINED.search(body)
    location = core.describe(found.group("file"), int(found.group("line")), found.group("function"))
    name = defined.group("name") if defined else "?"
    core.emit_counted(
        "jax_cache_miss",
        "%s:%s:%s" % (name, found.group("file"), found.group("line")),
        function=name,
        location=location,
        definition=core.describe(defined.group("file"), int(defined.group("line")), name) if defined else None,
        cause=_cause(body),
        explanation=core.cut(body.strip(), 1500),
    )


def _on_scalar(event, value=None, **kwargs):
    if event == TRACE:
        _trace_started(kwargs.get("fun_name"))


@core.guarded("JAX traces")
def _trace_started(name):
    location = core.user_frame()
    if location is not None:  # jnp's own helpers compile too; they have no user frame of their own... mostly
        core.emit_counted(
            "jax_trace", "%s:%s:%s" % (name, location["file"], location["line"]), function=str(name), location=location
        )


def _on_duration(event, seconds=None, **kwargs):
    if event == COMPILE:
        _compiled(kwargs.get("fun_name"), seconds)


@core.guarded("JAX compiles")
def _compiled(name, seconds):
    entry = _state["compiles"].setdefault(str(name), [0, 0.0])
    entry[0] += 1
    entry[1] += float(seconds or 0.0)


@core.guarded("JAX totals")
def _at_exit():
    core.emit(
        "jax_exit",
        compiles={k: {"count": v[0], "seconds": round(v[1], 6)} for k, v in _state["compiles"].items()},
        explained_by_us=_state["we_enabled"],
    )


def _after_import(jax):
    from jax import monitoring

    core.emit("framework", name="jax", version=getattr(jax, "__version__", None))
    monitoring.register_scalar_listener(_on_scalar)
    monitoring.register_event_duration_secs_listener(_on_duration)
    miss_filter = _MissFilter()
    for name in _LOGGERS:
        logging.getLogger(name).addFilter(miss_filter)
    if not jax.config.jax_explain_cache_misses:
        jax.config.update("jax_explain_cache_misses", True)
        _state["we_enabled"] = True
    core.at_exit(_at_exit)


def arm():
    core.when_imported("jax", _after_import)
