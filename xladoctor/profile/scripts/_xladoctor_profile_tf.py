# xladoctor profile: the TensorFlow hooks (TF 2.x). Verified on tensorflow-cpu 2.21.0; every hook point is one
# that is never on the Python stack while the user's ops are created, so TF's "The op is created at:" stacks and
# the program's tracebacks stay as they were.
# - Traces: each tf.function trace ends in FunctionCache.add(concrete_fn, ctx) (tensorflow/python/eager/
#   polymorphic_function/tracing_compilation.py); the traced signature is concrete_fn.function_type.parameters.
#   Which tf.function owns a cache comes from Function.__init__ (polymorphic_function.py: _function_cache,
#   _key_for_call_stats is the python function's __code__). FunctionCache has __slots__: keyed by id().
# - TF's own retracing warning goes to logging.getLogger("tensorflow") (tf_logging.py): a handler there only
#   records it. Never the root logger: one there stops TF from installing its own stderr handler.
# - jit_compile=True with an op XLA cannot compile raises InvalidArgumentError "Detected unsupported operations";
#   errors_impl.OpError.__init__ sees it before the raise, without a frame of ours in the traceback.
# - Autoclustering: with graph collection on (context.enable_graph_collection, turned on lazily at the first
#   trace: earlier it would initialize the eager context before the program's set_intra_op_parallelism_threads),
#   the post-optimization function graphs hold an _XlaCompile node per cluster XLA compiles.
# - How much of a tf.function XLA took: its pre-optimization graph holds every op under the name the op has in the
#   traced FuncGraph (Placeholders become _Arg); in the post-optimization graph the clustered ops are gone into the
#   cluster's function and every op left outside keeps its name, so the op's traceback names the user's line.
import logging
import os
import re
import weakref

import _xladoctor_profile as core

_UNSUPPORTED = re.compile(
    r"Detected unsupported operations when trying to compile graph (?P<graph>[^\[\s]+)\[.*?\] on (?P<device>\S+): "
    r"(?P<op>\w+) \(No registered"
)
_OP_CREATED = re.compile(r'^File "(?P<file>.+)", line (?P<line>\d+), in (?P<function>\S+)$', re.M)
_state = {"collecting": False, "owners": {}, "traced": []}
# Ops that carry no computation of their own: never counted as clustered or left outside.
_PLUMBING = frozenset(
    (
        "_Arg",
        "_Retval",
        "_DeviceArg",
        "_DeviceRetval",
        "Placeholder",
        "Const",
        "_EagerConst",
        "Identity",
        "IdentityN",
        "NoOp",
    )
)
_CLUSTER_MACHINERY = frozenset(("_XlaCompile", "_XlaRun", "_XlaMerge"))
MAX_TRACED = 256  # traced functions kept for the exit-time comparison; a program that traces more retraces anyway
MAX_OUTSIDE_SHOWN = 12


class _RetraceRecorder(logging.Handler):
    def emit(self, record):
        try:
            message = record.getMessage()
        except Exception:
            return
        if "triggered tf.function retracing" in message:
            core.emit("tf_retrace_warning", message=core.cut(message, 300))


def _signature(concrete):
    try:
        return [[p.name, repr(p.type_constraint)] for p in concrete.function_type.parameters.values()]
    except Exception:
        return None


def _patch_function_init(polymorphic_function):
    original = polymorphic_function.Function.__init__
    owners = _state["owners"]

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        try:
            key = id(self._function_cache)
            code = self._key_for_call_stats
            owners[key] = (code, self._name)
            weakref.finalize(self, owners.pop, key, None)
        except Exception:
            pass

    polymorphic_function.Function.__init__ = __init__


def _patch_cache_add(function_cache, context):
    original = function_cache.FunctionCache.add
    owners = _state["owners"]

    def add(self, concrete, *args, **kwargs):
        _record_trace(self, concrete, owners, context)
        return original(self, concrete, *args, **kwargs)

    function_cache.FunctionCache.add = add


@core.guarded("tf.function traces")
def _record_trace(cache, concrete, owners, context):
    if not _state["collecting"]:
        _state["collecting"] = True
        context.enable_graph_collection()
    code, name = owners.get(id(cache), (None, "?"))
    where = None
    if hasattr(code, "co_filename") and core.is_user_file(code.co_filename):
        where = core.describe(code.co_filename, code.co_firstlineno, name)
    if len(_state["traced"]) < MAX_TRACED:
        try:
            held = weakref.ref(concrete)  # never keep a function alive that the program let go
        except TypeError:
            held = lambda: concrete  # noqa: E731
        _state["traced"].append((name, where, held))
    core.emit_counted(
        "tf_trace",
        "%s:%s" % (getattr(code, "co_filename", "?"), getattr(code, "co_firstlineno", 0)),
        function=name,
        definition=where,
        called_from=core.user_frame(),
        cache=id(cache),
        previous=len(cache),
        signature=_signature(concrete),
    )


