"""Branches of checks that the platform fixtures do not reach: each is made to warn or fail here."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from conftest import FACTS_DIR, load_json

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding


def diagnose(case: str, edit: Callable[[dict[str, Any]], None], check_id: str) -> list[Finding]:
    doc = copy.deepcopy(load_json(FACTS_DIR / f"{case}.json"))
    edit(doc)
    report = run_diagnosis(facts_from_json(doc), select_checks(only=[check_id]))
    return list(report.findings)


def dist(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in doc["distributions"] if d["name"].lower().replace("_", "-") == name)


def _add_triton(doc: dict[str, Any], version: str) -> None:
    torch = dist(doc, "torch")
    doc["distributions"].append(
        {"name": "triton", "version": version, "location": torch["location"], "path_index": torch["path_index"]}
    )


def test_triton_beside_a_cpu_torch_breaks_nothing() -> None:
    """A CPU wheel never runs Triton: no warning, so `--strict` passes a healthy CPU environment."""
    [finding] = diagnose("real-torch213-xla29", lambda d: _add_triton(d, "3.4.0"), "torch-triton-mismatch")
    assert (finding.status.value, finding.title) == (
        "ok",
        "torch 2.13.0+cpu is a CPU build: it never uses Triton, so triton 3.4.0 beside it breaks nothing",
    )


def test_triton_beside_a_cuda_torch_that_declares_none_is_a_warning() -> None:
    """A source build of torch for CUDA declares no Triton: the matrix's release pairing is the yardstick."""

    def edit(doc: dict[str, Any]) -> None:
        _add_triton(doc, "3.4.0")
        dist(doc, "torch")["self_declared"]["values"]["cuda"] = "13.0"

    [finding] = diagnose("real-torch213-xla29", edit, "torch-triton-mismatch")
    assert finding.status.value == "warn"
    assert finding.title.startswith("torch 2.13.0+cpu was released with triton==3.7."), finding.title
    assert "-m pip install triton==3.7." in finding.remediation[-1]


def _source_torch_beside_triton(torch: str, triton: str) -> Callable[[dict[str, Any]], None]:
    """A CUDA build of torch that declares no Triton (a source build), beside a Triton: the matrix is the yardstick."""

    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["version"] = torch
        dist(doc, "torch")["self_declared"]["values"]["cuda"] = "12.8"
        doc["distributions"].append({**dist(doc, "torch"), "name": "triton", "version": triton, "requires": []})

    return edit


def test_triton_pairing_prefers_the_release_row_over_the_series() -> None:
    # torch 2.12.0's wheels pin triton==3.7.0 and 2.12.1's pin 3.7.1 (compat_matrix/torch-triton.json)
    [finding] = diagnose("real-torch213-xla29", _source_torch_beside_triton("2.12.0", "3.7.0"), "torch-triton-mismatch")
    assert (finding.status.value, finding.title, finding.evidence["matrix_row"]["torch"]) == (
        "ok",
        "triton 3.7.0 matches torch 2.12.0",
        "2.12.0",
    )
    # a release the matrix does not list falls back to the newest row of its series
    [finding] = diagnose("real-torch213-xla29", _source_torch_beside_triton("2.12.7", "3.7.0"), "torch-triton-mismatch")
    assert (finding.status.value, finding.title) == (
        "warn",
        "torch 2.12.7 was released with triton==3.7.1, but triton 3.7.0 is installed",
    )


def test_torch_requiring_triton_without_triton_fails() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["distributions"].remove(dist(doc, "triton"))

    [finding] = diagnose("real-torch29-xla29", edit, "torch-triton-mismatch")
    assert (finding.status.value, finding.title) == (
        "fail",
        "torch 2.9.0 requires triton==3.5.0, which is not installed",
    )


def test_python_outside_the_matrix_release_list_warns() -> None:
    def edit(doc: dict[str, Any]) -> None:  # torch_xla 2.7.0 was built for 3.9-3.11 only
        dist(doc, "torch-xla")["version"] = "2.7.0"
        dist(doc, "torch-xla")["wheel_tags"] = []
        dist(doc, "torch-xla")["requires_python"] = ">=3.8"
        doc["python"]["version"] = "3.12.3"
        doc["python"]["marker_env"]["python_version"] = "3.12"
        for d in doc["distributions"]:
            d["wheel_tags"] = []

    findings = diagnose("real-torch29-xla29", edit, "python-version-support")
    assert [(f.status.value, f.title) for f in findings] == [("warn", "torch-xla 2.7 is not released for Python 3.12")]


