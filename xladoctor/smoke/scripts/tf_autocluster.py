# Smoke test "tensorflow": does XLA really compile? A tf.function whose ops can be autoclustered, and a
# jit_compile=True function. The runner points XLA_FLAGS --xla_dump_to at an empty directory: every module
# XLA compiles leaves files named module_NNNN.<name>...; autoclustered ones are named cluster_N, jit_compile
# ones after the function. That listing is the proof, not the fact that the function returned.
import numpy as np
import tensorflow as tf

dump_dir = ARGS["dump_dir"]


def compiled_modules():
    names = set()
    for entry in os.listdir(dump_dir) if os.path.isdir(dump_dir) else []:
        if entry.startswith("module_") and "." in entry:
            names.add(entry.split(".")[1])
    return sorted(names)


rng = np.random.default_rng(0)
x_np = rng.standard_normal((64, 64)).astype(np.float32)
expected = np.maximum(x_np @ x_np + 1.0, 0.0) * 2.0


@tf.function
def clusterable(x):
    return tf.nn.relu(tf.matmul(x, x) + 1.0) * 2.0


@tf.function(jit_compile=True)
def must_compile(x):
    return tf.nn.relu(tf.matmul(x, x) + 1.0) * 2.0


devices = [d.name for d in tf.config.list_logical_devices()]
gpus = [d for d in devices if ":GPU:" in d]
label = gpus[0] if gpus else "/device:CPU:0"
for kind, function in (("autocluster", clusterable), ("jit_compile", must_compile)):
    before = set(compiled_modules())
    try:
        out = function(tf.constant(x_np)).numpy()
        new = [m for m in compiled_modules() if m not in before]
        matches = bool(np.allclose(out, expected, rtol=1e-4, atol=1e-3))
        clusters = [m for m in new if m.startswith("cluster_")] if kind == "autocluster" else new
        emit(
            kind="result",
            part=kind,
            device=label,
            ok=matches and bool(clusters),
            ran=matches,
            modules=clusters,
            tf_xla_flags=os.environ.get("TF_XLA_FLAGS", ""),
            error=None if matches else "result differs from NumPy",
        )
    except Exception as exc:
        emit(kind="result", part=kind, device=label, ok=False, ran=False, **failure(exc))
