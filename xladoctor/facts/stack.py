"""Names of the ML stack's distributions, grouped the way people speak of them."""

from __future__ import annotations

# component -> distributions that provide it (first: the usual name). PyPI names, normalised.
COMPONENTS: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "torch_xla": ("torch-xla",),
    "triton": ("triton", "pytorch-triton", "triton-rocm", "pytorch-triton-rocm", "triton-xpu", "pytorch-triton-xpu"),
    "tensorflow": (
        "tensorflow",
        "tensorflow-cpu",
        "tensorflow-gpu",
        "tf-nightly",
        "tf-nightly-cpu",
        "tensorflow-intel",
        "tensorflow-cpu-aws",
        "tf-nightly-intel",
        "tf-nightly-cpu-aws",
    ),
    "jax": ("jax",),
    "jaxlib": ("jaxlib",),
    "jax-plugins": ("jax-cuda12-plugin", "jax-cuda12-pjrt", "jax-cuda13-plugin", "jax-cuda13-pjrt"),
    "libtpu": ("libtpu", "libtpu-nightly"),
    "keras": ("keras", "tf-keras"),
    "torchvision": ("torchvision",),
    "torchaudio": ("torchaudio",),
    "numpy": ("numpy",),
}

FRAMEWORK_COMPONENTS = ("torch", "torch_xla", "tensorflow", "jax")

ML_DISTRIBUTIONS: frozenset[str] = frozenset(n for names in COMPONENTS.values() for n in names)
