"""Secrets never leave the machine: an environment allow-list and token redaction for every output."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

REDACTED = "<redacted>"

# Only variables that decide how the ML stack behaves are read; everything else is never seen.
_ALLOWED_PREFIXES = (
    "PJRT_",
    "XLA_",
    "PT_XLA_",
    "XRT_",
    "TPU_",
    "TF_",
    "TORCH",
    "TORCHINDUCTOR_",
    "TRITON_",
    "CUDA_",
    "CUDNN_",
    "NCCL_",
    "NVIDIA_",
    "JAX_",
    "COLAB_",
    "KAGGLE_",
    "CONDA_",
    "OMP_",
    "MKL_",
    "LD_",
    "PYTHON",
    "PIP_",
    "UV_",
)
_ALLOWED_NAMES = frozenset(
    {
        "PATH",
        "VIRTUAL_ENV",
        "GPU_NUM_DEVICES",
        "CUDA_HOME",
        "CUDA_PATH",
        "CC",
        "CXX",
        "HOSTNAME_TPU_WORKER",
        "CLOUD_TPU_TASK_ID",  # torch_xla/_internal/tpu.py: the process index in a TPU slice
        "CLOUDSDK_CONFIG",
    }
)
# A name that hints at a credential is dropped even when its prefix is allowed (KAGGLE_KEY, ...).
_DENIED_NAME_PARTS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE")

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # user:password@ in URLs (PIP_INDEX_URL with a private index is the classic leak)
    (re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s@:]+(?::[^/\s@]*)?@"), r"\g<scheme>" + REDACTED + "@"),
    # secret-looking query parameters and flags: ?token=..., --api_key=...
    (
        re.compile(
            r"(?i)(?P<k>(?:[?&]|--?)[\w-]*(?:token|secret|password|passwd|api_?key|signature|sig)[\w-]*[=:])[^&\s]+"
        ),
        r"\g<k>" + REDACTED,
    ),
    # well-known token shapes: GitHub, Hugging Face, OpenAI-style, Slack, AWS, Google API keys, GitLab, npm, PyPI
    (
        re.compile(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|hf_[A-Za-z0-9]{20,}"
            r"|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}"
            r"|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{50,}|ya29\.[A-Za-z0-9_.-]{20,})"
        ),
        REDACTED,
    ),
    # 32 hex digits alone (Kaggle API keys and similar); 40-hex git revisions stay readable
    (re.compile(r"(?<![0-9A-Fa-f])[0-9a-f]{32}(?![0-9A-Fa-f])"), REDACTED),
)
# A long run of mixed-case letters and digits looks like a random secret; wheel tags and paths do not.
_RANDOM_RUN = re.compile(r"[A-Za-z0-9+_-]{24,}={0,2}")


def _looks_random(run: str) -> bool:
    if run.startswith("_Z"):  # an Itanium-mangled C++ symbol ("undefined symbol: _ZN5torch8autograd..."): evidence
        return False
    return any(c.isupper() for c in run) and any(c.islower() for c in run) and any(c.isdigit() for c in run)


def redact_text(text: str) -> str:
    """Replace anything that looks like a credential with a marker."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return _RANDOM_RUN.sub(lambda m: REDACTED if _looks_random(m.group(0)) else m.group(0), text)


def redact(value: Any) -> Any:
    """Redact every string inside a JSON-like value (keys included)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {redact_text(str(k)): redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    return value


def is_allowed_env_name(name: str) -> bool:
    """Whether a variable may be read at all."""
    upper = name.upper()
    if any(part in upper for part in _DENIED_NAME_PARTS):
        return False
    return name in _ALLOWED_NAMES or name.startswith(_ALLOWED_PREFIXES)


def allowed_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The allow-listed, redacted view of an environment."""
    return {k: redact_text(v) for k, v in sorted(environ.items()) if is_allowed_env_name(k)}
