"""How the facts fixtures in this folder were made (a developer tool; the tests never run it).

Two kinds of fixture:
- `real-*`: `xladoctor snapshot` of the real venvs that tests/envs.py builds.
- the others: environments of hosted platforms and broken installs that cannot be built here. Their
  distributions come from pip's resolver (`pip install --dry-run --report`) for the named Python and
  platform, so every name, version, Requires-Dist and Requires-Python is what PyPI's wheels declare;
  the paths, environment variables and the one breakage each case is about are set as the case says.

Usage: python tests/facts/make_fixtures.py [--expected] [NAME...]
  --expected rewrites NAME.expected.json from the current diagnosis: review every diff by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))


@dataclass
class Scenario:
    name: str
    about: str
    requirements: tuple[str, ...] = ()
    python: str = "3.11"
    executable: str = "/opt/venv/bin/python"
    prefix: str = "/opt/venv"
    base_prefix: str = "/usr"
    env_kind: str = "venv"
    conda_meta: bool = False
    pyvenv_cfg: dict[str, str] | None = field(default_factory=lambda: {"home": "/usr/bin", "version": "3.11.9"})
    env: dict[str, str] = field(default_factory=dict)
    installer: str = "pip"
    os_name: str = "Ubuntu 22.04.4 LTS"
    site: str | None = None  # site-packages; default PREFIX/lib/pythonX.Y/site-packages
    resolve_python: str | None = None  # resolve wheels for another Python (a copied site-packages)
    local_wheels: bool = False  # allow the CPU torch wheel on this machine's disk
    edit: Callable[[dict[str, Any]], None] | None = None


def _expand_tags(filename: str) -> list[str]:
    parts = filename[: -len(".whl")].split("-")
    py, abi, plat = parts[-3], parts[-2], parts[-1]
    return [f"{a}-{b}-{c}" for a in py.split(".") for b in abi.split(".") for c in plat.split(".")]


def resolve(s: Scenario) -> list[dict[str, Any]]:
    """Distributions pip would install for the scenario, as facts."""
    env = {**os.environ, "PIP_CONSTRAINT": "/dev/null"}
    if not s.local_wheels:
        env.update(PIP_CONFIG_FILE=os.devnull, PIP_FIND_LINKS="")
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--dry-run",
                "--ignore-installed",
                "--only-binary",
                ":all:",
                "--python-version",
                s.resolve_python or s.python,
                *[arg for glibc in range(35, 4, -1) for arg in ("--platform", f"manylinux_2_{glibc}_x86_64")],
                "--platform",
                "manylinux2014_x86_64",
                "--platform",
                "manylinux1_x86_64",
                "--target",
                tmp + "/t",
                "--report",
                str(report),
                *s.requirements,
            ],
            check=True,
            env=env,
        )
        items = json.loads(report.read_text())["install"]
    site = s.site or f"{s.prefix}/lib/python{s.python}/site-packages"
    dists = []
    for item in items:
        meta = item["metadata"]
        wheel = item["download_info"]["url"].rsplit("/", 1)[-1].replace("%2B", "+")
        dists.append(
            {
                "name": meta["name"],
                "version": meta["version"],
                "location": site,
                "metadata_dir": f"{site}/{meta['name'].replace('-', '_')}-{meta['version']}.dist-info",
                "path_index": 4,
                "installer": s.installer,
                "requires": meta.get("requires_dist", []),
                "requires_python": meta.get("requires_python"),
                "wheel_tags": _expand_tags(wheel),
                "record_present": True,
                "top_level": [],
                "packages": [],
                "missing_top_level": [],
                "self_declared": None,
            }
        )
    return sorted(dists, key=lambda d: d["name"].lower())


def synthesize(s: Scenario) -> dict[str, Any]:
    major, minor = s.python.split(".")
    full = {"3.10": "3.10.12", "3.11": "3.11.9", "3.12": "3.12.12", "3.13": "3.13.5"}[s.python]
    site = s.site or f"{s.prefix}/lib/python{s.python}/site-packages"
    doc: dict[str, Any] = {
        "schema_version": 1,
        "xladoctor_version": "0.1.0",
        "created_at": "2026-11-29T00:00:00+00:00",
        "target": {"requested": s.executable, "ok": True, "error": None},
        "python": {
            "executable": s.executable,
            "version": full,
            "implementation": "CPython",
            "cache_tag": f"cpython-{major}{minor}",
            "abiflags": "",
            "gil_disabled": False,
            "prefix": s.prefix,
            "base_prefix": s.base_prefix,
            "env_kind": s.env_kind,
            "conda_meta": s.conda_meta,
            "pyvenv_cfg": s.pyvenv_cfg,
            "sys_path": [
                "",
                f"/usr/lib/python{major}{minor}.zip",
                f"/usr/lib/python{s.python}",
                f"/usr/lib/python{s.python}/lib-dynload",
                site,
            ],
            "purelib": site,
            "user_site": {"path": f"/root/.local/lib/python{s.python}/site-packages", "enabled": False},
            "marker_env": {
                "implementation_name": "cpython",
                "implementation_version": full,
                "os_name": "posix",
                "platform_machine": "x86_64",
                "platform_release": "6.1.123+",
                "platform_system": "Linux",
                "platform_version": "#1 SMP PREEMPT_DYNAMIC",
                "python_full_version": full,
                "platform_python_implementation": "CPython",
                "python_version": s.python,
                "sys_platform": "linux",
            },
            "os": s.os_name,
            "libc": "glibc 2.35",
            "machine": "x86_64",
            "system": "Linux",
        },
        "distributions": resolve(s) if s.requirements else [],
        "leftovers": [],
        "env": dict(sorted(s.env.items())),
        "probes": [{"name": "packages", "ok": True, "duration_s": 0.1, "error": None}],
    }
    if s.edit:
        s.edit(doc)
    return doc


def dist(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in doc["distributions"] if d["name"].lower().replace("_", "-") == name)


def set_version(doc: dict[str, Any], name: str, version: str, requires: list[str] | None = None) -> None:
    d = dist(doc, name)
    d["metadata_dir"] = d["metadata_dir"].replace(d["version"], version)
    d["version"] = version
    if requires is not None:
        d["requires"] = requires


def real_snapshot(env_name: str) -> dict[str, Any]:
    from envs import ensure_env, python_of

    python = python_of(ensure_env(env_name))
    out = subprocess.run(
        [sys.executable, "-m", "xladoctor", "snapshot", "--python", str(python)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PJRT_DEVICE": "CPU"},
    )
    doc: dict[str, Any] = json.loads(out.stdout)
    doc["env"] = {k: v for k, v in doc["env"].items() if k in ("PJRT_DEVICE",)}  # keep fixtures host-independent
    return doc


def add_copy(doc: dict[str, Any], name: str, new_name: str, version: str | None = None, **changes: Any) -> None:
    """Install a second distribution shaped like `name` (a rival build of the same package)."""
    d = json.loads(json.dumps(dist(doc, name)))
    d["name"] = new_name
    d["version"] = version or d["version"]
    d["metadata_dir"] = f"{d['location']}/{new_name.replace('-', '_')}-{d['version']}.dist-info"
    d.update(changes)
    doc["distributions"].append(d)
    doc["distributions"].sort(key=lambda x: x["name"].lower())


def _missing_torch_files(doc: dict[str, Any]) -> None:
    dist(doc, "torch")["missing_top_level"] = ["torch"]
    dist(doc, "torch")["top_level"] = ["functorch", "torch", "torchgen"]
    doc["leftovers"] = ["/opt/venv/lib/python3.11/site-packages/~orch"]


def _shadow(doc: dict[str, Any]) -> None:
    user = "/root/.local/lib/python3.11/site-packages"
    doc["python"]["sys_path"].insert(4, user)
    doc["python"]["user_site"] = {"path": user, "enabled": True}
    for d in doc["distributions"]:
        d["path_index"] = 5
    add_copy(doc, "torch", "torch", "2.9.0", location=user, path_index=4, metadata_dir=f"{user}/torch-2.9.0.dist-info")


def _target_broken(doc: dict[str, Any]) -> None:
    doc["target"] = {
        "requested": "/opt/venv/bin/python",
        "ok": False,
        "error": "could not start /opt/venv/bin/python: [Errno 2] No such file or directory: '/opt/venv/bin/python'",
    }
    doc.pop("python")
    doc["probes"][0].update(ok=False, error=doc["target"]["error"])


COLAB_SITE = "/usr/local/lib/python3.12/dist-packages"
SYSTEM = dict(executable="/usr/bin/python3", prefix="/usr", base_prefix="/usr", env_kind="system", pyvenv_cfg=None)

SCENARIOS: list[Scenario] = [
    Scenario(
        "colab-gpu-healthy",
        "Colab GPU runtime: system Python 3.12, torch 2.9.0 (CUDA), TensorFlow 2.20, JAX",
        ("torch==2.9.0", "tensorflow==2.20.0", "jax==0.7.2", "jaxlib==0.7.2"),
        python="3.12",
        site=COLAB_SITE,
        env={"COLAB_RELEASE_TAG": "release-colab_20251110-060110_RC00"},
        **SYSTEM,
    ),
    Scenario(
        "colab-tpu-torch-upgraded",
        "Colab TPU runtime after `pip install -U torch`: torch 2.9.0 beside torch_xla 2.8.1",
        ("torch==2.9.0", "torch_xla[tpu]==2.8.1", "setuptools"),
        python="3.12",
        site=COLAB_SITE,
        env={"COLAB_RELEASE_TAG": "release-colab_20251110-060110_RC00", "PJRT_DEVICE": "TPU"},
        **SYSTEM,
    ),
    Scenario(
        "kaggle-tensorflow-and-tensorflow-cpu",
        "Kaggle (conda base env, pip-installed packages): `pip install tensorflow-cpu` on top of tensorflow",
        ("tensorflow==2.18.0",),
        executable="/opt/conda/bin/python",
        prefix="/opt/conda",
        base_prefix="/opt/conda",
        env_kind="conda",
        conda_meta=True,
        pyvenv_cfg=None,
        env={"KAGGLE_KERNEL_RUN_TYPE": "Interactive", "KAGGLE_URL_BASE": "https://www.kaggle.com"},
        os_name="Ubuntu 22.04.5 LTS",
        edit=lambda d: add_copy(d, "tensorflow", "tensorflow-cpu"),
    ),
    Scenario(
        "tpu-vm-healthy",
        "Cloud TPU VM: system Python 3.10, torch 2.9.0 with torch_xla[tpu] 2.9.0",
        ("torch==2.9.0", "torch_xla[tpu]==2.9.0"),
        python="3.10",
        site="/usr/local/lib/python3.10/dist-packages",
        env={"PJRT_DEVICE": "TPU"},
        **SYSTEM,
    ),
    Scenario(
        "torch-triton-mismatch",
        "torch 2.9.0 with triton 3.4.0 (pinned by another requirement file)",
        ("torch==2.9.0",),
        edit=lambda d: set_version(d, "triton", "3.4.0"),
    ),
    Scenario(
        "triton-and-pytorch-triton",
        "a nightly's pytorch-triton left beside PyPI's triton",
        ("torch==2.9.0",),
        edit=lambda d: add_copy(d, "triton", "pytorch-triton", "3.4.0+git11ec6354"),
    ),
    Scenario(
        "jax-jaxlib-mismatch-conda",
        "conda env whose jaxlib (conda-forge) is older than jax",
        ("jax==0.7.2", "jaxlib==0.7.2"),
        executable="/opt/conda/envs/ml/bin/python",
        prefix="/opt/conda/envs/ml",
        base_prefix="/opt/conda/envs/ml",
        env_kind="conda",
        conda_meta=True,
        pyvenv_cfg=None,
        installer="conda",
        edit=lambda d: set_version(d, "jaxlib", "0.6.2"),
    ),
    Scenario(
        "wheels-for-another-python",
        "site-packages built for Python 3.10 copied into a 3.11 venv",
        ("torch==2.9.0",),
        resolve_python="3.10",
    ),
    Scenario(
        "torch-xla-without-torch",
        "torch_xla installed alone (`pip install torch_xla` does not pull torch)",
        ("torch_xla==2.9.0",),
    ),
    Scenario(
        "torch-files-missing",
        "torch's files deleted by hand, and pip's `~orch` leftover",
        ("torch==2.13.0",),
        local_wheels=True,
        edit=_missing_torch_files,
    ),
    Scenario(
        "torch-shadowed-by-user-site",
        "torch 2.9.0 in ~/.local shadows torch 2.13.0 of the environment",
        ("torch==2.13.0",),
        local_wheels=True,
        edit=_shadow,
    ),
    Scenario(
        "uv-venv-torch-xla-mismatch",
        "uv-created venv: torch 2.8.0 with torch_xla 2.9.0",
        ("torch==2.8.0", "torch_xla==2.9.0"),
        installer="uv",
        pyvenv_cfg={"home": "/usr/bin", "implementation": "CPython", "uv": "0.9.5", "version_info": "3.11.9"},
    ),
    Scenario(
        "torch-nvidia-lib-mismatch",
        "torch 2.9.0 with a cuDNN wheel another package downgraded",
        ("torch==2.9.0",),
        edit=lambda d: set_version(d, "nvidia-cudnn-cu12", "9.1.0.70"),
    ),
    Scenario(
        "torch213-torchvision-xla",
        "torch 2.13.0 and torchvision 0.28.0 with torch_xla 2.9.0",
        ("torch==2.13.0", "torchvision==0.28.0", "torch_xla==2.9.0"),
    ),
    Scenario("target-broken", "the venv's base Python was removed", (), edit=_target_broken),
]
REAL = {"real-torch213-xla29": "torch213-xla29", "real-torch29-xla29": "torch29-xla29", "real-bare": "bare"}


def expected_of(doc: dict[str, Any]) -> dict[str, Any]:
    from xladoctor.diagnosis import run_diagnosis, select_checks
    from xladoctor.facts import facts_from_json

    report = run_diagnosis(facts_from_json(doc), select_checks())
    return {
        "findings": [
            {
                "id": f.id,
                "status": f.status.value,
                "title": f.title,
                "detail": f.detail,
                "remediation": list(f.remediation),
            }
            for f in report.findings
        ],
        "plan": list(report.plan.commands),
    }


def main(argv: list[str]) -> None:
    update_expected = "--expected" in argv
    names = [a for a in argv if not a.startswith("--")]
    about = {s.name: s.about for s in SCENARIOS}
    for name, env_name in REAL.items():
        about[name] = f"real: `xladoctor snapshot` of the venv tests/envs.py builds as {env_name!r}"
    for name in names or [*REAL, *(s.name for s in SCENARIOS)]:
        path = HERE / f"{name}.json"
        if not update_expected:
            scenario = next((s for s in SCENARIOS if s.name == name), None)
            doc = real_snapshot(REAL[name]) if scenario is None else synthesize(scenario)
            doc["_about"] = about[name]
            path.write_text(json.dumps(doc, indent=1) + "\n")
        doc = json.loads(path.read_text())
        doc.pop("_about", None)
        (HERE / f"{name}.expected.json").write_text(json.dumps(expected_of(doc), indent=1) + "\n")
        print("wrote", path.name)


if __name__ == "__main__":
    main(sys.argv[1:])
