"""JAX asked for far more than the GPU holds: XLA's RESOURCE_EXHAUSTED."""

import jax
import jax.numpy as jnp

print(jax.devices())
x = jnp.ones((400 * 1024**3 // 4,), dtype=jnp.float32)
print(float(x[0]))