def _torch_on_python(torch: str, python: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["version"] = torch
        doc["python"]["version"] = f"{python}.1"
        doc["python"]["marker_env"]["python_version"] = python
        for d in doc["distributions"]:
            d["wheel_tags"] = []
            d["requires_python"] = None

    return edit


def test_python_list_follows_the_published_wheels() -> None:
    # PyPI has cp312 wheels of torch 2.2.x and 2.3.x and cp313 wheels of 2.5.x (compat_matrix/torch-python.json)
    for torch, python in (("2.2.2", "3.12"), ("2.3.1", "3.12"), ("2.5.1", "3.13")):
        [finding] = diagnose("gpu-h100-healthy", _torch_on_python(torch, python), "python-version-support")
        assert (finding.status.value, finding.title) == (
            "ok",
            f"Python {python}.1 is supported by torch {torch}, triton 3.5.0",
        )
    [finding] = diagnose("gpu-h100-healthy", _torch_on_python("2.4.1", "3.13"), "python-version-support")
    assert (finding.status.value, finding.title) == ("warn", "torch 2.4 is not released for Python 3.13")


def test_requires_python_violation_fails() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["requires_python"] = ">=3.12"

    findings = diagnose("real-torch29-xla29", edit, "python-version-support")
    assert [(f.status.value, f.title) for f in findings] == [
        ("fail", "torch 2.9.0 requires Python >=3.12, but this is Python 3.11.7")
    ]


def test_missing_record_warns_unless_conda_installed() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["record_present"] = False

    [finding] = diagnose("real-torch29-xla29", edit, "broken-distribution")
    assert (finding.status.value, finding.title) == ("warn", "torch 2.9.0 has no RECORD file")

    def conda(doc: dict[str, Any]) -> None:
        edit(doc)
        dist(doc, "torch")["installer"] = "conda"

    [finding] = diagnose("real-torch29-xla29", conda, "broken-distribution")
    assert finding.status.value == "ok"


def test_unreadable_metadata_fails() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["distributions"].append(
            {
                "name": "",
                "version": "",
                "location": "/x",
                "metadata_dir": "/x/broken.dist-info",
                "error": "KeyError('Name')",
            }
        )

    [finding] = diagnose("real-bare", edit, "broken-distribution")
    assert (finding.status.value, finding.title) == ("fail", "Unreadable package metadata in /x/broken.dist-info")
    assert finding.remediation == ("rm -rf /x/broken.dist-info",)


def test_jax_without_jaxlib_and_plugin_mismatch() -> None:
    def no_jaxlib(doc: dict[str, Any]) -> None:
        doc["distributions"].remove(dist(doc, "jaxlib"))

    [finding] = diagnose("colab-gpu-healthy", no_jaxlib, "jax-jaxlib-mismatch")
    assert (finding.status.value, finding.title) == ("fail", "jax 0.7.2 is installed without jaxlib")

    def plugin(doc: dict[str, Any]) -> None:
        doc["distributions"].append({"name": "jax-cuda12-plugin", "version": "0.6.2", "location": "/x"})

    [finding] = diagnose("colab-gpu-healthy", plugin, "jax-jaxlib-mismatch")
    assert finding.status.value == "fail"
    assert finding.title == "JAX CUDA plugin versions differ from jaxlib 0.7.2: jax-cuda12-plugin 0.6.2"


def test_libtpu_not_matching_torch_xla_tpu_extra_fails_once() -> None:
    """libtpu-pins judges torch_xla's libtpu pin (with JAX's and TensorFlow's): unsatisfied-requirements leaves it."""

    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "libtpu")["version"] = "0.0.17"

    [finding] = diagnose("tpu-vm-healthy", edit, "libtpu-pins")
    assert (finding.status.value, finding.title) == (
        "fail",
        "torch_xla 2.9.0 pins libtpu==0.0.21, but libtpu 0.0.17 is installed (its `tpu` extra)",
    )
    assert finding.remediation == ("/usr/bin/python3 -m pip install 'torch_xla[tpu]==2.9.0'",)
    [other] = diagnose("tpu-vm-healthy", edit, "unsatisfied-requirements")
    assert other.status.value == "ok"


def test_the_rest_of_torch_xla_tpu_extra_stays_with_unsatisfied_requirements() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["distributions"].remove(dist(doc, "tpu-info"))

    [finding] = diagnose("tpu-vm-healthy", edit, "unsatisfied-requirements")
    assert (finding.status.value, finding.title) == (
        "fail",
        "torch-xla 2.9.0 requires tpu-info (its `tpu` extra, since libtpu is installed), which is not installed",
    )


def test_non_cpython_interpreter_warns() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["python"]["implementation"] = "PyPy"

    [finding] = diagnose("real-bare", edit, "target-interpreter")
    assert (finding.status.value, finding.title) == (
        "warn",
        "PyPy 3.11.7: torch, TensorFlow and JAX ship CPython wheels only",
    )


