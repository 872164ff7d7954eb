"""A healthy TensorFlow loop: one tf.function, the same shapes and dtypes every call."""
import tensorflow as tf


@tf.function
def step(w, x):
    return w - 0.1 * tf.reduce_mean(x * w)


w = tf.ones([8])
for _ in range(20):
    w = step(w, tf.ones([8]))
print("done", float(tf.reduce_sum(w)))
