# Probe "tf-xla-devices": which logical devices this TensorFlow registers under the TF_XLA_FLAGS it was
# started with, and where an op placed on /device:XLA_CPU:0 really runs (soft placement may move it).
import tensorflow as tf

devices = [(d.name, d.device_type) for d in tf.config.list_logical_devices()]
placed = None
error = None
try:
    with tf.device("/device:XLA_CPU:0"):
        placed = tf.matmul(tf.ones((2, 2)), tf.ones((2, 2))).device
except Exception as exc:
    error = failure(exc)["error"]
emit(
    kind="result",
    device="/device:CPU:0",
    ok=True,
    logical_devices=devices,
    xla_cpu_registered=any(t == "XLA_CPU" for _, t in devices),
    placed_on=placed,
    placement_error=error,
    tf_xla_flags=os.environ.get("TF_XLA_FLAGS", ""),
)