def test_tensorflow_with_its_windows_companion_is_not_a_conflict() -> None:
    def edit(doc: dict[str, Any]) -> None:  # tensorflow on Windows requires tensorflow-intel==same version
        doc["distributions"].remove(dist(doc, "tensorflow-cpu"))
        tf = dist(doc, "tensorflow")
        tf["requires"] = [*tf["requires"], 'tensorflow-intel==2.18.0; platform_system == "Linux"']
        doc["distributions"].append({**tf, "name": "tensorflow-intel", "requires": []})

    [finding] = diagnose("kaggle-tensorflow-and-tensorflow-cpu", edit, "conflicting-distributions")
    assert finding.status.value == "ok"


def _tensorflow_on(machine: str, system: str, *others: tuple[str, list[str]]) -> Callable[[dict[str, Any]], None]:
    """tensorflow 2.16.1 (requiring what it requires on that platform) beside `others`, on another platform."""

    def edit(doc: dict[str, Any]) -> None:
        doc["python"]["marker_env"].update(platform_machine=machine, platform_system=system)
        doc["distributions"].remove(dist(doc, "tensorflow-cpu"))
        tf = dist(doc, "tensorflow")
        tf["version"] = "2.16.1"
        tf["requires"] = [  # tensorflow 2.16.1's own Requires-Dist, from its PyPI wheel metadata
            *tf["requires"],
            'tensorflow-cpu-aws ==2.16.1 ; platform_system == "Linux" and (platform_machine == "arm64" or '
            'platform_machine == "aarch64")',
            'tensorflow-intel ==2.16.1 ; platform_system == "Windows"',
        ]
        for name, requires in others:
            doc["distributions"].append({**tf, "name": name, "requires": requires})

    return edit


def test_tensorflow_aarch64_beside_tensorflow_is_a_conflict() -> None:
    # Linaro's tensorflow-aarch64 wheel installs tensorflow/ too, and no tensorflow release requires it
    [finding] = diagnose(
        "kaggle-tensorflow-and-tensorflow-cpu",
        _tensorflow_on("x86_64", "Linux", ("tensorflow-aarch64", [])),
        "conflicting-distributions",
    )
    assert (finding.status.value, finding.title) == (
        "fail",
        "tensorflow 2.16.1 and tensorflow-aarch64 2.16.1 both install the `tensorflow` package",
    )


def test_a_declared_companion_is_not_a_conflict_and_goes_with_its_installer() -> None:
    aws = ("tensorflow-cpu-aws", [])
    [finding] = diagnose(
        "kaggle-tensorflow-and-tensorflow-cpu", _tensorflow_on("aarch64", "Linux", aws), "conflicting-distributions"
    )
    assert finding.status.value == "ok"
    # tensorflow's aarch64 wheel only installs tensorflow-cpu-aws: with tensorflow-aarch64 beside them, the
    # overwritten files are tensorflow-cpu-aws's, so the fix removes it too before reinstalling tensorflow
    edit = _tensorflow_on("aarch64", "Linux", aws, ("tensorflow-aarch64", []))
    [finding] = diagnose("kaggle-tensorflow-and-tensorflow-cpu", edit, "conflicting-distributions")
    assert (finding.status.value, finding.title, finding.evidence["companions"]) == (
        "fail",
        "tensorflow 2.16.1 and tensorflow-aarch64 2.16.1 both install the `tensorflow` package",
        {"tensorflow-cpu-aws": "2.16.1"},
    )
    assert finding.remediation == (
        "/opt/conda/bin/python -m pip uninstall -y tensorflow tensorflow-aarch64 tensorflow-cpu-aws",
        "/opt/conda/bin/python -m pip install tensorflow==2.16.1",
    )


def test_tensorflow_macos_installer_wheel_is_a_companion_on_apple_silicon() -> None:
    # tensorflow-macos 2.16.x ships no package and requires tensorflow (its PyPI wheel metadata)
    shim = ("tensorflow-macos", ['tensorflow ==2.16.1 ; platform_system == "Darwin" and platform_machine == "arm64"'])
    [finding] = diagnose(
        "kaggle-tensorflow-and-tensorflow-cpu", _tensorflow_on("arm64", "Darwin", shim), "conflicting-distributions"
    )
    assert finding.status.value == "ok"


