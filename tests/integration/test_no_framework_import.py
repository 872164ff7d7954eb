"""Static diagnosis never imports a framework, in xladoctor's process or in the target's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

pytestmark = pytest.mark.integration

FRAMEWORKS = {
    "torch": "2.9.0",
    "torch_xla": "2.9.0",
    "triton": "3.5.0",
    "tensorflow": "2.20.0",
    "jax": "0.7.2",
    "jaxlib": "0.7.2",
}


def _fake_framework(site: Path, module: str, version: str, log: Path) -> None:
    """A package whose import writes its name to `log`, with real-looking metadata beside it."""
    pkg = site / module
    pkg.mkdir()
    (pkg / "__init__.py").write_text(f"open({str(log)!r}, 'a').write({module!r} + '\\n')\n")
    (pkg / "version.py").write_text(f"__version__ = {version!r}\n")  # read as text by the probe
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    name = module.replace("_", "-")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text(f"{module}/__init__.py,,\n{module}/version.py,,\n{info.name}/METADATA,,\n")
    (info / "INSTALLER").write_text("pip\n")


@pytest.fixture
def fake_env(tmp_path: Path) -> tuple[Path, Path, Path]:
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    site = next((env / "lib").glob("python3*/site-packages"))
    log = tmp_path / "imported.log"
    for module, version in FRAMEWORKS.items():
        _fake_framework(site, module, version, log)
    return env / "bin" / "python", site, log


def test_the_fakes_do_record_an_import(fake_env) -> None:
    python, _, log = fake_env
    subprocess.run([str(python), "-c", "import torch"], check=True)
    assert log.read_text() == "torch\n"


def test_static_diagnosis_imports_no_framework_anywhere(fake_env) -> None:
    python, site, log = fake_env
    # PYTHONPATH puts the fakes on xladoctor's own path too: an import there would be logged as well.
    for args in (("check", "--json"), ("snapshot",), ("check", "-v")):
        result = run_cli(*args, "--python", str(python), env={"PYTHONPATH": str(site)})
        assert result.returncode in (0, 1), result.stderr
    assert not log.exists(), f"imported: {log.read_text()}"
    report = json.loads(run_cli("check", "--json", "--python", str(python)).stdout)
    inventory = next(f for f in report["findings"] if f["id"] == "ml-stack-inventory")
    assert inventory["evidence"]["components"]["torch_xla"] == {"torch-xla": "2.9.0"}
