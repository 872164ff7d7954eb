"""How the facts fixtures in this folder were made (a developer tool; the tests never run it).

Two kinds of fixture:
- `real-*`: `xladoctor snapshot` of the real venvs that tests/envs.py builds.
- the others: environments of hosted platforms and broken installs that cannot be built here. Their
  distributions come from pip's resolver (`pip install --dry-run --report`) for the named Python and
  platform, so every name, version, Requires-Dist and Requires-Python is what PyPI's wheels declare;
  the paths, environment variables and the one breakage each case is about are set as the case says.

Usage: python tests/facts/make_fixtures.py [--expected | --resolve | --cases] [NAME...]  (see main's docstring)
  NAME.expected.json holds what the diagnosis finds wrong there (warn, fail, error) and its fix plan: review every
  diff by hand. What each check says when it passes or skips is in its cases, tests/checks/<check-id>.json.
  A fixture recorded on another machine (RECORDED_ELSEWHERE) is added once with
  RECORDED_SNAPSHOT=path/to/its/snapshot.json and never rewritten.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import Version

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


RESOLVED = HERE / "resolved.json"  # what pip's resolver chose for each scenario: the offline source of fixtures
_ASKED: set[str] = set()
_ASK_AGAIN: set[str] = set()  # scenarios named on the command line with --resolve: resolved again even if stored


def _resolution_key(s: Scenario) -> str:
    return f"python {s.resolve_python or s.python}: {' '.join(s.requirements)}"


def pip_resolve(s: Scenario) -> list[dict[str, Any]]:
    """Ask pip's resolver (the package index) which wheels it would install for the scenario: `--resolve` only."""
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
    return [
        {
            "name": item["metadata"]["name"],
            "version": item["metadata"]["version"],
            "requires_dist": item["metadata"].get("requires_dist", []),
            "requires_python": item["metadata"].get("requires_python"),
            "wheel": item["download_info"]["url"].rsplit("/", 1)[-1].replace("%2B", "+"),
        }
        for item in items
    ]


def resolve(s: Scenario, refresh: bool = False) -> list[dict[str, Any]]:
    """Distributions pip would install for the scenario, as facts; read from resolved.json (offline)."""
    store = json.loads(RESOLVED.read_text()) if RESOLVED.exists() else {}
    key = _resolution_key(s)
    if (refresh and s.name in _ASK_AGAIN and key not in _ASKED) or key not in store:
        if not refresh:
            command = f"python {Path(__file__).name} --resolve {s.name}"
            sys.exit(f"{RESOLVED.name} has no resolution for {key!r}: run `{command}` (needs the package index)")
        store[key] = pip_resolve(s)
        _ASKED.add(key)  # scenarios that share requirements share one answer per run
        RESOLVED.write_text(json.dumps(dict(sorted(store.items())), indent=1) + "\n")
    site = s.site or f"{s.prefix}/lib/python{s.python}/site-packages"
    dists = []
    for item in store[key]:
        dists.append(
            {
                "name": item["name"],
                "version": item["version"],
                "location": site,
                "metadata_dir": f"{site}/{item['name'].replace('-', '_')}-{item['version']}.dist-info",
                "path_index": 4,
                "installer": s.installer,
                "requires": item["requires_dist"],
                "requires_python": item["requires_python"],
                "wheel_tags": _expand_tags(item["wheel"]),
                "record_present": True,
                "top_level": [],
                "packages": [],
                "missing_top_level": [],
                "self_declared": None,
            }
        )
    return sorted(dists, key=lambda d: d["name"].lower())


def synthesize(s: Scenario, refresh: bool = False) -> dict[str, Any]:
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
        "distributions": resolve(s, refresh) if s.requirements else [],
        "leftovers": [],
        "env": dict(sorted(s.env.items())),
        "probes": [{"name": "packages", "ok": True, "duration_s": 0.1, "error": None}],
    }
    if s.edit:
        s.edit(doc)
    as_probed(doc)
    extra_tools = doc.pop("_tools", [])
    if extra_tools and doc.get("system"):
        doc["system"]["tools"].extend(extra_tools)
    return complete(doc)


# torch's Linux x86_64 wheels on PyPI pin the CUDA runtime they were built with (Requires-Dist), and
# torch/version.py says the same as `cuda`; a torch without such a pin (the local CPU wheel) is a CPU build.
_CUDA_RUNTIME_PIN = re.compile(r"^nvidia-cuda-runtime(?:-cu\d+)?\s*==\s*(\d+)\.(\d+)")


def torch_declared(torch: dict[str, Any]) -> dict[str, Any]:
    """torch/version.py as the probe reads it, derived from the wheel's own Requires-Dist."""
    pins = [m for r in torch["requires"] if (m := _CUDA_RUNTIME_PIN.match(r))]
    cuda = f"{pins[0].group(1)}.{pins[0].group(2)}" if pins else None
    label = "" if "+" in torch["version"] else (f"+cu{cuda.replace('.', '')}" if cuda else "+cpu")
    values = {"__version__": torch["version"] + label, "debug": False, "cuda": cuda, "hip": None, "xpu": None}
    return {"file": "torch/version.py", "values": values}


def as_probed(doc: dict[str, Any]) -> None:
    """Fill in what the probes write for these wheels where the case did not say otherwise, so that a fixture
    holds every key a real snapshot holds, with the values such an install really has."""
    for d in doc.get("distributions", []):
        key = d["name"].lower().replace("_", "-")
        if key == "torch-xla" and Version(d["version"]) >= Version("2.5"):  # torch_xla's setup.py (v2.5.0 .. v2.9.0)
            d["entry_points"] = {"torch_xla.plugins": ["neuron", "tpu", "xpu"]}
        if key == "torch" and d.get("self_declared") is None:
            d["self_declared"] = torch_declared(d)
        if key == "triton":  # PyPI's triton wheels bundle ptxas (triton/backends/nvidia/bin/ptxas)
            d.setdefault("bundled_tools", {"triton/backends/nvidia/bin/ptxas": True})
    python = doc.get("python")
    if python is not None:
        python.setdefault("include", f"/usr/include/python{python['marker_env']['python_version']}")
        python.setdefault("python_h", True)
        python.setdefault("externally_managed", None)  # a venv: PEP 668 does not apply
    if "system" not in doc:  # every probe run describes its host: a GPU one for a CUDA torch, else a CPU one
        torch = next((d for d in doc.get("distributions", []) if d["name"] == "torch"), None)
        cuda = torch is not None and (torch.get("self_declared") or {}).get("values", {}).get("cuda")
        doc["system"] = host("570.124.06", (("NVIDIA L4", "8.9", 23034),)) if cuda else host()
    if doc["system"] is not None and len(doc["probes"]) == 1:
        parts = (
            "nvidia",
            "tools",
            "cuda_toolkits",
            "libraries",
            "resources",
            "env_paths",
            "compile_caches",
            "fabric",
            "tpu",
            "gpu_health",
        )
        doc["probes"] += [{"name": p, "ok": True, "duration_s": 0.05, "error": None} for p in parts]


def complete(doc: dict[str, Any]) -> dict[str, Any]:
    """The snapshot as `xladoctor snapshot` writes it: through the Facts model, every key present."""
    from xladoctor.facts import facts_from_json

    return facts_from_json(doc).to_json()


def dist(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in doc["distributions"] if d["name"].lower().replace("_", "-") == name)


def set_version(doc: dict[str, Any], name: str, version: str, requires: list[str] | None = None) -> None:
    d = dist(doc, name)
    d["metadata_dir"] = d["metadata_dir"].replace(d["version"], version)
    d["version"] = version
    if requires is not None:
        d["requires"] = requires