def test_tensorflow_cpu_follows_tensorflow_python_table() -> None:
    def edit(doc: dict[str, Any]) -> None:  # TensorFlow 2.15 was tested on Python 3.9-3.11 only
        doc["distributions"].remove(dist(doc, "tensorflow"))
        tf = dist(doc, "tensorflow-cpu")
        tf.update(version="2.15.0", requires_python=">=3.9", wheel_tags=[])
        doc["python"]["version"] = "3.12.4"
        doc["python"]["marker_env"]["python_version"] = "3.12"

    findings = diagnose("kaggle-tensorflow-and-tensorflow-cpu", edit, "python-version-support")
    assert [(f.status.value, f.title) for f in findings] == [
        ("warn", "tensorflow-cpu 2.15 is not released for Python 3.12")
    ]


def test_torch_older_than_any_torch_xla_moves_up_to_the_installed_torch_xla() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["version"] = "1.13.1"

    [finding] = diagnose("real-torch29-xla29", edit, "torch-xla-torch-mismatch")
    assert finding.status.value == "fail"
    assert finding.evidence["move"] == (
        "no torch_xla release exists for torch 1.13; move torch up to 2.9.0, which torch_xla 2.9.0 is built for"
    )
    assert finding.remediation[0].endswith("-m pip install torch==2.9.0 torch_xla==2.9.0")


def test_libgomp_on_ld_library_path_overrides_torchs_own() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["libraries"]["ld_library_path"] = [
            {"entry": "/opt/intel/lib", "exists": True, "libraries": ["libgomp.so.1"]}
        ]

    [finding] = diagnose("real-torch213-xla29", edit, "libgomp")
    assert (finding.status.value, finding.title) == (
        "warn",
        "libgomp from /opt/intel/lib overrides the copy torch ships",
    )


def test_cuda_visible_devices_naming_a_missing_gpu() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["env"]["CUDA_VISIBLE_DEVICES"] = "0,3"

    [finding] = diagnose("gpu-cuda-visible-devices-empty", edit, "cuda-visible-devices")
    assert (finding.status.value, finding.title, finding.remediation) == (
        "warn",
        "CUDA_VISIBLE_DEVICES names GPU 3, but only 2 GPU(s) exist",
        ("export CUDA_VISIBLE_DEVICES=0,1",),
    )


def test_cuda_home_that_does_not_exist() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["env"]["CUDA_HOME"] = "/usr/local/cuda-10.2"

    [finding] = diagnose("gpu-cuda-home-mismatch", edit, "cuda-home-mismatch")
    assert (finding.status.value, finding.title, finding.remediation) == (
        "warn",
        "CUDA_HOME=/usr/local/cuda-10.2 does not exist",
        ("unset CUDA_HOME",),
    )


def test_memory_cap_far_below_the_host() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["resources"].update(cgroup_cpus=None, cgroup_memory_bytes=8 << 30, memory_bytes=256 << 30)

    [finding] = diagnose("gpu-container-no-driver", edit, "cgroup-limits")
    assert finding.status.value == "warn"
    assert "memory is capped at 8.0 GiB while the host shows 256.0 GiB" in finding.detail


def test_cpu_torch_on_a_gpu_with_a_driver_new_enough_for_pypi_wheel() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["nvidia"]["driver_version"] = "580.95.05"

    [finding] = diagnose("gpu-cpu-torch-on-a100", edit, "torch-build-vs-hardware")
    assert finding.remediation == ("/opt/venv/bin/python -m pip install --force-reinstall torch==2.13.0",)


def test_arch_unknown_to_the_matrix_is_skipped_not_guessed() -> None:
    def edit(doc: dict[str, Any]) -> None:  # torch 2.6's cu118 build could not be verified: no row
        dist(doc, "torch")["version"] = "2.6.0"
        dist(doc, "torch")["self_declared"]["values"]["cuda"] = "11.8"

    [finding] = diagnose("gpu-h100-healthy", edit, "gpu-arch-unsupported")
    assert (finding.status.value, finding.detail) == (
        "skip",
        "Skipped because the architectures of torch 2.6 with CUDA 11.8 are not in the matrix.",
    )


def test_driver_new_enough_is_ok() -> None:
    [finding] = diagnose("gpu-h100-healthy", lambda d: None, "cuda-driver-too-old")
    assert (finding.status.value, finding.title) == (
        "ok",
        "Driver 570.124.06 runs nvidia-cuda-runtime-cu12 (CUDA 12.8 Update 1), torch (CUDA 12.8 Update 1)",
    )


