"""Planted TensorFlow pitfall, run with autoclustering on (TF_XLA_FLAGS): the step formats its loss as text in the
middle of the tf.function, ops XLA has no kernel for, so XLA takes less than half of the step."""
import tensorflow as tf


@tf.function
def step(x, w):
    h = tf.nn.relu(tf.matmul(x, w)) * 2.0 + 1.0
    text = tf.strings.as_string(tf.reduce_mean(h))  # no XLA kernel: the step is split here
    text = tf.strings.join([text, tf.strings.as_string(tf.reduce_max(h))], separator=" ")
    text = tf.strings.strip(text)
    width = tf.strings.length(text)
    return h * tf.cast(width, tf.float32)


w = tf.ones([8, 8])
for _ in range(5):
    out = step(tf.ones([8, 8]), w)
print("done", float(tf.reduce_sum(out)))