def real_snapshot(env_name: str, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    from envs import ensure_env, python_of

    python = python_of(ensure_env(env_name))
    variables = {"PJRT_DEVICE": "CPU", **(extra_env or {})}
    out = subprocess.run(
        [sys.executable, "-m", "xladoctor", "snapshot", "--python", str(python)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **variables},
    )
    doc: dict[str, Any] = json.loads(out.stdout)
    doc["env"] = {k: v for k, v in doc["env"].items() if k in variables}  # keep fixtures host-independent
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


def _target_failed(requested: str, error: str, **target: Any) -> Callable[[dict[str, Any]], None]:
    """A target interpreter that did not answer the probe: the collector records why, and no python facts."""

    def edit(doc: dict[str, Any]) -> None:
        doc["target"] = {"requested": requested, "ok": False, "error": error, **target}
        doc.pop("python")
        doc["probes"][0].update(ok=False, error=error)

    return edit


# the venv's python is a link to a base Python that was removed: the kernel says ENOENT for the link itself
_target_broken = _target_failed(
    "/opt/venv/bin/python",
    "could not start /opt/venv/bin/python: [Errno 2] No such file or directory: '/opt/venv/bin/python'",
    venv_home="/usr/bin",
    venv_base_exists=False,
)


def host(
    driver: str | None = None,
    gpus: tuple[tuple[str, str, int], ...] = (),
    nvcc: str | None = None,
    compilers: bool = True,
    ninja: str | None = None,
    toolkits: tuple[tuple[str, str], ...] = (),
    ld_library_path: str | None = None,
    ld_libs: dict[str, list[str]] | None = None,
    shm_mib: int = 32768,
    cpus: int = 32,
    cgroup_cpus: float | None = None,
    memory_gib: int = 256,
    cgroup_memory_gib: int | None = None,
    disk_gib: int = 200,
    container: str | None = None,
    caches: dict[str, str] | None = None,
    compile_caches: dict[str, Any] | None = None,
    fabric: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A `system` section in the shapes the host probes write (nvidia-smi's CSV, nvcc --version, ...)."""
    attempts = [{"method": "nvml", "ok": False, "error": "nvidia-ml-py is not installed", "path": None}]
    if driver:
        attempts.append({"method": "proc", "ok": True, "error": None, "path": None})
        attempts.append({"method": "nvidia-smi", "ok": True, "error": None, "path": "/usr/bin/nvidia-smi"})
    else:
        attempts.append(
            {
                "method": "proc",
                "ok": False,
                "error": "/proc/driver/nvidia/version: No such file or directory",
                "path": None,
            }
        )
        attempts.append({"method": "nvidia-smi", "ok": False, "error": "nvidia-smi is not on PATH", "path": None})
    tools = [
        {
            "name": "nvcc",
            "path": f"/usr/local/cuda-{nvcc.rsplit('.', 1)[0]}/bin/nvcc" if nvcc else None,
            "version": nvcc,
            "error": None if nvcc else "not on PATH",
        }
    ]
    for name in ("cc", "gcc", "c++", "g++"):
        real = "/usr/bin/x86_64-linux-gnu-" + ("g++-11" if "+" in name else "gcc-11")
        tools.append(
            {
                "name": name,
                "path": real if compilers else None,
                "version": "11.4.0" if compilers else None,
                "error": None if compilers else "not on PATH",
            }
        )
    # the probe asks PATH for every tool of probes/toolchain.py TOOLS
    tools += [{"name": n, "path": None, "version": None, "error": "not on PATH"} for n in ("clang", "clang++")]
    tools.append(
        {"name": "ninja", "path": "/usr/bin/ninja", "version": ninja, "error": None}
        if ninja
        else {"name": "ninja", "path": None, "version": None, "error": "not on PATH"}
    )
    ld_entries = []
    for entry in ld_library_path.split(":") if ld_library_path is not None else []:
        libs = (ld_libs or {}).get(entry, [])
        ld_entries.append({"entry": entry, "exists": entry in (ld_libs or {}) or entry == ".", "libraries": libs})
    return {
        "nvidia": {
            "source": "proc" if driver else None,
            "driver_version": driver,
            "cuda_version": None,
            "gpus": [
                {
                    "index": i,
                    "name": n,
                    "compute_capability": cc,
                    "memory_mib": mem,
                    "mig_mode": "Disabled" if "H100" in n or "A100" in n else None,
                    "driver_version": driver,
                }
                for i, (n, cc, mem) in enumerate(gpus)
            ],
            "attempts": attempts,
        },
        "tools": tools,
        "cuda_toolkits": [{"path": p, "realpath": p, "exists": True, "version": v, "nvcc": True} for p, v in toolkits],
        "libraries": {
            "ldconfig": {
                "libgomp.so.1": ["/lib/x86_64-linux-gnu/libgomp.so.1"],
                "libstdc++.so.6": ["/lib/x86_64-linux-gnu/libstdc++.so.6"],
            },
            "ldconfig_error": None,
            "glibc": "glibc 2.35",
            "glibcxx": "3.4.30",
            "ld_library_path": ld_entries,
        },
        "resources": {
            "cpu_count": cpus,
            "cpu_affinity": cpus,
            "cgroup_cpus": cgroup_cpus,
            "memory_bytes": memory_gib << 30,
            "cgroup_memory_bytes": cgroup_memory_gib << 30 if cgroup_memory_gib else None,
            "shm_bytes": shm_mib << 20,
            "disk_free": {"/root/.cache": disk_gib << 30, "/tmp": disk_gib << 30},
            "devices": [f"/dev/nvidia{i}" for i in range(len(gpus))] + (["/dev/nvidiactl"] if gpus else []),
            "container": container,
            "caches": caches or {},
        },
        "compile_caches": compile_caches or cache_dirs(),
        "fabric": fabric if fabric is not None else fabric_of(driver, gpus, container),
        # probes/tpu.py on a host with no TPU device and no libtpu lock file: who it is, nothing scanned
        "tpu": {"uid": 0, "pid": 4321},
        "gpu_health": health_of(driver, gpus),
    }


# PCIe generation of each GPU model the fixtures use (its data sheet), all on x16 links
_PCIE_GEN = {"H100": 5, "H200": 5, "B200": 5, "A100": 4, "L4": 4, "A10": 4, "T4": 3, "V100": 3, "RTX": 4}


def health_of(driver: str | None, gpus: tuple[tuple[str, str, int], ...]) -> dict[str, Any]:
    """The `gpu_health` section probes/gpu_health.py writes for healthy GPUs, as `nvidia-smi -q -x` reports them
    (NVML absent, as on most hosts): ECC on and clean, nothing pending, links at full width, persistence on (the
    daemon NVIDIA recommends), MIG as the nvidia section says; the kernel ring buffer readable, without Xid."""
    attempts: list[dict[str, Any]] = [
        {"method": "nvml", "ok": False, "error": "nvidia-ml-py is not installed", "duration_s": 0.08}
    ]
    kernel_log = {"source": "/dev/kmsg", "readable": True, "events": [], "more_events": 0, "boots_skipped": 0}
    if not driver or not gpus:
        attempts.append({"method": "nvidia-smi-xml", "ok": False, "error": "nvidia-smi is not on PATH"})
        return {"source": None, "attempts": attempts, "gpus": [], "kernel_log": kernel_log}
    attempts.append({"method": "nvidia-smi-xml", "ok": True, "path": "/usr/bin/nvidia-smi", "duration_s": 0.4})
    health = []
    for index, (name, cc, _memory) in enumerate(gpus):
        ampere = float(cc) >= 8.0
        gen = next((g for model, g in _PCIE_GEN.items() if model in name), 4)
        health.append(
            {
                "index": index,
                "bus_id": f"00000000:{0x18 + 0x10 * index:02X}:00.0",
                "uuid": f"GPU-{index:08x}-0000-4000-8000-{index:012x}",
                "name": name,
                "ecc_enabled": True,
                "ecc_volatile_uncorrectable": 0,
                "ecc_aggregate_uncorrectable": 0,
                "ecc_volatile_correctable": 0,
                "retired_pages_sbe": None if ampere else 0,
                "retired_pages_dbe": None if ampere else 0,
                "retired_pages_pending": None if ampere else False,
                "remapped_rows_correctable": 0 if ampere else None,
                "remapped_rows_uncorrectable": 0 if ampere else None,
                "remapped_rows_pending": False if ampere else None,
                "remapped_rows_failure": False if ampere else None,
                "reset_required": False,
                "drain_and_reset_recommended": False,
                "pcie_gen_current": gen,
                "pcie_gen_max": gen,
                "pcie_width_current": 16,
                "pcie_width_max": 16,
                "performance_state": "P0",
                "temperature_c": 34,
                "slowdown_temperature_c": 87,
                "shutdown_temperature_c": 92,
                "persistence_mode": True,
                "mig_current": "Disabled" if "H100" in name or "A100" in name else None,
                "mig_pending": "Disabled" if "H100" in name or "A100" in name else None,
            }
        )
    return {"source": "nvidia-smi-xml", "attempts": attempts, "gpus": health, "kernel_log": kernel_log}


def cache_folder(owner: str, path: str, source: str = "default", **changes: Any) -> dict[str, Any]:
    """One compile cache folder as probes/caches.py records it: by default there, writable, local ext4."""
    variable = {"inductor": "TORCHINDUCTOR_CACHE_DIR", "triton": "TRITON_CACHE_DIR"}.get(
        owner, "JAX_COMPILATION_CACHE_DIR"
    )
    folder = {"owner": owner, "variable": variable, "path": path, "source": source, "exists": True}
    folder.update(existing_parent=path, writable=True, fs_type="ext4", read_only=False, free_inodes=12_000_000)
    return {**folder, **changes}


def cache_dirs(uid: int = 0, user: str = "root", home: str | None = "/root", **changes: Any) -> dict[str, Any]:
    """The compile caches of a host: root's by default, Inductor's in /tmp and Triton's in ~/.triton/cache."""
    doc = {
        "uid": uid,
        "user": user,
        "local_base": "/tmp",
        "passwd_entry": True,
        "user_variable": None,
        "home_set": home is not None,
        "home": home,
        "home_writable": home is not None,
        "dirs": [
            cache_folder("inductor", f"/tmp/torchinductor_{user}"),
            cache_folder("triton", f"{home or '/root'}/.triton/cache"),
        ],
    }
    return {**doc, **changes}


# PCI ids as lspci shows them on HGX boards: "Bridge [0680]: NVIDIA Corporation GH100 [H100 NVSwitch] [10de:22a3]"
# beside "3D controller [0302]: ... GH100 [H200 SXM 141GB] [10de:2335]" (bigstack-oss/cubecos#259); A100's six
# switches are GA100 [A100 NVSwitch] 10de:1af1. The GPUs' own ids are left out (None): no check reads them.
NVSWITCHES = {"8.0": ("0x1af1", 6), "9.0": ("0x22a3", 4)}
NOT_ASKED = "not asked: no NVSwitch and fewer than two NVIDIA GPUs on PCI"
FM_ACTIVE = {"LoadState": "loaded", "ActiveState": "active", "SubState": "running", "Result": "success"}
FM_ABSENT = {"LoadState": "not-found", "ActiveState": "inactive", "SubState": "dead", "Result": "success"}
SYSTEMD_IN_CONTAINER = (
    "systemctl exited with status 1: System has not been booted with systemd as init system (PID 1). Can't operate."
)
NO_FM_BINARY = "nv-fabricmanager is not installed (not on PATH, nor in /usr/bin or /usr/sbin)"


def fabric_of(
    driver: str | None,
    gpus: tuple[tuple[str, str, int], ...],
    container: str | None = None,
    fabricmanager: dict[str, str] | None = None,
    fm_version: str | None = "driver",
    state: str | None = None,
) -> dict[str, Any]:
    """The `fabric` section the probe writes. An 8-GPU SXM board has its NVSwitches on PCI and Fabric Manager
    running at the driver's version (fabric registration Completed on Hopper, N/A on Ampere); two PCIe GPUs or more
    get the tools asked (systemd knows no such unit); one GPU or none, the tools are not asked. In a container
    systemd cannot answer and /proc shows only the container's processes."""
    pci = [
        {"address": f"0000:{0x18 + 0x10 * i:02x}:00.0", "pci_class": "0x030200", "device": None}
        for i in range(len(gpus))
    ]
    if len(gpus) < 2:
        return {
            "nvidia_pci": pci,
            "fabricmanager_error": NOT_ASKED,
            "fabricmanager_version_error": NOT_ASKED,
            "gpu_fabric_error": NOT_ASKED,
        }
    board = len(gpus) >= 8 and all("SXM" in n or "HBM3" in n for n, _, _ in gpus)
    switches = None
    if board:
        device, switches = NVSWITCHES[gpus[0][1]]
        pci = [
            {"address": f"0000:{5 + i:02x}:00.0", "pci_class": "0x068000", "device": device} for i in range(switches)
        ] + pci
    unit = fabricmanager if fabricmanager is not None else (FM_ACTIVE if board else FM_ABSENT)
    version = (driver if board else None) if fm_version == "driver" else fm_version
    if state is None and board and float(gpus[0][1]) >= 9.0:
        state = "Completed"
    return {
        "nvidia_pci": pci,
        "nvswitch_devices": switches,
        "fabricmanager": None if container else unit,
        "fabricmanager_error": SYSTEMD_IN_CONTAINER if container else None,
        "fabricmanager_running": False if container else unit.get("ActiveState") == "active",
        "fabricmanager_version": None if container else version,
        "fabricmanager_version_error": NO_FM_BINARY if container or not version else None,
        "gpu_fabric": [
            {"index": i, "state": state, "status": "Success" if state == "Completed" else None}
            for i in range(len(gpus))
        ],
    }


H100_BOARD = tuple(("NVIDIA H100 80GB HBM3", "9.0", 81559) for _ in range(8))
NCCL_LIB = "nvidia/nccl/lib/libnccl.so.2"  # in the RECORD of every nvidia-nccl-cuXX wheel (research r2 2.2)


def _leftover_cu12_wheels(doc: dict[str, Any]) -> None:
    """The nvidia-*-cu12 wheels torch 2.9.0 brought, left behind by an upgrade to a CUDA 13 torch."""
    site = dist(doc, "torch")["location"]
    old = [d for d in resolve(Scenario("torch-2.9.0-wheels", "", ("torch==2.9.0",))) if d["name"].endswith("-cu12")]
    for d in old:
        d.update(location=site, metadata_dir=f"{site}/{d['name'].replace('-', '_')}-{d['version']}.dist-info")
        if d["name"] == "nvidia-nccl-cu12":
            d["shared_libs"] = [NCCL_LIB]
    doc["distributions"] = sorted(doc["distributions"] + old, key=lambda x: x["name"].lower())
    dist(doc, "nvidia-nccl-cu13")["shared_libs"] = [NCCL_LIB]


def _jax_cuda_extra_wheels(doc: dict[str, Any]) -> None:
    """What `jax[cuda12]` installs beyond torch's wheels: the wheels its CUDA plugin's `with-cuda` extra names."""
    plugin = dist(doc, "jax-cuda12-plugin")
    have = {d["name"].lower() for d in doc["distributions"]}
    for text in plugin["requires"]:
        if 'extra == "with-cuda"' not in text:
            continue
        name = re.split(r"[<>=!~;\[ ]", text, maxsplit=1)[0].lower()
        if name not in have:
            minimum = re.search(r">=([\w.]+)", text)
            add_copy(doc, "nvidia-cuda-runtime-cu12", name, minimum.group(1) if minimum else "12.6.85", requires=[])
            have.add(name)


def _source_built_torch(doc: dict[str, Any]) -> None:
    torch = dist(doc, "torch")
    torch.update(
        installer=None,
        wheel_tags=["cp311-cp311-linux_x86_64"],
        shared_libs=[
            "torch/lib/libc10.so",
            "torch/lib/libtorch.so",
            "torch/lib/libtorch_cpu.so",
            "torch/lib/libtorch_python.so",
            "torch/lib/libshm.so",
        ],
    )


def _ptxas(dist_name: str, version: str) -> Callable[[dict[str, Any]], None]:
    """A dist that bundles ptxas, and the tool entry the collector writes after running `ptxas --version`."""

    def edit(doc: dict[str, Any]) -> None:
        rel = "triton/backends/nvidia/bin/ptxas"
        d = dist(doc, dist_name)
        d["bundled_tools"] = {rel: True}
        doc.setdefault("_tools", []).append(
            {"name": f"ptxas ({d['name']})", "path": f"{d['location']}/{rel}", "version": version, "error": None}
        )

    return edit


def _glibc(version: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["python"]["libc"] = f"glibc {version}"

    return edit


def _glibc_host(glibc: str) -> dict[str, Any]:
    system = host("570.124.06", (("NVIDIA A10G", "8.6", 23028),))
    system["libraries"]["glibc"] = glibc
    return system


def _without_libgomp() -> dict[str, Any]:
    system = host(None, (), cpus=8, memory_gib=32)
    del system["libraries"]["ldconfig"]["libgomp.so.1"]
    return system


def _smi_hangs() -> dict[str, Any]:
    """A host whose driver is wedged: /proc still names the driver, nvidia-smi does not answer within 15 s."""
    system = host("570.124.06", ())
    system["nvidia"]["attempts"][-1].update(
        ok=False, error="nvidia-smi timed out after 15.0s and was killed", timed_out=True, duration_s=15.003
    )
    system["resources"]["devices"] = ["/dev/nvidia0", "/dev/nvidiactl"]
    # PCI still lists the eight GPUs (no NVSwitch), so the fabric probe asked its tools: nvidia-smi hung there too
    eight = tuple(("NVIDIA A10G", "8.6", 23028) for _ in range(8))
    system["fabric"] = fabric_of("570.124.06", eight)
    system["fabric"].update(gpu_fabric=[], gpu_fabric_error="nvidia-smi timed out after 15.0s and was killed")
    return system


def tpu_host(chips: int) -> dict[str, Any]:
    """A TPU VM: no NVIDIA driver, TPU chips as /dev/accel*; the TPU probe looked at every process, none holds one."""
    system = host(None, (), cpus=96 if chips > 1 else 44, memory_gib=335 if chips > 1 else 47)
    system["resources"]["devices"] = [f"/dev/accel{i}" for i in range(chips)]
    system["tpu"] = {"uid": 0, "pid": 4321, "processes": 187, "unreadable": 0, "complete": True, "holders": []}
    return system


def stale_root_lockfile(chips: int) -> dict[str, Any]:
    """A TPU VM where a `sudo python` run crashed: root's /tmp/libtpu_lockfile (mode 0644) is left, no process holds
    it (/proc/locks has no lock on it), and the user (uid 1000) who runs xladoctor cannot open it for writing."""
    system = tpu_host(chips)
    system["tpu"] = {
        "lockfile": "/tmp/libtpu_lockfile",
        "lock_uid": 0,
        "lock_writable": False,
        "lock_pids": [],
        "locks_read": True,
        "holders": [],
        "processes": 142,
        "unreadable": 61,
        "complete": True,
        "uid": 1000,
        "pid": 4321,
    }
    return system


def vfio_tpu_host(chips: int) -> dict[str, Any]:
    """A TPU v5e/v6e VM: the chips show as /dev/vfio/<n> beside the /dev/vfio/vfio control node."""
    system = tpu_host(chips)
    system["resources"]["devices"] = [f"/dev/vfio/{i}" for i in range(chips)] + ["/dev/vfio/vfio"]
    return system


# Kaggle/docker-python tpu/Dockerfile: `ENV TPU_PROCESS_ADDRESSES=local`; the KAGGLE_* variables every kernel has.
KAGGLE_TPU_ENV = {
    "KAGGLE_KERNEL_RUN_TYPE": "Interactive",
    "KAGGLE_URL_BASE": "https://www.kaggle.com",
    "TPU_PROCESS_ADDRESSES": "local",
}
# torch_xla/_internal/tpu.py configure_one_chip_topology and pjrt.py initialize_singleprocess (v2.8, v2.9)
ONE_CHIP_LEFTOVERS = {
    "TPU_VISIBLE_CHIPS": "0",
    "TPU_CHIPS_PER_PROCESS_BOUNDS": "1,1,1",
    "TPU_PROCESS_BOUNDS": "1,1,1",
    "PJRT_LOCAL_PROCESS_COUNT": "1",
}


def torch_build(version: str, cuda: str | None) -> Callable[[dict[str, Any]], None]:
    """torch/version.py as the probe reads it."""

    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["self_declared"] = {
            "file": "torch/version.py",
            "values": {"__version__": version, "debug": False, "cuda": cuda, "hip": None, "xpu": None},
        }

    return edit


# tensorflow/python/platform/build_info.py of the tensorflow and tensorflow-cpu 2.20.0 wheels, as the probe reads it
TF_CUDA_BUILD = {
    "cpu_compiler": "clang 18",
    "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"],
    "cuda_version": "12.5.1",
    "cudnn_version": "9",
    "is_cuda_build": True,
    "is_rocm_build": False,
    "is_tensorrt_build": False,
}
TF_CPU_BUILD = {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False}


def tf_build(name: str, info: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, name)["self_declared"] = {
            "file": "tensorflow/python/platform/build_info.py",
            "values": {"build_info": info},
        }

    return edit


def both(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        for e in edits:
            e(doc)

    return edit


def with_host(system: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"] = system

    return edit


def with_ldconfig(entries: dict[str, list[str]]) -> Callable[[dict[str, Any]], None]:
    """More libraries in ldconfig's cache, as `ldconfig -p` lists them."""

    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["libraries"]["ldconfig"].update(entries)

    return edit


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
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            tf_build("tensorflow", TF_CUDA_BUILD),
            with_host(
                host(
                    "580.95.05",
                    (("NVIDIA A100-SXM4-40GB", "8.0", 40960),),
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-12.8", "12.8.93"),),
                    shm_mib=43008,
                    cpus=12,
                    memory_gib=83,
                )
            ),
        ),
        **SYSTEM,
    ),
    Scenario(
        "colab-tpu-torch-upgraded",
        "Colab TPU runtime after `pip install -U torch`: torch 2.9.0 beside torch_xla 2.8.1",
        ("torch==2.9.0", "torch_xla[tpu]==2.8.1", "setuptools"),
        python="3.12",
        site=COLAB_SITE,
        env={"COLAB_RELEASE_TAG": "release-colab_20251110-060110_RC00", "PJRT_DEVICE": "TPU"},
        edit=both(torch_build("2.9.0+cu128", "12.8"), with_host(tpu_host(1))),
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
        edit=both(
            tf_build("tensorflow", TF_CUDA_BUILD),
            lambda d: add_copy(d, "tensorflow", "tensorflow-cpu"),
            with_host(host(cpus=4, memory_gib=31)),
        ),
    ),
    Scenario(
        "tpu-vm-healthy",
        "Cloud TPU VM: system Python 3.10, torch 2.9.0 with torch_xla[tpu] 2.9.0",
        ("torch==2.9.0", "torch_xla[tpu]==2.9.0"),
        python="3.10",
        site="/usr/local/lib/python3.10/dist-packages",
        env={"PJRT_DEVICE": "TPU"},
        edit=both(torch_build("2.9.0+cu128", "12.8"), with_host(tpu_host(4))),
        **SYSTEM,
    ),
    Scenario(
        "tpu-vm-torch-xla-beside-jax",
        "Cloud TPU v4-8 VM, Python 3.11 venv: torch 2.9.0 and torch_xla[tpu] 2.9.0 (libtpu 0.0.21), then "
        "`pip install jax==0.7.2 jaxlib==0.7.2` for a JAX script: jax's tpu extra pins libtpu 0.0.23",
        ("torch==2.9.0", "torch_xla[tpu]==2.9.0", "jax==0.7.2", "jaxlib==0.7.2"),
        env={"PJRT_DEVICE": "TPU"},
        edit=both(torch_build("2.9.0+cu128", "12.8"), with_host(tpu_host(4))),
    ),
    Scenario(
        "tpu-vm-stale-root-lockfile",
        "Cloud TPU VM after a `sudo python train.py` that crashed: root's /tmp/libtpu_lockfile is left and the "
        "user (uid 1000) cannot open it, so libtpu refuses the TPU",
        ("torch==2.9.0", "torch_xla[tpu]==2.9.0"),
        python="3.10",
        site="/usr/local/lib/python3.10/dist-packages",
        env={"PJRT_DEVICE": "TPU"},
        edit=both(torch_build("2.9.0+cu128", "12.8"), with_host(stale_root_lockfile(4))),
        **SYSTEM,
    ),
    Scenario(
        "tpu-vm-topology-leftovers",
        "Cloud TPU v4-8 VM (4 chips) whose ~/.bashrc exports the one-chip recipe of torch_xla's PJRT docs "
        "(TPU_PROCESS_BOUNDS=1,1,1 TPU_VISIBLE_CHIPS=0); torch_xla.launch then starts one process",
        ("torch==2.9.0", "torch_xla[tpu]==2.9.0"),
        python="3.10",
        site="/usr/local/lib/python3.10/dist-packages",
        env={"PJRT_DEVICE": "TPU", "TPU_PROCESS_BOUNDS": "1,1,1", "TPU_VISIBLE_CHIPS": "0"},
        edit=both(torch_build("2.9.0+cu128", "12.8"), with_host(tpu_host(4))),
        **SYSTEM,
    ),
    Scenario(
        "kaggle-tpu-single-process-leftovers",
        "Kaggle TPU v5e-8 notebook (Kaggle/docker-python tpu/: Python 3.12, torch and torch_xla 2.8.0) after a "
        "cell ran torch_xla.launch(..., debug_single_process=True): the one-chip topology stays in the kernel",
        ("torch==2.8.0", "torch_xla[tpu]==2.8.0"),
        python="3.12",
        executable="/usr/local/bin/python",
        prefix="/usr/local",
        base_prefix="/usr/local",
        env_kind="system",
        pyvenv_cfg=None,
        site="/usr/local/lib/python3.12/site-packages",
        env={**KAGGLE_TPU_ENV, **ONE_CHIP_LEFTOVERS, "PJRT_DEVICE": "TPU"},
        os_name="Debian GNU/Linux 12 (bookworm)",
        edit=both(torch_build("2.8.0+cu128", "12.8"), with_host(vfio_tpu_host(8))),
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
        "gpu-torch-xla-28-defaults-to-cuda",
        "torch 2.8.0 (CUDA 12.8) and PyPI's torch_xla 2.8.0 on an L4 host with PJRT_DEVICE unset (installed for a "
        "library that imports torch_xla when it is there): torch_xla 2.8 sets PJRT_DEVICE=CUDA by itself",
        ("torch==2.8.0", "torch_xla==2.8.0"),
        edit=torch_build("2.8.0+cu128", "12.8"),
    ),
    Scenario(
        "py313-torch27-beside-torch-xla-28",
        "Python 3.13 venv: torch 2.7.1 pinned by another requirement, then `pip install torch_xla` took 2.8.0; "
        "torch_xla 2.7 (the release for torch 2.7) has no cp313 wheel, so torch moves up to 2.8",
        ("torch==2.7.1", "torch_xla==2.8.0"),
        python="3.13",
        pyvenv_cfg={"home": "/usr/bin", "version": "3.13.5"},
        env={"PJRT_DEVICE": "CPU"},
        edit=torch_build("2.7.1+cu126", "12.6"),
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
    Scenario(
        "target-python2",
        "--python pointed at a Python 2.7 (pyenv): the probe's bootstrap reports the version and stops",
        (),
        edit=_target_failed(
            "/root/.pyenv/versions/2.7.18/bin/python",
            "unsupported Python 2.7.18: xladoctor diagnoses Python 3.8 and newer",
            unsupported_python="2.7.18",
        ),
    ),
    Scenario(
        "target-hangs-pyenv-python",
        "a pyenv Python (not a venv: its base is itself) whose sitecustomize hangs: the probe times out; "
        "`venv --upgrade` would write a pyvenv.cfg into the pyenv install, so no such fix is offered",
        (),
        edit=_target_failed(
            "/root/.pyenv/versions/3.11.7/bin/python",
            "timed out after 60.0s and was killed",
        ),
    ),
    # --- GPU machines: host facts in the shapes nvidia-smi, nvcc and the kernel report them ----------
    Scenario(
        "gpu-h100-healthy",
        "8x H100 80GB, driver 570.124.06, torch 2.9.0 (cu128), nvcc 12.8, ninja 1.11.1 from the OS",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    tuple(("NVIDIA H100 80GB HBM3", "9.0", 81559) for _ in range(8)),
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-12.8", "12.8.93"),),
                    shm_mib=1 << 19,
                    ninja="1.11.1",
                )
            ),
        ),
    ),
    Scenario(
        "gpu-hgx-h100-no-fabric-manager",
        "the 8x H100 SXM board (four NVSwitches on PCI) with driver 570.124.06 and no nvidia-fabricmanager unit: "
        "the GPUs stay 'In Progress' in fabric registration and CUDA fails with error 802",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    H100_BOARD,
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-12.8", "12.8.93"),),
                    shm_mib=1 << 19,
                    ninja="1.11.1",
                    fabric=fabric_of(
                        "570.124.06", H100_BOARD, fabricmanager=FM_ABSENT, fm_version=None, state="In Progress"
                    ),
                )
            ),
        ),
    ),
    Scenario(
        "torch-nccl-cu12-and-cu13",
        "`pip install -U torch` from 2.9.0 (CUDA 12 wheels) to 2.11.0 (CUDA 13 wheels) on an L4: the cu12 wheels "
        "stay behind, nvidia-nccl-cu12 among them, beside nvidia-nccl-cu13 (both write nvidia/nccl/lib/libnccl.so.2)",
        ("torch==2.11.0",),
        edit=both(
            torch_build("2.11.0+cu130", "13.0"),
            _leftover_cu12_wheels,
            with_host(host("580.95.05", (("NVIDIA L4", "8.9", 23034),))),
        ),
    ),
    Scenario(
        "torch27-jax06-cudnn-conflict",
        "`pip install 'jax[cuda12]==0.6.0'`, then `pip install torch==2.7.1`, on an L4: torch's cuDNN pin "
        "(nvidia-cudnn-cu12==9.5.1.17) replaced the one jax's CUDA plugin requires (>=9.8,<10.0); none satisfies both",
        ("torch==2.7.1", "jax==0.6.0", "jaxlib==0.6.0", "jax-cuda12-plugin==0.6.0"),
        edit=both(
            torch_build("2.7.1+cu126", "12.6"),
            _jax_cuda_extra_wheels,
            with_host(host("570.124.06", (("NVIDIA L4", "8.9", 23034),))),
        ),
    ),
    Scenario(
        "gpu-torch-no-deps",
        "`pip install --no-deps torch==2.9.0` on the H100 host: torch alone, none of the nvidia-* wheels, Triton or "
        "the pure-Python requirements it declares; one cause, one finding, one install command",
        ("torch==2.9.0",),
        edit=both(
            lambda d: d.update(distributions=[x for x in d["distributions"] if x["name"].lower() in ("torch", "pip")]),
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    tuple(("NVIDIA H100 80GB HBM3", "9.0", 81559) for _ in range(8)),
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-12.8", "12.8.93"),),
                    shm_mib=1 << 19,
                    ninja="1.11.1",
                )
            ),
        ),
    ),
    Scenario(
        "gpu-nvcc-13-beside-cu128-torch",
        "8x H100, torch 2.9.0 (cu128), and only a CUDA 13.0 toolkit: its nvcc cannot build extensions for this torch; "
        "a system-wide toolkit install is offered beside the finding, not put in the plan",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "580.65.06",
                    tuple(("NVIDIA H100 80GB HBM3", "9.0", 81559) for _ in range(8)),
                    nvcc="13.0.88",
                    toolkits=(("/usr/local/cuda-13.0", "13.0.88"),),
                    shm_mib=1 << 19,
                    ninja="1.11.1",
                )
            ),
        ),
    ),
    Scenario(
        "container-uid-without-passwd",
        "`docker run --user 12345` of an image with torch 2.9.0 (cu128) on an H100: UID 12345 has no passwd entry "
        "and USER is unset, so torch's getpass.getuser() raises KeyError: 'getpwuid(): uid not found: 12345'; HOME "
        "is / (read-only), so Triton cannot create /.triton/cache",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    (("NVIDIA H100 80GB HBM3", "9.0", 81559),),
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-12.8", "12.8.93"),),
                    ninja="1.11.1",
                    container="docker",
                    compile_caches=cache_dirs(
                        uid=12345,
                        user="uid_12345",
                        home="/",
                        passwd_entry=False,
                        home_writable=False,
                        dirs=[
                            cache_folder(
                                "inductor", "/tmp/torchinductor_uid_12345", exists=False, existing_parent="/tmp"
                            ),
                            cache_folder(
                                "triton",
                                "/.triton/cache",
                                exists=False,
                                existing_parent="/",
                                writable=False,
                                fs_type="overlay",
                            ),
                        ],
                    ),
                )
            ),
        ),
    ),
    Scenario(
        "container-libcuda-so1-only",
        "A docker container on an A100 whose driver libraries were bind-mounted by hand (`-v "
        ".../libcuda.so.1:/usr/local/nvidia/lib64/libcuda.so.1`, as in unsloth#679): torch 2.9.0 runs eager, but "
        "its triton 3.5.0 links every kernel launcher with -lcuda and finds no unversioned libcuda.so",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    (("NVIDIA A100-SXM4-80GB", "8.0", 81920),),
                    container="docker",
                    ld_library_path="/usr/local/nvidia/lib64",
                    ld_libs={"/usr/local/nvidia/lib64": ["libcuda.so.1", "libcuda.so.570.124.06"]},
                )
            ),
            with_ldconfig({"libcuda.so.1": ["/usr/local/nvidia/lib64/libcuda.so.1"]}),
        ),
    ),
    Scenario(
        "hpc-triton-cache-on-nfs",
        "a Slurm node with 4x A100, torch 2.9.0 (cu128) and HOME on NFS: Triton's default cache ~/.triton/cache "
        "is shared by every node of a job (Stale file handle), Inductor's stays in the local /tmp",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    tuple(("NVIDIA A100-SXM4-80GB", "8.0", 81920) for _ in range(4)),
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-12.8", "12.8.93"),),
                    ninja="1.11.1",
                    compile_caches=cache_dirs(
                        uid=41007,
                        user="ada",
                        home="/home/ada",
                        dirs=[
                            cache_folder("inductor", "/tmp/torchinductor_ada"),
                            cache_folder("triton", "/home/ada/.triton/cache", fs_type="nfs4"),
                        ],
                    ),
                )
            ),
        ),
    ),
    Scenario(
        "py312-torch23-compile-refused",
        "Python 3.12 with torch 2.3.1: PyPI has cp312 wheels of torch 2.3, so it installs and imports, but "
        "torch.compile raises 'Dynamo is not supported on Python 3.12+' until torch 2.4",
        ("torch==2.3.1",),
        python="3.12",
    ),
    Scenario(
        "numpy2-beside-torch22",
        "`pip install torch==2.2.2 numpy`: torch declares no numpy, so pip takes numpy 2; torch 2.2 is a NumPy 1 "
        "build ('_ARRAY_API not found', 'Numpy is not available'); numpy<2 is the one-package way back",
        ("torch==2.2.2", "numpy==2.1.3"),
    ),
    Scenario(
        "numpy2-opencv412-beside-torch22",
        "torch 2.2.2 with opencv-python-headless 4.12.0.88, which requires numpy>=2,<2.3: numpy<2 is no way out, "
        "torch must become a NumPy 2 build",
        ("torch==2.2.2", "opencv-python-headless==4.12.0.88"),
    ),
    Scenario(
        "torch-ninja-not-on-path",
        "`pip install ninja` in a venv whose python is run without activating it: ninja is in /opt/venv/bin, "
        "which is not on PATH, so torch.utils.cpp_extension cannot find it",
        ("torch==2.9.0", "ninja==1.13.0"),
        env={"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
        edit=lambda d: dist(d, "ninja").update(executables={"ninja": "/opt/venv/bin/ninja"}),
    ),
    Scenario(
        "uv-venv-cpu-torch-on-a100",
        "uv-created venv with torch 2.13.0+cpu on an A100 host: the reinstall of a CUDA build is a `uv pip` command",
        ("torch==2.13.0",),
        local_wheels=True,
        installer="uv",
        pyvenv_cfg={"home": "/usr/bin", "implementation": "CPython", "uv": "0.9.5", "version_info": "3.11.9"},
        edit=with_host(host("560.35.05", (("NVIDIA A100-SXM4-80GB", "8.0", 81920),))),
    ),
    Scenario(
        "gpu-old-driver-minor-compat",
        "driver 535.104.05 (CUDA 12.2) under torch 2.9.0 cu128 on an A100",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(host("535.104.05", (("NVIDIA A100-SXM4-40GB", "8.0", 40960),))),
        ),
    ),
    Scenario(
        "gpu-driver-too-old",
        "driver 470.182.03 (CUDA 11.4) under torch 2.9.0 cu128 on a V100",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"), with_host(host("470.182.03", (("Tesla V100-SXM2-16GB", "7.0", 16384),)))
        ),
    ),
    Scenario(
        "gpu-blackwell-old-torch",
        "RTX 5090 (compute capability 12.0) under torch 2.5.1 cu124",
        ("torch==2.5.1",),
        edit=both(
            torch_build("2.5.1+cu124", "12.4"),
            with_host(host("575.57.08", (("NVIDIA GeForce RTX 5090", "12.0", 32607),))),
        ),
    ),
    Scenario(
        "colab-t4",
        "Colab T4 runtime: driver 550.54.15 with torch 2.7.1 (PyPI's CUDA 12.6 build)",
        ("torch==2.7.1", "setuptools"),
        python="3.12",
        site=COLAB_SITE,
        env={"COLAB_RELEASE_TAG": "release-colab_20251110-060110_RC00"},
        edit=both(
            torch_build("2.7.1+cu126", "12.6"),
            with_host(
                host(
                    "550.54.15",
                    (("Tesla T4", "7.5", 15360),),
                    nvcc="12.5.82",
                    toolkits=(("/usr/local/cuda-12.5", "12.5.82"),),
                    shm_mib=5980,
                )
            ),
        ),
        **SYSTEM,
    ),
    Scenario(
        "gpu-nvidia-smi-hangs",
        "an 8-GPU host after an Xid error: the driver loads (/proc/driver/nvidia/version) but nvidia-smi hangs",
        ("torch==2.9.0",),
        edit=both(torch_build("2.9.0+cu128", "12.8"), with_host(_smi_hangs())),
    ),
    Scenario(
        "gpu-container-no-driver",
        "a CUDA torch in a container started without the GPU runtime, "
        "with Docker's 64 MiB /dev/shm and a 4-CPU quota on a 64-core host",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    None,
                    (),
                    shm_mib=64,
                    cpus=64,
                    cgroup_cpus=4.0,
                    memory_gib=512,
                    cgroup_memory_gib=16,
                    disk_gib=2,
                    container="docker",
                    caches={"triton": "/root/.triton/cache", "inductor": "/tmp/torchinductor_root"},
                )
            ),
        ),
    ),
    Scenario(
        "gpu-cpu-torch-on-a100",
        "torch 2.13.0+cpu on a machine with an A100 and driver 560.35.05",
        ("torch==2.13.0",),
        local_wheels=True,
        edit=both(
            torch_build("2.13.0+cpu", None), with_host(host("560.35.05", (("NVIDIA A100-SXM4-80GB", "8.0", 81920),)))
        ),
    ),
    Scenario(
        "gpu-ld-library-path-shadowing",
        "LD_LIBRARY_PATH with an empty entry, a missing dir and two system "
        "CUDAs in front of torch's pip CUDA libraries",
        ("torch==2.9.0",),
        env={"LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64::/usr/local/cuda-12.4/lib64:/opt/missing"},
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    (("NVIDIA L4", "8.9", 23034),),
                    ld_library_path="/usr/local/cuda-11.8/lib64::/usr/local/cuda-12.4/lib64:/opt/missing",
                    ld_libs={
                        "/usr/local/cuda-11.8/lib64": ["libcudart.so.11.0", "libcudnn.so.8"],
                        "/usr/local/cuda-12.4/lib64": ["libcudart.so.12", "libcublas.so.12"],
                    },
                )
            ),
        ),
    ),
    Scenario(
        "gpu-slim-no-compiler",
        "slim image: torch with triton, no C/C++ compiler, no Python.h",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            lambda d: d["python"].update(python_h=False, include="/usr/include/python3.11"),
            with_host(host("570.124.06", (("NVIDIA L4", "8.9", 23034),), compilers=False)),
        ),
    ),
    Scenario(
        "gpu-cuda-visible-devices-empty",
        "CUDA_VISIBLE_DEVICES='' exported by a job script on a 2x A10G host",
        ("torch==2.9.0",),
        env={"CUDA_VISIBLE_DEVICES": ""},
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(host("570.124.06", (("NVIDIA A10G", "8.6", 23028), ("NVIDIA A10G", "8.6", 23028)))),
        ),
    ),
    Scenario(
        "torch-source-build-slim-image",
        "torch built from source (links the system libgomp, bundles none) in a slim image without libgomp1",
        ("torch==2.13.0",),
        local_wheels=True,
        edit=both(torch_build("2.13.0a0+git1234567", None), _source_built_torch, with_host(_without_libgomp())),
    ),
    Scenario(
        "tf-gpu-without-cuda-libs",
        "tensorflow 2.20.0 without its and-cuda extra on an L4 host",
        ("tensorflow==2.20.0",),
        edit=both(tf_build("tensorflow", TF_CUDA_BUILD), with_host(host("570.124.06", (("NVIDIA L4", "8.9", 23034),)))),
    ),
    Scenario(
        "tf-and-cuda-on-l4",
        "tensorflow[and-cuda] 2.20.0 on an L4 host",
        ("tensorflow[and-cuda]==2.20.0",),
        edit=both(tf_build("tensorflow", TF_CUDA_BUILD), with_host(host("570.124.06", (("NVIDIA L4", "8.9", 23034),)))),
    ),
    Scenario(
        "tf-cpu-on-gpu",
        "tensorflow-cpu 2.20.0 on an A100 host",
        ("tensorflow-cpu==2.20.0",),
        edit=both(
            tf_build("tensorflow-cpu", TF_CPU_BUILD),
            with_host(host("570.124.06", (("NVIDIA A100-SXM4-80GB", "8.0", 81920),))),
        ),
    ),
    Scenario(
        "conda-tensorflow-conda-cuda",
        "conda env: tensorflow from pip, CUDA 12.5 runtime and cuDNN 9 from conda packages, on an A10G",
        ("tensorflow==2.20.0",),
        executable="/opt/conda/envs/tf/bin/python",
        prefix="/opt/conda/envs/tf",
        base_prefix="/opt/conda/envs/tf",
        env_kind="conda",
        conda_meta=True,
        pyvenv_cfg=None,
        edit=both(
            tf_build("tensorflow", TF_CUDA_BUILD),
            lambda d: d["python"].update(
                conda_packages={"cuda-cudart": "12.5.82", "cudnn": "9.3.0.75", "libgomp": "15.2.0"}
            ),
            with_host(host("570.124.06", (("NVIDIA A10G", "8.6", 23028),))),
        ),
    ),
    Scenario(
        "triton-ptxas-too-old-for-blackwell",
        "torch 2.6.0 with triton 3.2.0, whose ptxas is from CUDA 12.4, on an "
        "RTX PRO 6000 Blackwell (sm_120); a CUDA 12.8 toolkit is installed",
        ("torch==2.6.0",),
        edit=both(
            torch_build("2.6.0+cu124", "12.4"),
            _ptxas("triton", "12.4.131"),
            with_host(
                host(
                    "575.57.08",
                    (("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0", 97887),),
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-12.8", "12.8.93"),),
                )
            ),
        ),
    ),
    Scenario(
        "gpu-compile-debug-left-on",
        "TORCH_COMPILE_DEBUG=1 and TRITON_INTERPRET=1 left in a job script on an L4 host",
        ("torch==2.9.0",),
        env={"TORCH_COMPILE_DEBUG": "1", "TRITON_INTERPRET": "1"},
        edit=both(torch_build("2.9.0+cu128", "12.8"), with_host(host("570.124.06", (("NVIDIA L4", "8.9", 23034),)))),
    ),
    Scenario(
        "venv-copied-to-old-host",
        "a venv built on Ubuntu 22.04 copied to a CentOS 7 host (glibc 2.17)",
        ("torch==2.9.0",),
        os_name="CentOS Linux 7 (Core)",
        edit=both(torch_build("2.9.0+cu128", "12.8"), _glibc("2.17"), with_host(_glibc_host("glibc 2.17"))),
    ),
    Scenario(
        "triton-without-ptxas",
        "triton whose bundled ptxas was stripped by an image-slimming step, on an L4",
        ("torch==2.9.0",),
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            lambda d: dist(d, "triton").update(bundled_tools={"triton/backends/nvidia/bin/ptxas": False}),
            with_host(host("570.124.06", (("NVIDIA L4", "8.9", 23034),))),
        ),
    ),
    Scenario(
        "gpu-cuda-home-mismatch",
        "CUDA_HOME=/usr/local/cuda-11.8 while nvcc on PATH is 12.8",
        ("torch==2.9.0",),
        env={"CUDA_HOME": "/usr/local/cuda-11.8"},
        edit=both(
            torch_build("2.9.0+cu128", "12.8"),
            with_host(
                host(
                    "570.124.06",
                    (("NVIDIA A10G", "8.6", 23028),),
                    nvcc="12.8.93",
                    toolkits=(("/usr/local/cuda-11.8", "11.8.89"), ("/usr/local/cuda-12.8", "12.8.93")),
                )
            ),
        ),
    ),
]
REAL = {
    "real-torch213-xla29": "torch213-xla29",
    "real-torch29-xla29": "torch29-xla29",
    "real-bare": "bare",
    "real-tensorflow-cpu-unknown-tf-xla-flag": "tensorflow-cpu",
    "real-tensorflow-cpu-autojit": "tensorflow-cpu",
    "real-torch29-xla29-debug-switches": "torch29-xla29",
    "real-torch29-xla29-pjrt-cuda": "torch29-xla29",
    "real-torch29-xla29-xrt-leftovers": "torch29-xla29",
    "real-torch29-xla29-unknown-xla-flag": "torch29-xla29",
    "real-tensorflow-cpu-vlog": "tensorflow-cpu",
    "real-torch29-xla29-torch-logs": "torch29-xla29",
    "real-torch29-xla29-torch-logs-empty": "torch29-xla29",
}
# Recorded on machines this one is not: kept as recorded, never rewritten (only their expected files are).
RECORDED_ELSEWHERE = {
    "real-gpu-h200": "real: `xladoctor snapshot` on a lent GPU machine (one NVIDIA H200, driver 580.159.04, "
    "NVML; torch 2.11.0+cu130, triton 3.6.0, jax 0.11.2), written by `bash scripts/gpu_smoke.sh OUT` as "
    "OUT/gpu-facts.json on 2026-11-29",
}
REAL_ENV = {
    "real-tensorflow-cpu-unknown-tf-xla-flag": {"TF_XLA_FLAGS": "--tf_xla_auto_jit=2 --tf_xla_bogus_flag=1"},
    "real-tensorflow-cpu-autojit": {"TF_XLA_FLAGS": "--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit"},
    "real-torch29-xla29-pjrt-cuda": {"PJRT_DEVICE": "CUDA"},
    # TF_CPP_MIN_VLOG_LEVEL is the old name: TensorFlow 2.21 does not read it (no verdict on it)
    "real-tensorflow-cpu-vlog": {"TF_CPP_MAX_VLOG_LEVEL": "1", "TF_CPP_MIN_VLOG_LEVEL": "1"},
    "real-torch29-xla29-torch-logs": {"TORCH_LOGS": "+dynamo,+autograd,recompiles"},
    "real-torch29-xla29-torch-logs-empty": {"TORCH_LOGS": ""},
    "real-torch29-xla29-unknown-xla-flag": {"XLA_FLAGS": "--xla_cpu_enable_fast_math=false --xla_bogus_flag=1"},
    "real-torch29-xla29-xrt-leftovers": {
        "XRT_TPU_CONFIG": "localservice;0;localhost:51011",
        "GPU_NUM_DEVICES": "2",
        "XLA_USE_BF16": "1",
    },
    "real-torch29-xla29-debug-switches": {
        "XLA_IR_DEBUG": "1",
        "XLA_HLO_DEBUG": "1",
        "XLA_USE_FP16": "1",
        "XLA_FLAGS": "--xla_dump_to=/tmp/xla_dump",
    },
}


