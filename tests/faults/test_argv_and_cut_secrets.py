"""Secrets in argv, in kept records, in text cut short, and in credential shapes real logs hold (issue 23, 4).

A flag and its value are two elements of argv, so each element alone cannot tell that the second is a secret;
text is redacted whole before any of it is cut, so no rule sees half a token; the shapes come from maintained
scanners (gitleaks' rule ids in xladoctor/redact.py), and detect-secrets runs here as an oracle over them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import run_cli

from xladoctor.collective.rollcall.channel import Channel
from xladoctor.redact import REDACTED, redact_argv, redact_text
from xladoctor.sanitize import clip, cut

HF = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456"  # the shape only: 34 letters and digits after hf_
ARGV_SECRETS = ("Tok3nValue_123", "Passw0rdValue!", "ApiKeyValue_987", HF, "Eq-Secret-000x")


def _argv() -> list[str]:
    return [
        "--token", ARGV_SECRETS[0], "--password", ARGV_SECRETS[1], "--api-key", ARGV_SECRETS[2],
        "--hf-token", ARGV_SECRETS[3], f"--secret={ARGV_SECRETS[4]}", "--lr", "3e-4",
    ]  # fmt: skip


def _no_secret(text: str) -> None:
    for value in ARGV_SECRETS:
        assert value not in text, f"{value} leaked"


def test_profile_json_redacts_the_value_after_a_secret_flag(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    result = run_cli("profile", "--format", "json", "-o", str(report), "--", sys.executable, "-c", "pass", *_argv())
    assert result.returncode == 0, result.stderr
    document = json.loads(report.read_text())
    _no_secret(report.read_text() + result.stderr)
    assert document["command"][-11:] == [
        "--token", REDACTED, "--password", REDACTED, "--api-key", REDACTED, "--hf-token", REDACTED,
        f"--secret={REDACTED}", "--lr", "3e-4",
    ]  # fmt: skip


def test_kept_records_hold_no_argv_secret(tmp_path: Path) -> None:
    kept = tmp_path / "records"
    result = run_cli("profile", "--keep-records", str(kept), "--", sys.executable, "-c", "import json", *_argv())
    assert result.returncode == 0, result.stderr
    files = list(kept.glob("proc-*.jsonl"))
    assert files, "no record was kept"
    text = "\n".join(f.read_text() for f in files)
    _no_secret(text)
    heads = [json.loads(line) for f in files for line in f.read_text().splitlines() if '"process"' in line]
    assert any(REDACTED in head["argv"] for head in heads)


def test_argv_redaction_knows_the_command_line_shapes() -> None:
    assert redact_argv(["curl", "-u", "me:S3cret!", "https://x"]) == ("curl", "-u", f"me:{REDACTED}", "https://x")
    assert redact_argv(["mysql", "-uroot", "-pS3cret", "db"]) == ("mysql", "-uroot", f"-p{REDACTED}", "db")
    assert redact_argv(["python", "-u", "train.py", "--lr", "1e-3"]) == ("python", "-u", "train.py", "--lr", "1e-3")


@pytest.mark.parametrize("limit", range(20, 60))
def test_text_is_redacted_before_it_is_cut(limit: int) -> None:
    """Wherever the cut falls, no piece of the token shows: 16 characters of an hf_ token once did."""
    text = f"step 12 failed: export HF_TOKEN={HF} and retry " + "x" * 40
    for shown in (clip(text, limit), cut(text, limit)):
        assert not any(HF[i : i + 8] in shown for i in range(len(HF) - 8)), shown


def test_a_strangers_preview_is_redacted_whole_then_cut() -> None:
    channel = Channel.__new__(Channel)
    channel.buffer = bytearray(b"GET /?token=" + HF.encode() + b" HTTP/1.1\r\n" + b"x" * 5000)
    for limit in (20, 30, 40, 80):
        shown = channel.said(limit)
        assert not any(HF[i : i + 6] in shown for i in range(len(HF) - 6)), shown


LOG_SHAPES = {
    "netrc": ("machine huggingface.co login me password NetrcPassw0rd9", "NetrcPassw0rd9"),
    "netrc lower": ("machine api.wandb.ai login user password plainwordsecret", "plainwordsecret"),
    "curl -u": ("curl: (22) curl -u admin:CurlPassw0rd9 https://example.com/x failed", "CurlPassw0rd9"),
    "mysql -p": ("ERROR 1045 (28000): mysql -u root -pMySqlPassw0rd9 mydb", "MySqlPassw0rd9"),
    "xml element": ("error: <settings><password>XmlPassw0rd9</password></settings>", "XmlPassw0rd9"),
    "token as url user": (
        "fatal: unable to access 'https://9f8e7d6c5b4a39281706f5e4d3c2b1a0@github.com/org/repo.git/'",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    "python argv list": (
        "subprocess.CalledProcessError: Command '['mysql', '--password', 'ListPassw0rd9', 'db']' returned 1",
        "ListPassw0rd9",
    ),
    "api-key spaced": ("Error: api-key ApiKeyValue12345xyz was rejected", "ApiKeyValue12345xyz"),
}


@pytest.mark.parametrize("shape", sorted(LOG_SHAPES))
def test_explain_echoes_no_credential_shape(tmp_path: Path, shape: str) -> None:
    line, secret = LOG_SHAPES[shape]
    log = tmp_path / "run.log"
    log.write_text(f"Traceback (most recent call last):\nRuntimeError: {line}\n")
    for fmt in ("text", "json", "html"):
        out = tmp_path / f"report.{fmt}"
        result = run_cli("explain", str(log), "--no-facts", "--format", fmt, "-o", str(out))
        assert result.returncode in (0, 1), result.stderr
        written = out.read_text()
        assert "RuntimeError" in written, f"{fmt}: the line was not echoed, so this test proves nothing"
        assert secret not in written + result.stderr, f"{shape} leaked in {fmt}"


def test_prose_and_identifiers_stay_readable() -> None:
    """The rules must not eat the words a diagnosis needs (issue 25: autograd node names were redacted)."""
    for text in (
        "Password authentication failed for user postgres",
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [8]], which is output 0 of NativeLayerNormBackward0",
        "UpsampleBilinear2DBackward0 MaxPool2DWithIndicesBackward0 CudnnConvolutionBackward0",
        "python -u train.py --user-dir runs/a:b",
    ):
        assert redact_text(text) == text


def test_detect_secrets_finds_nothing_left_in_what_we_redacted() -> None:
    """detect-secrets (Yelp's maintained rule set) as the oracle: every secret its specific plugins find in these
    lines is gone after our redaction. Its entropy plugins are left out (they flag any word without a threshold in
    scan_line), and so is its IP plugin (addresses are what NCCL failures are about)."""
    pytest.importorskip("detect_secrets")
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    lines = [line for line, _ in LOG_SHAPES.values()] + [
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLF",
        f"export GITHUB_TOKEN=ghp_{'a1B2' * 9}",
        "slack: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7rX1\n-----END RSA PRIVATE KEY-----",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        'db_password = "Pr0ductionS3cret"',
        "https://user:UrlPassw0rd9@registry.example.com/simple",
        "npm_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "SG." + "a" * 22 + "." + "B" * 43,
    ]
    skipped = {"Base64 High Entropy String", "Hex High Entropy String", "Public IP (ipv4)"}
    found = 0
    with default_settings():
        for line in lines:
            redacted = redact_text(line)
            for secret in scan_line(line):
                if secret.type in skipped or not secret.secret_value:
                    continue
                found += 1
                if secret.type == "Private Key":  # its "value" is the BEGIN line, which we keep: the body goes
                    assert "MIIEowIBAAKCAQEA7rX1" not in redacted
                    continue
                assert secret.secret_value not in redacted, f"{secret.type}: {secret.secret_value!r} in {redacted!r}"
    assert found >= 8  # the oracle really looked
