"""Planted credentials of every shape the redaction promises to catch, where they are planted, and the search
that finds any piece of one in an output.

The shapes are those of the public rule sets (gitleaks rules/*.go, detect-secrets plugins/*.py, GitHub secret
scanning's token prefixes); the random parts are drawn from a seeded generator, so every run plants the same
values and none is a real credential. The values that only a context rule can catch (a password after `password=`,
a URL password, a bearer token) are plain lower-case words, which no shape rule would take for a secret.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

_RNG = random.Random(20261201)
_ALNUM = string.ascii_letters + string.digits
_URLSAFE = _ALNUM + "-_"


def _draw(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _random_with_every_class(alphabet: str, n: int, must: str) -> str:
    """n characters of `alphabet` holding at least one of each character class in `must` (u, l, d, /, +)."""
    classes = {"u": string.ascii_uppercase, "l": string.ascii_lowercase, "d": string.digits, "/": "/", "+": "+"}
    while True:
        value = _draw(alphabet, n)
        if all(any(c in classes[k] for c in value) for k in must) and value.count("/") <= 2:
            return value


def _jwt() -> str:
    def part(doc: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")

    header, payload = part({"alg": "HS256", "typ": "JWT"}), part({"sub": _draw(_ALNUM, 12), "iat": 1700000000})
    return f"{header}.{payload}.{_draw(_URLSAFE, 43)}"


# name -> (the secret, the prefix that stays readable or is a fixed marker of the shape: searched for no piece of
# the secret after it)
SECRETS: dict[str, tuple[str, str]] = {
    "github-pat": ("ghp_" + _draw(_ALNUM, 36), "ghp_"),
    "github-oauth": ("gho_" + _draw(_ALNUM, 36), "gho_"),
    "github-user-to-server": ("ghu_" + _draw(_ALNUM, 36), "ghu_"),
    "github-server-to-server": ("ghs_" + _draw(_ALNUM, 36), "ghs_"),
    "github-refresh": ("ghr_" + _draw(_ALNUM, 36), "ghr_"),
    "github-fine-grained": ("github_pat_" + _draw(_ALNUM, 22) + "_" + _draw(_ALNUM, 59), "github_pat_"),
    "gitlab": ("glpat-" + _draw(_URLSAFE, 20), "glpat-"),
    "slack": ("xoxb-" + _draw(string.digits, 11) + "-" + _draw(string.digits, 13) + "-" + _draw(_ALNUM, 24), "xoxb-"),
    "aws-access-key-id": ("AKIA" + _draw(string.ascii_uppercase + "234567", 16), "AKIA"),
    "aws-sts-key-id": ("ASIA" + _draw(string.ascii_uppercase + "234567", 16), "ASIA"),
    "aws-secret-access-key": (_random_with_every_class(_ALNUM + "/+", 40, "uld/+"), ""),
    "google-api-key": ("AIza" + _draw(_URLSAFE, 35), "AIza"),
    "google-oauth": ("ya29." + _draw(_URLSAFE, 60), "ya29."),
    "openai": ("sk-proj-" + _draw(_URLSAFE, 64), "sk-proj-"),
    "openai-legacy": ("sk-" + _draw(_ALNUM, 20) + "T3BlbkFJ" + _draw(_ALNUM, 20), "sk-"),
    "anthropic": ("sk-ant-api03-" + _draw(_URLSAFE, 93) + "AA", "sk-ant-api03-"),
    "huggingface": ("hf_" + _draw(string.ascii_letters, 34), "hf_"),  # gitleaks huggingface.go: 34 letters
    "npm": ("npm_" + _draw(_ALNUM, 36), "npm_"),
    "pypi": ("pypi-AgEIcHlwaS5vcmc" + _draw(_URLSAFE, 70), "pypi-AgEIcHlwaS5vcmc"),
    "stripe-secret": ("sk_live_" + _draw(_ALNUM, 24), "sk_live_"),
    "stripe-restricted": ("rk_live_" + _draw(_ALNUM, 24), "rk_live_"),
    "jwt": (_jwt(), "eyJ"),
    "wandb": (_random_with_every_class("0123456789abcdef", 40, "ld"), ""),  # a bare 40-hex W&B API key
    "kaggle": (_random_with_every_class("0123456789abcdef", 32, "ld"), ""),
    "private-key": (_random_with_every_class(_ALNUM + "+/", 64, "uld"), ""),  # the lines of a key's body
    "private-key-line-2": (_draw(_ALNUM + "+/", 60), ""),
    "azure-account-key": (_random_with_every_class(_ALNUM + "+/", 86, "uld") + "==", ""),
    "azure-sas-signature": (_draw(_ALNUM, 30) + "%2B" + _draw(_ALNUM, 10) + "%3D", ""),
    # context only: plain words that no shape rule would take for a secret
    "url-password": ("hunter-two-swordfish", ""),
    "url-empty-user-password": ("opensesame-letmein", ""),
    "url-slash-password": ("pa/ss-word-sl/ash", ""),
    "password-value": ("correct-horse-battery", ""),
    "api-key-value": ("my-little-api-key-value", ""),
    "secret-value": ("quiet-quokka-whisper", ""),
    "token-value": ("gentle-otter-token", ""),
    "bearer": ("opaque-bearer-credential-value", ""),
    "flag-password": ("flagged-plain-password", ""),
}


def secret(name: str) -> str:
    return SECRETS[name][0]


PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + secret("private-key")
    + "\n"
    + secret("private-key-line-2")
    + "\n-----END RSA PRIVATE KEY-----"
)
AZURE = (
    "DefaultEndpointsProtocol=https;AccountName=acct;"
    f"AccountKey={secret('azure-account-key')};EndpointSuffix=core.windows.net"
)


def planted_environment() -> dict[str, str]:
    """Allow-listed variables holding every shape (several to a variable), and denied ones that are never read."""
    s = secret
    return {
        "PIP_INDEX_URL": f"https://:{s('url-empty-user-password')}@pypi.corp.example/simple",
        "PIP_EXTRA_INDEX_URL": (
            f"https://ci-bot:{s('url-slash-password')}@a.example/simple https://{s('github-pat')}@github.example/x "
            f"https://oauth2:{s('gitlab')}@gitlab.example/api/v4/projects/1/packages/pypi/simple"
        ),
        "UV_INDEX_URL": f"https://alice:{s('url-password')}@uv.example/simple?token={s('token-value')}",
        "LD_LIBRARY_PATH": (
            f"/usr/local/cuda/lib64:/opt/{s('aws-secret-access-key')}/lib:/home/u/{s('huggingface')}/lib"
            f":/srv/{s('wandb')}/lib:/srv/{s('kaggle')}"
        ),
        "XLA_FLAGS": (
            f"--xla_dump_to=/tmp/x --xla_debug_buffer_assignment_show_max=100 --api_key={s('api-key-value')} "
            f"password={s('password-value')} --xla_bogus_flag=1"
        ),
        "TF_XLA_FLAGS": f"--tf_xla_auto_jit=2 --tf_xla_secret={s('secret-value')}",
        "TORCH_HOME": f"/cache/{s('openai')}/torch",
        "TRITON_CACHE_DIR": f"/cache/{s('anthropic')}",
        "TORCHINDUCTOR_CACHE_DIR": f"/cache/{s('slack')}/{s('openai-legacy')}",
        "CUDA_CACHE_PATH": f"/c/{s('aws-access-key-id')}/{s('aws-sts-key-id')}",
        "PYTHONPATH": f"/x/{s('npm')}:/y/{s('pypi')}",
        "CONDA_PKGS_DIRS": f"/p/{s('stripe-secret')},/q/{s('stripe-restricted')}",
        "NCCL_DEBUG_FILE": f"/x/{s('google-api-key')}/{s('google-oauth')}/{s('github-oauth')}",
        "JAX_COMPILATION_CACHE_DIR": f"https://acct.blob.core.windows.net/c?sv=2022-11-02&sig={s('azure-sas-signature')}",
        "OMP_XLADOCTOR_NOTE": AZURE,
        "MKL_XLADOCTOR_NOTE": PRIVATE_KEY,
        "CUDNN_XLADOCTOR_NOTE": f"Authorization: Bearer {s('bearer')}",
        "XLA_XLADOCTOR_NOTE": f"{s('jwt')} {s('github-user-to-server')} {s('github-server-to-server')}",
        "PJRT_XLADOCTOR_NOTE": f"{s('github-refresh')} {s('github-fine-grained')} --password {s('flag-password')}",
        # never read: the names hint at credentials, or are not allow-listed at all
        "HF_TOKEN": s("huggingface"),
        "WANDB_API_KEY": s("wandb"),
        "AWS_SECRET_ACCESS_KEY": s("aws-secret-access-key"),
        "HF_HOME": f"/home/{s('huggingface')}",
        "XLA_TOKEN": s("github-pat"),
    }


def _pieces(value: str, prefix: str, size: int = 10) -> Iterator[str]:
    body = value[len(prefix) :] if prefix and value.startswith(prefix) else value
    if len(body) <= size:
        yield body
        return
    yield from (body[i : i + size] for i in range(len(body) - size + 1))


_PIECES = {name: list(_pieces(value, prefix)) for name, (value, prefix) in SECRETS.items()}


def leaks(text: str) -> list[str]:
    """The planted secrets of which any 10-character piece (after the shape's fixed prefix) is in `text`."""
    return [name for name, pieces in _PIECES.items() if any(p in text for p in pieces)]


def plant_snapshot(doc: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """A copy of a snapshot with `env` and credentials in the free-text fields a report echoes."""
    planted: dict[str, Any] = json.loads(json.dumps(doc))
    planted["env"] = dict(env)
    python = planted["python"]
    python["executable"] = f"/home/{secret('wandb')}/venv/bin/python"
    python["sys_path"] = [*python["sys_path"], f"/opt/{secret('huggingface')}/site-packages"]
    planted["target"]["requested"] = python["executable"]
    planted["probes"].append(
        {"name": "xladoctor-planted", "ok": False, "duration_s": 0.1, "error": f"exited 1: {AZURE}"}
    )
    return planted


def fake_python(folder: Path, stderr: str, status: int = 1) -> str:
    """An 'interpreter' that prints `stderr` (a failing import, say) and exits with `status`."""
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    (folder / "message.txt").write_text(stderr)
    path = folder / "bin" / "python"
    path.write_text(f"#!/bin/sh\ncat '{folder / 'message.txt'}' >&2\nexit {status}\n")
    path.chmod(0o755)
    return str(path)


BARE_SHAPES = (
    "github-pat", "github-oauth", "github-user-to-server", "github-server-to-server", "github-refresh",
    "github-fine-grained", "gitlab", "slack", "aws-access-key-id", "aws-sts-key-id", "aws-secret-access-key",
    "google-api-key", "google-oauth", "openai", "openai-legacy", "anthropic", "huggingface", "npm", "pypi",
    "stripe-secret", "stripe-restricted", "jwt",
)  # fmt: skip


def in_context() -> list[str]:
    """Every planted secret once, each in a context a log or an error message could hold it in (one line)."""
    s = secret
    return [
        f"https://ci:{s('url-password')}@pypi.corp.example/simple",
        f"https://:{s('url-empty-user-password')}@pypi.corp.example/simple",
        f"https://u:{s('url-slash-password')}@h.example/simple",
        f"password={s('password-value')}",
        f"--api_key={s('api-key-value')}",
        f"client_secret: {s('secret-value')}",
        f"https://h.example/x?token={s('token-value')}&x=1",
        f"Authorization: Bearer {s('bearer')}",
        f"--password {s('flag-password')}",
        AZURE,
        f"https://acct.blob.core.windows.net/c?sv=2022-11-02&sig={s('azure-sas-signature')}",
        PRIVATE_KEY.replace("\n", " "),
        f"wandb login {s('wandb')}",
        f"kaggle {s('kaggle')}",
        *(s(name) for name in BARE_SHAPES),
    ]


def packed(prefix: str, limit: int = 440) -> list[str]:
    """`in_context()` packed into as few lines as fit under `limit` characters, each starting with `prefix`
    (explain keeps 500 characters of a line)."""
    lines: list[str] = []
    line = prefix
    for item in in_context():
        if len(line) + len(item) + 3 > limit and line != prefix:
            lines.append(line)
            line = prefix
        line += " | " + item
    return [*lines, line]