def expected_of(doc: dict[str, Any]) -> dict[str, Any]:
    from xladoctor.diagnosis.pipeline import run_diagnosis
    from xladoctor.diagnosis.selection import select_checks
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
            if f.status.value in ("warn", "fail", "error")  # passes and skips: each check's cases, tests/checks/
        ],
        "plan": list(report.plan.commands),
        "platform": {"name": report.plan.platform.name, "accelerator": report.plan.platform.accelerator},
        "plan_notes": [*report.plan.conflicts, *report.plan.notes],
        "plan_cells": list(report.plan.cells),
    }


def regenerate_command(*names: str) -> str:
    """The one command that rewrites these fixtures' expected files (printed by a failing fixture test)."""
    return f".venv/bin/python tests/facts/{Path(__file__).name} --expected {' '.join(names)}".rstrip()


def write_cases(check_ids: list[str]) -> None:
    """tests/checks/<id>.json for each check: its cases' findings rewritten from the current code (review the diff);
    a check without a file gets one case per status the fixtures show it giving (real fixtures first)."""
    from check_cases import CASES_DIR, Case, apply_edits, case_file, finding_record, load_cases, load_fixture

    from xladoctor.diagnosis.pipeline import run_diagnosis
    from xladoctor.diagnosis.registry import all_checks
    from xladoctor.diagnosis.selection import select_checks
    from xladoctor.facts import facts_from_json

    fixtures = sorted(
        (p.stem for p in HERE.glob("*.json") if not p.name.endswith(".expected.json") and p.name != RESOLVED.name),
        key=lambda n: (not n.startswith("real-"), "healthy" not in n, n),
    )
    reports: dict[str, list[Any]] = {}

    def findings_of(fixture: str, check_id: str) -> list[Any]:
        if fixture not in reports:
            doc = load_fixture(fixture)
            doc.pop("_about", None)
            reports[fixture] = list(run_diagnosis(facts_from_json(doc), select_checks()).findings)
        return [f for f in reports[fixture] if f.id == check_id]

    CASES_DIR.mkdir(exist_ok=True)
    known = [c.id for c in all_checks()]
    for check_id in check_ids or known:
        if check_id not in known:
            sys.exit(f"unknown check {check_id!r}")
        cases = load_cases(check_id)
        if not cases:
            seen: set[str] = set()
            for fixture in fixtures:
                found = findings_of(fixture, check_id)
                statuses = {f.status.value for f in found}
                if statuses - seen:
                    seen |= statuses
                    cases.append(Case(check_id, len(cases), f"{fixture}, as recorded", fixture, [], None))
        written = []
        for case in cases:
            doc = apply_edits(load_fixture(case.facts), case.edits)
            doc.pop("_about", None)
            got = run_diagnosis(facts_from_json(doc), select_checks(only=[check_id])).findings
            entry: dict[str, Any] = {"about": case.about, "facts": case.facts}
            if case.edits:
                entry["edits"] = case.edits
            entry["findings"] = [finding_record(f) for f in got]
            written.append(entry)
        text = json.dumps({"check": check_id, "cases": written}, indent=1, ensure_ascii=False) + "\n"
        path = case_file(check_id)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print("wrote", path.relative_to(HERE.parent))


