"""Planted JAX pitfalls over 5 steps: a jitted function called with a new input shape each step, one whose static
argument changes each step, and a jax.jit of a lambda created anew inside the loop (never reused)."""
from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def normalize(x):
    return x / jnp.linalg.norm(x)


@partial(jax.jit, static_argnums=1)
def power(x, exponent):
    return x**exponent


total = 0.0
for step in range(5):
    x = jnp.ones(step + 2)  # a new shape each step
    total += float(normalize(x).sum())
    total += float(power(jnp.ones(3), step).sum())  # a new static value each step
    total += float(jax.jit(lambda v: v * 2)(jnp.ones(3)).sum())  # a new function each step
print("done", round(total, 3))
