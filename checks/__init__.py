"""Checks, one module per area; importing this package registers every check."""

from . import environment, jax, packages, python_support, torch_xla, triton

__all__ = ["environment", "jax", "packages", "python_support", "torch_xla", "triton"]
