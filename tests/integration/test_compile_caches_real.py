"""A container's UID without a passwd entry, for real: xladoctor and torch itself run as UID 12345, which this
machine's /etc/passwd does not know (setpriv, with read access kept so the root-owned venvs stay readable).

torch 2.9.0 really raises KeyError('getpwuid(): uid not found: 12345') naming its Inductor cache; the fix
xladoctor gives (USER) really makes it work; torch 2.13.0 needs no fix."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from envs import python_of

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
        reason="needs root and setpriv to run as a UID with no passwd entry",
    ),
]
UID = 12345
REPO = Path(__file__).resolve().parents[2]
CAPS = "+dac_read_search,+dac_override"  # keep reading root's files; the UID is what getpass sees


def _as_unknown_uid(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    setpriv = ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups"]
    setpriv += [f"--inh-caps={CAPS}", f"--ambient-caps={CAPS}"]
    clean = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(REPO), **env}
    return subprocess.run([*setpriv, *argv], capture_output=True, text=True, env=clean, cwd=cwd, timeout=300)


def _cache_finding(python: Path, env: dict[str, str], cwd: Path) -> list[dict[str, object]]:
    argv = [sys.executable, "-m", "xladoctor", "check", "--python", str(python), "--json", "--no-smoke"]
    result = _as_unknown_uid([*argv, "--only", "compile-cache-dirs"], env, cwd)
    assert result.returncode in (0, 1), result.stderr
    return [f for f in json.loads(result.stdout)["findings"] if f["id"] == "compile-cache-dirs"]


def _torch_cache_dir(python: Path, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import torch._inductor.runtime.cache_dir_utils as c; print(c.default_cache_dir())"
    return _as_unknown_uid([str(python), "-c", code], env, cwd)


def test_torch_2_9_cannot_name_its_cache_for_an_unknown_uid_and_user_fixes_it(real_env, tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        pwd.getpwuid(UID)
    os.chmod(tmp_path, 0o777)
    python = python_of(real_env("torch29-xla29"))
    broken = _torch_cache_dir(python, {}, tmp_path)
    assert broken.returncode != 0 and "getpwuid(): uid not found: 12345" in broken.stderr

    [finding] = _cache_finding(python, {}, tmp_path)
    assert finding["status"] == "fail"
    assert str(finding["title"]).startswith("torch.compile fails for UID 12345: it has no passwd entry")
    assert finding["remediation"] == ["export USER=uid_12345"]

    fixed = _torch_cache_dir(python, {"USER": "uid_12345"}, tmp_path)
    assert fixed.returncode == 0 and fixed.stdout.strip().endswith("/torchinductor_uid_12345"), fixed.stderr
    [after] = _cache_finding(python, {"USER": "uid_12345"}, tmp_path)
    assert after["status"] == "ok", after


def test_torch_2_13_falls_back_to_the_uid_by_itself(real_env, tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o777)
    python = python_of(real_env("torch213-xla29"))
    assert _torch_cache_dir(python, {}, tmp_path).stdout.strip().endswith("/torchinductor_uid_12345")
    [finding] = _cache_finding(python, {}, tmp_path)
    assert finding["status"] == "ok", finding
