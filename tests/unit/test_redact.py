"""Secrets never reach a snapshot or a report."""

from __future__ import annotations

import pytest

from xladoctor.redact import REDACTED, allowed_environment, redact, redact_text


@pytest.mark.parametrize(
    "secret",
    [
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
        "sk-proj-abcdefghijklmnopqrstuvwxyz",
        "AKIAIOSFODNN7EXAMPLE",
        "0123456789abcdef0123456789abcdef",  # 32 hex, the shape of a Kaggle key
        "Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MEFC",  # random-looking mixed case
    ],
)
def test_token_shapes_are_redacted(secret: str) -> None:
    assert redact_text(f"value={secret} tail") == f"value={REDACTED} tail"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://alice:s3cret@pypi.corp.example/simple", f"https://{REDACTED}@pypi.corp.example/simple"),
        ("--xla_dump_to=/tmp/d --api_key=abc123", f"--xla_dump_to=/tmp/d --api_key={REDACTED}"),
        ("https://host/x?token=abc&x=1", f"https://host/x?token={REDACTED}&x=1"),
    ],
)
def test_credentials_inside_urls_and_flags(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "harmless",
    [
        "cp311-cp311-manylinux_2_28_x86_64",
        "cbe1a35dbdfdc9b7490212bdd812f3e2f4ce9e2d",  # a git revision, useful evidence
        "/home/u/.venv/lib/python3.11/site-packages/torch",
        "nvidia_cublas_cu12-12.8.4.1",
        "--xla_dump_to=/tmp/dump",
    ],
)
def test_ordinary_values_stay_readable(harmless: str) -> None:
    assert redact_text(harmless) == harmless


def test_environment_is_read_through_an_allow_list() -> None:
    env = {
        "PJRT_DEVICE": "CPU",
        "XLA_FLAGS": "--xla_dump_to=/tmp/x",
        "HOME": "/root",
        "AWS_SECRET_ACCESS_KEY": "abc",
        "KAGGLE_KEY": "0123456789abcdef0123456789abcdef",
        "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
        "PIP_INDEX_URL": "https://u:p@idx.example/simple",
    }
    assert allowed_environment(env) == {
        "PIP_INDEX_URL": f"https://{REDACTED}@idx.example/simple",
        "PJRT_DEVICE": "CPU",
        "XLA_FLAGS": "--xla_dump_to=/tmp/x",
    }


def test_redact_walks_nested_values() -> None:
    doc = {"a": ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", {"b": 3}], "c": None}
    assert redact(doc) == {"a": [REDACTED, {"b": 3}], "c": None}