def _with_gpu(name: str, capability: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["nvidia"].update(
            driver_version="570.124.06",
            gpus=[{"index": 0, "name": name, "compute_capability": capability, "memory_mib": 8192}],
        )

    return edit


def test_arch_list_read_from_the_real_libtorch_cuda_binary() -> None:
    # real-torch29-xla29 carries the fatbin census of a real torch 2.9.0 (cu128) libtorch_cuda.so
    [finding] = diagnose("real-torch29-xla29", _with_gpu("NVIDIA H100 80GB HBM3", "9.0"), "gpu-arch-unsupported")
    assert (finding.status.value, finding.evidence["arch_list"], finding.evidence["arch_list_source"]) == (
        "ok",
        "7.0;7.5;8.0;8.6;9.0;10.0;12.0",
        "installed torch/lib/libtorch_cuda.so (.nv_fatbin)",
    )
    [finding] = diagnose("real-torch29-xla29", _with_gpu("NVIDIA GeForce GTX 1080", "6.1"), "gpu-arch-unsupported")
    assert (finding.status.value, finding.title) == (
        "fail",
        "torch 2.9.0 (CUDA 12.8) has no kernels for NVIDIA GeForce GTX 1080 (compute capability 6.1)",
    )
    python = load_json(FACTS_DIR / "real-torch29-xla29.json")["python"]["executable"]
    assert finding.remediation == (
        f"{python} -m pip install --force-reinstall torch==2.9.0 --index-url https://download.pytorch.org/whl/cu126",
    )


def test_a_cuda_newer_than_the_driver_table_is_not_judged() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "nvidia-cuda-runtime-cu12")["version"] = "13.4.1"
        dist(doc, "torch")["self_declared"]["values"]["cuda"] = "13.4"

    [finding] = diagnose("gpu-h100-healthy", edit, "cuda-driver-too-old")
    assert (finding.status.value, finding.detail) == (
        "skip",
        "Skipped because no minimum driver is known for CUDA 13.4 (the compatibility matrix has no NVIDIA "
        "release-notes row for it yet).",
    )


def _nvcc_13_on_gpu_host(toolkit_12_8: bool) -> Callable[[dict[str, Any]], None]:
    """The H100 host (torch 2.9.0 cu128) with nvcc 13.0 first on PATH, and a CUDA 12.8 toolkit or none."""

    def edit(doc: dict[str, Any]) -> None:
        [nvcc] = [t for t in doc["system"]["tools"] if t["name"] == "nvcc"]
        nvcc.update(path="/usr/local/cuda-13.0/bin/nvcc", version="13.0.88")
        thirteen = {"path": "/usr/local/cuda-13.0", "realpath": "/usr/local/cuda-13.0", "exists": True}
        kept = doc["system"]["cuda_toolkits"] if toolkit_12_8 else []
        doc["system"]["cuda_toolkits"] = [*kept, {**thirteen, "version": "13.0.88", "nvcc": True}]

    return edit


def test_nvcc_mismatch_on_a_gpu_host_switches_to_the_toolkit_already_there() -> None:
    [finding] = diagnose("gpu-h100-healthy", _nvcc_13_on_gpu_host(True), "nvcc-torch-cuda-mismatch")
    assert (finding.status.value, finding.title) == (
        "warn",
        "nvcc 13.0.88 (/usr/local/cuda-13.0/bin/nvcc) does not match torch's CUDA 12.8: building CUDA extensions fails",
    )
    assert finding.remediation == (
        "export CUDA_HOME=/usr/local/cuda-12.8",
        "export PATH=/usr/local/cuda-12.8/bin:$PATH",
    )
    assert finding.alternatives == ()


def test_nvcc_mismatch_never_puts_a_system_toolkit_install_in_the_plan() -> None:
    """A multi-GB system-wide toolkit is offered beside the finding, for those who build extensions, not pasted."""
    [finding] = diagnose("gpu-h100-healthy", _nvcc_13_on_gpu_host(False), "nvcc-torch-cuda-mismatch")
    assert finding.status.value == "warn" and finding.remediation == ()
    assert "No CUDA 12.8 toolkit is installed." in finding.detail
    [alternative] = finding.alternatives
    assert alternative.when.startswith("you build CUDA extensions")
    assert alternative.commands == ("sudo apt-get install -y cuda-toolkit-12-8  # NVIDIA's apt repository",)


def _cache_folder(doc: dict[str, Any], owner: str) -> dict[str, Any]:
    return next(d for d in doc["system"]["compile_caches"]["dirs"] if d["owner"] == owner)


def test_compile_cache_without_free_inodes_or_as_a_file_or_hung_fails() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _cache_folder(doc, "inductor").update(free_inodes=0)
        _cache_folder(doc, "triton").update(unresponsive=True)

    findings = diagnose("gpu-h100-healthy", edit, "compile-cache-dirs")
    assert [(f.status.value, f.title) for f in findings] == [
        (
            "fail",
            "/tmp/torchinductor_root (TORCHINDUCTOR_CACHE_DIR, the default) is on a filesystem with 0 free inodes",
        ),
        (
            "fail",
            "/root/.triton/cache (TRITON_CACHE_DIR, the default) did not answer within the probe's bound: a hung "
            "network mount?",
        ),
    ]
    assert findings[0].remediation == ("export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache-root",)


