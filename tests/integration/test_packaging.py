"""The built wheel carries the checks and the matrix, installs into a fresh venv, and runs."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import FACTS_DIR
from envs import python_of

from xladoctor.diagnosis.registry import all_checks
from xladoctor.matrix import load_matrix

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    [built] = out.glob("xladoctor-*.whl")
    return built


def test_wheel_carries_checks_and_matrix_under_xladoctor(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "xladoctor/checks/torch_xla.py" in names
    assert "xladoctor/compat_matrix/torch-torch_xla.json" in names
    assert "xladoctor/reporters/schemas/report.schema.json" in names
    assert "xladoctor/reporters/schemas/compare.schema.json" in names
    assert "xladoctor/compat_matrix/signatures/10-xla.json" in names
    assert "xladoctor/fleet/compare.py" in names
    assert "xladoctor/probes/scripts/packages.py" in names
    assert {"xladoctor/reporters/pages/page.css", "xladoctor/reporters/pages/page.js"} <= set(names)
    # the collective's workers are copied out of the installed package into every rank
    assert "xladoctor/collective/scripts/_xladoctor_collective_worker.py" in names
    assert "xladoctor/collective/scripts/_xladoctor_collective_jax.py" in names
    assert "xladoctor/collective/scripts/_xladoctor_collective_common.py" in names
    assert "xladoctor/collective/analysis/fleet.py" in names
    assert "xladoctor/reporters/schemas/collective.schema.json" in names
    # `fleet --ray` copies its driver out of the installed package and runs it in the Ray cluster's Python
    assert "xladoctor/fleet/scripts/_xladoctor_ray_nodes.py" in names
    assert not [n for n in names if n.startswith(("checks/", "compat_matrix/", "tests/"))]


def _fresh_venv(path: Path, *install: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run(
        [str(python_of(path)), "-m", "pip", "install", "-q", "--disable-pip-version-check", *install],
        check=True,
        capture_output=True,
        timeout=900,
    )
    return path


def test_wheel_installs_and_diagnoses_another_env(wheel: Path, tmp_path: Path, real_env) -> None:
    env = _fresh_venv(tmp_path / "tool", str(wheel))
    target = python_of(real_env("torch213-xla29"))
    result = subprocess.run(
        [str(env / "bin" / "xladoctor"), "check", "--python", str(target), "--json", "--smoke", "xla"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    failed = [f["id"] for f in report["findings"] if f["status"] == "fail"]
    assert failed == ["torch-xla-torch-mismatch", "smoke-xla"]
    # the smoke scripts and the failure signatures ship in the wheel: the real crash is classified
    [xla] = report["smoke"]
    assert xla["cause"].startswith("torch_xla's C++ extension (_XLAC) was built against another torch release")
    # the HTML report's stylesheet and script are read from the installed package
    page = tmp_path / "report.html"
    subprocess.run(
        [str(env / "bin" / "xladoctor"), "check", "--facts", str(FACTS_DIR / "real-torch213-xla29.json"),
         "--format", "html", "-o", str(page)],
        capture_output=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    from xladoctor.reporters.pages.page import asset

    text = page.read_text()
    assert f"<style>{asset('page.css')}</style>" in text and f"<script>{asset('page.js')}</script>" in text
    # nothing called plain `checks` or `compat_matrix` landed in site-packages
    site = next((env / "lib").glob("python3*/site-packages"))
    assert not (site / "checks").exists() and not (site / "compat_matrix").exists()


def test_the_checkout_runs_from_the_repository_root(wheel: Path, tmp_path: Path) -> None:
    """In the repository root the checkout's xladoctor/ shadows an installed one; checks/ and compat_matrix/
    beside it must still be found (they are xladoctor.checks and xladoctor.compat_matrix once installed)."""
    env = _fresh_venv(tmp_path / "tool", str(wheel))
    code = "import xladoctor, xladoctor.checks; print(xladoctor.__file__, xladoctor.checks.__file__)"
    where = subprocess.run([str(python_of(env)), "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert where.stdout.split() == [str(ROOT / "xladoctor" / "__init__.py"), str(ROOT / "checks" / "__init__.py")]
    result = subprocess.run(
        [str(python_of(env)), "-m", "xladoctor", "--json", "--no-smoke"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["error"] == 0 and len(report["findings"]) == len(all_checks())


def test_editable_install_works(tmp_path: Path) -> None:
    env = _fresh_venv(tmp_path / "dev", "-e", str(ROOT))
    code = (
        "from xladoctor.matrix import load_matrix; from xladoctor.diagnosis.registry import all_checks; "
        "print(len(load_matrix().relations), len(all_checks()))"
    )
    out = subprocess.run([str(python_of(env)), "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.split() == [str(len(load_matrix().relations)), str(len(all_checks()))]
    result = subprocess.run(
        [str(python_of(env)), "-m", "xladoctor", "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert result.returncode == 0 and json.loads(result.stdout)["summary"]["fail"] == 0