def main(argv: list[str]) -> None:
    """make_fixtures.py [--expected | --resolve] [NAME...]

    no flag: rewrite the named fixtures and their expected files (default: every synthetic fixture, and every
             expected file, real ones included). Synthetic fixtures come from resolved.json, offline; a real-* name
             given explicitly re-records its venv's snapshot.
    --expected: rewrite only the expected files from the fixtures as they are (default: all).
    --resolve: ask the package index for the scenarios resolved.json lacks (the named ones: again), then rewrite.
    --cases [CHECK...]: rewrite each check's cases in tests/checks/ from the current code (see tests/check_cases.py).
    """
    update_expected = "--expected" in argv
    refresh = "--resolve" in argv
    names = [a for a in argv if not a.startswith("--")]
    if "--cases" in argv:
        write_cases(names)
        return
    if refresh:
        _ASK_AGAIN.update(names)
    synthetic = {s.name: s for s in SCENARIOS}
    about = {s.name: s.about for s in SCENARIOS}
    for name, env_name in REAL.items():
        about[name] = f"real: `xladoctor snapshot` of the venv tests/envs.py builds as {env_name!r}"
    everything = [*REAL, *RECORDED_ELSEWHERE, *synthetic]
    for name in names or everything:
        path = HERE / f"{name}.json"
        if name not in about and name not in RECORDED_ELSEWHERE:
            sys.exit(f"unknown fixture {name!r}")
        if name in REAL and not names and not update_expected:
            pass  # a real snapshot is re-recorded only when named (its venv must exist); its expected file is rewritten
        elif name in RECORDED_ELSEWHERE and not path.exists():
            doc = json.loads(Path(os.environ["RECORDED_SNAPSHOT"]).read_text())  # the file that machine wrote
            doc["_about"] = RECORDED_ELSEWHERE[name]
            path.write_text(json.dumps(doc, indent=1) + "\n")
        elif not update_expected and name not in RECORDED_ELSEWHERE:
            scenario = synthetic.get(name)
            doc = real_snapshot(REAL[name], REAL_ENV.get(name)) if scenario is None else synthesize(scenario, refresh)
            doc["_about"] = about[name]
            path.write_text(json.dumps(doc, indent=1) + "\n")
        doc = json.loads(path.read_text())
        doc.pop("_about", None)
        (HERE / f"{name}.expected.json").write_text(json.dumps(expected_of(doc), indent=1) + "\n")
        print("wrote", path.name)


if __name__ == "__main__":
    main(sys.argv[1:])