def test_compile_cache_moves_are_look_first_without_a_local_temp_folder() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["compile_caches"]["local_base"] = None
        _cache_folder(doc, "triton").update(not_a_folder=True, exists=False)

    [finding] = diagnose("gpu-h100-healthy", edit, "compile-cache-dirs")
    assert finding.title == "/root/.triton/cache (TRITON_CACHE_DIR, the default) is a file, not a folder"
    assert finding.remediation[0].startswith("df -hT /tmp /var/tmp  # find a local (not nfs/lustre), writable folder")


def test_torch_2_13_names_its_cache_after_the_uid_when_the_user_is_unknown() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["version"] = "2.13.0"

    [finding] = diagnose("container-uid-without-passwd", edit, "compile-cache-dirs")
    assert finding.title.startswith("/.triton/cache (TRITON_CACHE_DIR, the default) cannot be created")


def test_home_unset_without_a_home_folder_puts_triton_s_cache_under_the_working_directory() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["compile_caches"].update(home_set=False, home=None, passwd_entry=False, user_variable="USER")
        _cache_folder(doc, "triton").update(path="/work/~/.triton/cache")

    [finding] = diagnose("gpu-h100-healthy", edit, "compile-cache-dirs")
    assert finding.status.value == "warn"
    assert finding.title.startswith("HOME is unset and UID 0 has no home folder: Triton caches in a folder named '~'")


def _python(version: str, gil_disabled: bool = False) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["python"].update(version=version, gil_disabled=gil_disabled)

    return edit


def test_torch_compile_refuses_a_python_its_wheels_exist_for() -> None:
    """torch 2.9.0 ships cp314 wheels, but its torch.compile raises on 3.14: the first torch that accepts it."""
    [finding] = diagnose("gpu-h100-healthy", _python("3.14.0"), "torch-compile-python")
    assert (finding.status.value, finding.title) == (
        "fail",
        "torch.compile in torch 2.9.0 refuses Python 3.14.0: it does not support Python 3.14 and newer",
    )
    assert finding.remediation == ("/opt/venv/bin/python -m pip install 'torch~=2.10.0'",)


def test_torch_compile_free_threaded_needs_python_3_13_3() -> None:
    [finding] = diagnose("gpu-h100-healthy", _python("3.13.2", gil_disabled=True), "torch-compile-python")
    assert finding.title.endswith(
        "refuses Python 3.13.2 (free-threaded): it does not support free-threaded Python older than 3.13.3"
    )
    assert finding.remediation == ()  # no torch release accepts it: the fix is a newer Python, said in the detail
    [ok] = diagnose("gpu-h100-healthy", _python("3.13.5", gil_disabled=True), "torch-compile-python")
    assert (ok.status.value, ok.title) == ("ok", "torch 2.9.0 compiles on Python 3.13.5 (free-threaded)")


def test_compile_cache_on_a_noexec_mount_fails() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _cache_folder(doc, "inductor").update(noexec=True)
        doc["system"]["compile_caches"]["local_base"] = "/root/.cache"

    [finding] = diagnose("gpu-h100-healthy", edit, "compile-cache-dirs")
    assert (
        finding.title
        == "/tmp/torchinductor_root (TORCHINDUCTOR_CACHE_DIR, the default) is on a filesystem mounted noexec"
    )
    assert "failed to map segment from shared object" in finding.detail
    assert finding.remediation == ("export TORCHINDUCTOR_CACHE_DIR=/root/.cache/inductor-cache-root",)


def test_triton_before_3_4_cannot_find_a_home_without_home_or_passwd() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["compile_caches"].update(home_set=False, home=None, passwd_entry=False, user_variable="USER")
        dist(doc, "triton")["version"] = "3.1.0"

    [finding] = diagnose("gpu-h100-healthy", edit, "compile-cache-dirs")
    assert (finding.status.value, finding.title) == (
        "fail",
        "HOME is unset and UID 0 has no home folder: triton 3.1.0 fails at its first compile with RuntimeError: "
        "Could not determine home directory.",
    )


