"""Checks, one module per area; importing this package registers every check."""

from . import (
    compile_debug,
    cuda,
    environment,
    gpu,
    jax,
    libraries,
    packages,
    pjrt,
    python_support,
    resources,
    tensorflow,
    toolchain,
    torch_xla,
    tpu_topology,
    triton,
    xla_config,
)

__all__ = [
    "compile_debug",
    "cuda",
    "environment",
    "gpu",
    "jax",
    "libraries",
    "packages",
    "pjrt",
    "python_support",
    "resources",
    "toolchain",
    "tensorflow",
    "torch_xla",
    "tpu_topology",
    "triton",
    "xla_config",
]
