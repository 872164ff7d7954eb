"""Planted TensorFlow pitfalls: a tf.function retraced on every call by a Python number, one by new shapes,
and a jit_compile=True function with an op XLA cannot compile (the program catches the error)."""
import tensorflow as tf


@tf.function
def scale(x, factor):
    return x * factor


@tf.function
def total(x):
    return tf.reduce_sum(x * 2.0)


@tf.function(jit_compile=True)
def as_text(x):
    return tf.strings.as_string(x)


for step in range(8):
    scale(tf.ones([4]), step)  # a Python int: a new trace each time
    total(tf.ones([step + 1]))  # a new shape each time
try:
    as_text(tf.constant([1.0]))
except tf.errors.InvalidArgumentError:
    print("jit_compile failed as expected")
print("done")