def test_numpy2_abi_uses_the_windows_first_build_on_windows() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["python"]["system"] = "Windows"
        dist(doc, "torch")["version"] = "2.3.1"

    [finding] = diagnose("numpy2-beside-torch22", edit, "numpy2-abi")
    assert finding.title == "numpy 2.1.3 is installed beside NumPy 1 builds: torch 2.3.1"
    [alternative] = finding.alternatives
    assert alternative.commands[-1].endswith("-m pip install 'torch>=2.4.1'")
    [linux] = diagnose("numpy2-beside-torch22", lambda d: dist(d, "torch").update(version="2.3.1"), "numpy2-abi")
    assert linux.status.value == "ok"


def test_sm86_code_does_not_run_on_a_tegra_8_7_but_runs_on_desktop_minors() -> None:
    # NVIDIA: cubins run on a higher minor of the same major on desktop GPUs only, never on Tegra (Orin is 8.7)
    [finding] = diagnose("real-torch29-xla29", _with_gpu("Orin (nvgpu)", "8.7"), "gpu-arch-unsupported")
    assert (finding.status.value, finding.title, finding.evidence["tegra"]) == (
        "fail",
        "torch 2.9.0 (CUDA 12.8) has no kernels for Orin (nvgpu) (compute capability 8.7)",
        ["8.7"],
    )
    assert finding.detail.endswith(
        "Compute capability 8.7 is an integrated (Tegra) GPU: NVIDIA gives Tegra no binary compatibility with "
        "other compute capabilities, so only kernels built for it (or PTX) run there."
    )
    assert finding.remediation == ()  # no x86_64 build of torch carries sm_87 code
    for name, capability in (("NVIDIA B300", "10.3"), ("NVIDIA GB10", "12.1"), ("NVIDIA L4", "8.9")):
        [finding] = diagnose("real-torch29-xla29", _with_gpu(name, capability), "gpu-arch-unsupported")
        assert finding.status.value == "ok", (name, finding.title)


def test_thor_is_judged_as_compute_capability_11_0() -> None:
    [finding] = diagnose("real-torch29-xla29", _with_gpu("NVIDIA Thor", "11.0"), "gpu-arch-unsupported")
    assert (finding.status.value, finding.evidence["tegra"]) == ("fail", ["11.0"])


def test_a_cuda13_build_without_ptx_does_not_run_on_a_newer_major() -> None:
    # torch 2.13's CUDA 13.0 wheels carry SASS up to sm_120 and no PTX, so a GPU of a newer major gets no kernels
    def edit(doc: dict[str, Any]) -> None:
        _with_gpu("a future GPU", "13.0")(doc)
        dist(doc, "torch")["version"] = "2.13.0"
        dist(doc, "torch")["self_declared"]["values"]["cuda"] = "13.0"
        dist(doc, "torch")["cuda_archs"] = None

    [finding] = diagnose("gpu-h100-healthy", edit, "gpu-arch-unsupported")
    assert (finding.status.value, finding.evidence["arch_list"]) == ("fail", "7.5;8.0;8.6;9.0;10.0;12.0")


def test_triton_ptxas_older_than_cuda_12_9_cannot_target_gb10() -> None:
    # CUDA 12.9 added sm_103 and sm_121 (CUDA Features Archive); Triton's bundled ptxas here is 12.4
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["nvidia"]["gpus"][0].update(name="NVIDIA GB10", compute_capability="12.1")

    [finding] = diagnose("triton-ptxas-too-old-for-blackwell", edit, "triton-ptxas")
    assert (finding.status.value, finding.title) == (
        "fail",
        "Triton's bundled ptxas 12.4.131 cannot compile for NVIDIA GB10 (sm_121 needs CUDA 12.9)",
    )


def _driver(version: str) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["nvidia"]["driver_version"] = version

    return edit


def test_the_installed_cuda_update_sets_the_minimum_driver() -> None:
    # torch 2.9 pins nvidia-cuda-runtime-cu12==12.8.90, CUDA 12.8 Update 1: its minimum is 570.124.06, not 570.26
    [finding] = diagnose("gpu-h100-healthy", _driver("570.86.10"), "cuda-driver-too-old")
    assert (finding.status.value, finding.title) == (
        "warn",
        "Driver 570.86.10 is older than CUDA 12.8 Update 1 wants (570.124.06); nvidia-cuda-runtime-cu12 runs on it "
        "only through minor version compatibility",
    )
    assert (finding.evidence["read_from"], finding.evidence["judged_as"]) == (
        "nvidia-cuda-runtime-cu12 wheel 12.8.90",
        "cudart 12.8.90 is CUDA 12.8 Update 1",
    )


def test_torch_version_cuda_alone_is_judged_by_the_ga_and_says_so() -> None:
    def edit(doc: dict[str, Any]) -> None:  # a torch that brings its own runtime: no runtime wheel to read
        _driver("570.86.10")(doc)
        doc["distributions"].remove(dist(doc, "nvidia-cuda-runtime-cu12"))

    [finding] = diagnose("gpu-h100-healthy", edit, "cuda-driver-too-old")
    assert (finding.status.value, finding.title, finding.evidence["releases"]) == (
        "ok",
        "Driver 570.86.10 runs torch (CUDA 12.8)",
        {"torch": "12.8"},
    )