def _patch_op_error(errors_impl):
    original = errors_impl.OpError.__init__

    def __init__(self, node_def, op, message, *args, **kwargs):
        _record_op_error(message)
        original(self, node_def, op, message, *args, **kwargs)

    errors_impl.OpError.__init__ = __init__


@core.guarded("TensorFlow XLA errors")
def _record_op_error(message):
    text = str(message)
    found = _UNSUPPORTED.search(text)
    if not found:
        return
    location = None
    for frame in _OP_CREATED.finditer(text.split("The op is created at:", 1)[-1]):
        filename = frame.group("file")
        if not os.path.isabs(filename) and os.path.exists(os.sep + filename):
            filename = os.sep + filename  # TF writes these paths without their leading slash
        if core.is_user_file(filename):
            location = core.describe(filename, int(frame.group("line")), frame.group("function"))
    core.emit(
        "tf_jit_unsupported",
        op=found.group("op"),
        device=found.group("device"),
        graph=found.group("graph"),
        location=location or core.user_frame(),
    )


@core.guarded("TensorFlow XLA clusters")
def _at_exit(context):
    if not _state["collecting"]:
        return
    metadata = context.export_run_metadata()
    if metadata is None:
        return
    clusters = {}
    graphs = 0
    traced = _traced_by_ops()
    for graph in metadata.function_graphs:
        graphs += 1
        for node in graph.post_optimization_graph.node:
            if node.op == "_XlaCompile":
                cluster = node.attr["function"].func.name
                clusters[cluster] = clusters.get(cluster, 0) + 1
        _record_coverage(graph, traced)
    core.emit(
        "tf_xla_clusters", clusters=clusters, function_graphs=graphs, tf_xla_flags=os.environ.get("TF_XLA_FLAGS", "")
    )


def _traced_by_ops():
    """Each traced function, keyed by the names of its ops: how a runtime function graph finds its tf.function."""
    found = {}
    for name, where, held in _state["traced"]:
        concrete = held()
        try:
            operations = concrete.graph.get_operations()
            key = frozenset(op.name for op in operations if op.type != "Placeholder")
        except Exception:
            continue
        found.setdefault(key, (name, where, concrete))
    return found


@core.guarded("TensorFlow XLA cluster coverage")  # one graph it cannot read must not cost the cluster count
def _record_coverage(graph, traced):
    before = [node for node in graph.pre_optimization_graph.node if node.op not in _PLUMBING]
    owner = traced.get(
        frozenset(
            node.name
            for node in graph.pre_optimization_graph.node
            if node.op not in ("_Arg", "_DeviceArg", "_Retval", "_DeviceRetval")
        )
    )
    if owner is None or not before:
        return  # an eager op run as a function, or a graph this program did not trace itself
    name, where, concrete = owner
    counted = {node.name for node in before}
    after = graph.post_optimization_graph.node
    prefixes = tuple(node.name.rsplit("/", 1)[0] + "/" for node in after if node.op == "_XlaCompile")
    outside = [
        node
        for node in after
        if node.name in counted and not node.name.startswith(prefixes) and node.op not in _CLUSTER_MACHINERY
    ]
    shown = []
    for node in outside[:MAX_OUTSIDE_SHOWN]:
        shown.append({"op": node.op, "name": node.name, "location": _op_location(concrete, node.name)})
    kinds = {}
    for node in outside:
        kinds[node.op] = kinds.get(node.op, 0) + 1
    core.emit(
        "tf_xla_coverage",
        function=name,
        definition=where,
        ops=len(before),
        outside=len(outside),
        clusters=len(prefixes),
        outside_ops=kinds,
        outside_shown=shown,
        device=next((node.device for node in after if node.device), ""),
    )


def _op_location(concrete, op_name):
    try:
        stack = concrete.graph.get_operation_by_name(op_name).traceback
        frames = [(frame.filename, frame.lineno, frame.name) for frame in stack]
    except Exception:
        return None
    return core.user_frame_in(reversed(frames))  # TF's traceback is outermost first


def _after_import(tensorflow):
    from tensorflow.core.function.polymorphism import function_cache
    from tensorflow.python.eager import context
    from tensorflow.python.eager.polymorphic_function import polymorphic_function
    from tensorflow.python.framework import errors_impl

    core.emit(
        "framework",
        name="tensorflow",
        version=getattr(tensorflow, "__version__", None),
        tf_xla_flags=os.environ.get("TF_XLA_FLAGS", ""),
    )
    logging.getLogger("tensorflow").addHandler(_RetraceRecorder())
    _patch_function_init(polymorphic_function)
    _patch_cache_add(function_cache, context)
    _patch_op_error(errors_impl)
    core.at_exit(lambda: _at_exit(context))


def arm():
    core.when_imported("tensorflow", _after_import)