def test_tensorflow_build_info_names_its_update() -> None:
    # build_info cuda_version 12.5.1 is CUDA 12.5 Update 1 (>= 555.42.06); conda's cuda-cudart 12.5.82 is too
    [finding] = diagnose("conda-tensorflow-conda-cuda", _driver("555.42.02"), "cuda-driver-too-old")
    assert (finding.status.value, finding.title) == (
        "warn",
        "Driver 555.42.02 is older than CUDA 12.5 Update 1 wants (555.42.06); conda cuda-cudart runs on it only "
        "through minor version compatibility",
    )


def _triton_on_h200(version: str, drop_unversioned: bool = False, override: str | None = None):
    """The real H200 container's facts with another Triton, without its libcuda.so, or with TRITON_LIBCUDA_PATH."""

    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "triton")["version"] = version
        libraries = doc["system"]["libraries"]
        if drop_unversioned:
            del libraries["ldconfig"]["libcuda.so"]
            for entry in libraries["ld_library_path"]:
                entry["libraries"] = [n for n in entry["libraries"] if n != "libcuda.so"]
        if override is not None:
            doc["env"]["TRITON_LIBCUDA_PATH"] = override
            libraries["triton_libcuda_path"] = [{"entry": override, "exists": True, "libraries": ["libcuda.so.1"]}]

    return edit


def test_triton_before_3_6_links_the_libcuda_so_beside_the_driver() -> None:
    [finding] = diagnose("real-gpu-h200", _triton_on_h200("3.5.0"), "triton-libcuda-link")
    assert (finding.status.value, finding.title) == ("ok", "libcuda.so is there for triton 3.5.0 to link against")


def test_triton_before_3_6_without_an_unversioned_libcuda_so_warns_with_a_folder_of_the_users_own() -> None:
    # triton 3.5's driver.py links with -lcuda; a driver bind-mounted by hand brings only libcuda.so.1
    [finding] = diagnose("container-libcuda-so1-only", lambda d: None, "triton-libcuda-link")
    assert (finding.status.value, finding.title) == (
        "warn",
        "No unversioned libcuda.so beside /usr/local/nvidia/lib64/libcuda.so.1: triton 3.5.0 cannot link its launchers",
    )
    assert finding.remediation == (
        "mkdir -p /root/.local/lib/triton-libcuda && ln -sf /usr/local/nvidia/lib64/libcuda.so.1 "
        "/root/.local/lib/triton-libcuda/libcuda.so",
        "export TRITON_LIBCUDA_PATH=/root/.local/lib/triton-libcuda"
        "  # Triton then links against this folder's libcuda.so",
    )


def test_without_a_folder_of_the_users_own_the_link_goes_beside_the_driver() -> None:
    # the H200 snapshot predates the compile-cache probe, so no writable HOME is known
    [finding] = diagnose("real-gpu-h200", _triton_on_h200("3.5.0", drop_unversioned=True), "triton-libcuda-link")
    assert finding.status.value == "warn"
    assert finding.remediation == (
        "sudo ln -s /usr/local/nvidia/lib64/libcuda.so.1 /usr/local/nvidia/lib64/libcuda.so",
    )


def test_triton_3_6_links_libcuda_so_1_and_needs_no_unversioned_link() -> None:
    [finding] = diagnose("real-gpu-h200", _triton_on_h200("3.6.0", drop_unversioned=True), "triton-libcuda-link")
    assert (finding.status.value, finding.title) == ("ok", "triton 3.6.0 links libcuda.so.1 itself")


def test_a_triton_libcuda_path_without_libcuda_so_fails() -> None:
    [finding] = diagnose("real-gpu-h200", _triton_on_h200("3.4.0", override="/opt/driver"), "triton-libcuda-link")
    assert (finding.status.value, finding.title) == ("fail", "TRITON_LIBCUDA_PATH=/opt/driver holds no libcuda.so")


def test_triton_before_2_2_reads_no_triton_libcuda_path_so_the_link_goes_beside_the_driver() -> None:
    [finding] = diagnose("real-gpu-h200", _triton_on_h200("2.1.0", drop_unversioned=True), "triton-libcuda-link")
    assert finding.status.value == "warn"
    assert finding.remediation == (
        "sudo ln -s /usr/local/nvidia/lib64/libcuda.so.1 /usr/local/nvidia/lib64/libcuda.so",
    )
