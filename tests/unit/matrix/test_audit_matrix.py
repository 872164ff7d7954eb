"""scripts/audit_matrix.py, offline: its zip reading over HTTP ranges and its derivations, on recorded answers."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"
sys.path.insert(0, str(SCRIPTS))

import audit_matrix  # noqa: E402
from pypi_wheels import Index, IndexError_, Wheel  # noqa: E402

BASE = "https://files.example/"


def wheel_bytes(name: str, version: str, requires: list[str], packages: list[str], padding: int = 0) -> bytes:
    """A small but real wheel: METADATA, a RECORD, and one module in each top-level package."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for package in packages:
            zf.writestr(f"{package}/__init__.py", "x = 1\n" * 50)
        for n in range(padding):  # enough members and the end record overflows into ZIP64
            zf.writestr(f"{packages[0]}/pad/{n}", b"")
        meta = "".join(f"Requires-Dist: {r}\n" for r in requires)
        zf.writestr(f"{name}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\n{meta}")
        zf.writestr(f"{name}-{version}.dist-info/RECORD", "")
    return buffer.getvalue()


class RecordedIndex(Index):
    """An index answered from memory: simple-API pages and wheel bytes, served by range like the real CDN."""

    def __init__(self, projects: dict[str, list[str]], blobs: dict[str, bytes], pep658: bool = False) -> None:
        super().__init__(cache_dir=Path("/nonexistent"), refresh=True)
        self.projects, self.blobs, self.pep658 = projects, blobs, pep658
        self.requests: list[tuple[str, str | None]] = []

    def get(
        self, url: str, accept: str | None = None, byte_range: str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        self.requests.append((url, byte_range))
        if url.startswith("https://pypi.org/simple/"):
            name = url.rstrip("/").rsplit("/", 1)[1]
            if name not in self.projects:
                return 404, {}, b""
            files = [{"filename": f, "url": BASE + f, "yanked": False} for f in self.projects[name]]
            return 200, {}, json.dumps({"files": files}).encode()
        if url.endswith(".metadata"):
            if not self.pep658:
                return 404, {}, b""
            return 200, {}, self.blobs[url[len(BASE) : -len(".metadata")]]
        blob = self.blobs[url[len(BASE) :]]
        assert byte_range is not None, "a whole wheel was requested"
        start_text, end_text = byte_range.split("-")
        start = max(len(blob) - int(end_text), 0) if not start_text else int(start_text)
        end = len(blob) - 1 if not start_text else int(end_text)
        return 206, {"Content-Range": f"bytes {start}-{end}/{len(blob)}"}, blob[start : end + 1]


def _wheel(filename: str) -> Wheel:
    index = RecordedIndex({"p": [filename]}, {})
    return index.wheels("p")[0]


def test_metadata_and_top_level_packages_come_from_range_reads_only() -> None:
    filename = "tensorflow_aarch64-2.16.1-cp311-cp311-manylinux_2_17_aarch64.whl"
    blob = wheel_bytes("tensorflow_aarch64", "2.16.1", ['tensorflow-cpu-aws==2.16.1; extra == "x"'], ["tensorflow"])
    index = RecordedIndex({"tensorflow-aarch64": [filename]}, {filename: blob})
    [wheel] = index.wheels("tensorflow-aarch64")
    assert index.metadata(wheel).get_all("Requires-Dist") == ['tensorflow-cpu-aws==2.16.1; extra == "x"']
    assert audit_matrix.top_levels(index.names(wheel)) == {"tensorflow"}
    ranged = [r for u, r in index.requests if u == BASE + filename]
    assert ranged and all(r is not None for r in ranged)


def test_zip64_central_directories_are_read() -> None:
    filename = "big-1.0-py3-none-any.whl"
    blob = wheel_bytes("big", "1.0", ["numpy"], ["big"], padding=0x10000)
    index = RecordedIndex({"big": [filename]}, {filename: blob})
    [wheel] = index.wheels("big")
    assert index.metadata(wheel).get_all("Requires-Dist") == ["numpy"]


def test_a_pep658_metadata_file_is_preferred() -> None:
    filename = "torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl"
    blob = b"Metadata-Version: 2.1\nName: torch\nRequires-Dist: triton==3.5.1\n"
    index = RecordedIndex({"torch": [filename]}, {filename: blob}, pep658=True)
    [wheel] = index.wheels("torch")
    assert audit_matrix.triton_of(index.metadata(wheel)) == ("triton", "==3.5.1")
    assert [u for u, _ in index.requests if u.startswith(BASE)] == [BASE + filename + ".metadata"]


@pytest.mark.parametrize(
    ("abi", "python"),
    [("cp312", "3.12"), ("cp313t", "3.13t"), ("cp37m", "3.7"), ("abi3", None), ("none", None)],
)
def test_the_abi_tag_names_the_python(abi: str, python: str | None) -> None:
    assert _wheel(f"x-1.0-cp37-{abi}-manylinux_2_28_x86_64.whl").cpython() == python


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ('triton (==2.0.0) ; platform_system == "Linux"', ("triton", "==2.0.0", 'platform_system == "Linux"')),
        (
            "cuda-toolkit[cudart,nvrtc]==13.0.2; platform_system == 'Linux'",
            ("cuda-toolkit", "==13.0.2", "platform_system == 'Linux'"),
        ),
        (
            'nvidia-cuda-runtime-cu12<13.0,>=12.5.82; extra == "and-cuda"',
            ("nvidia-cuda-runtime-cu12", "<13.0,>=12.5.82", 'extra == "and-cuda"'),
        ),
    ],
)
def test_requirements_old_and_new_style(text: str, parsed: tuple[str, str, str]) -> None:
    assert audit_matrix.requirement(text) == parsed


def _doc(relation: str, key: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"relation": relation, "key": key, "rows": rows}


def test_torch_python_reports_drift_and_missing_series() -> None:
    files = [
        f"torch-{v}-cp{m}-cp{m}{t}-manylinux_2_28_x86_64.whl"
        for v, ms in (("2.2.0", ("310", "311", "312")), ("2.3.0", ("310", "311")), ("2.4.0", ("311", "313")))
        for m in ms
        for t in ("", "t")
        if t == "" or m == "313"
    ] + ["torch-2.4.0-cp312-cp312-win_amd64.whl", "torch-2.5.0rc1-cp311-cp311-manylinux_2_28_x86_64.whl"]
    index = RecordedIndex({"torch": files}, {})
    doc = _doc(
        "torch-python",
        "torch",
        [{"torch": "2.2", "python": ["3.10", "3.11"]}, {"torch": "2.3", "python": ["3.10", "3.11"]}],
    )
    results = {r.key: r for r in audit_matrix.derive_torch_python(index, doc)}
    assert (results["2.2"].status, results["2.2"].detail) == (
        "drift",
        "python: matrix 3.10, 3.11, index 3.10, 3.11, 3.12",
    )
    assert results["2.3"].status == "agree"
    assert (results["2.4"].status, results["2.4"].detail) == ("missing", "python 3.11, 3.13")
    assert "free-threaded: 3.13t" in results["2.4"].evidence
    assert "2.5" not in results  # a release candidate is not a release


def test_torch_cuda_and_triton_read_one_linux_wheel_per_release() -> None:
    filename = "torch-2.12.0-cp311-cp311-manylinux_2_28_x86_64.whl"
    requires = [
        'cuda-toolkit[cudart,nvrtc]==13.0.2; platform_system == "Linux"',
        'triton==3.7.0; platform_system == "Linux"',
    ]
    index = RecordedIndex({"torch": [filename]}, {filename: wheel_bytes("torch", "2.12.0", requires, ["torch"])})
    [cuda] = audit_matrix.derive_torch_cuda(index, _doc("torch-cuda", "torch", [{"torch": "2.12.0", "cuda": "12.8"}]))
    assert (cuda.status, cuda.detail) == ("drift", "cuda: matrix 12.8, index 13.0")
    [triton] = audit_matrix.derive_torch_triton(
        index, _doc("torch-triton", "torch", [{"torch": "2.12.0", "triton": "== 3.7.0"}])
    )
    assert (triton.status, triton.evidence) == ("agree", f"Requires-Dist of {filename}: triton==3.7.0")


def test_a_distribution_without_the_package_is_drift(tmp_path: Path) -> None:
    files = {"tensorflow-rocm": "tensorflow_rocm-2.14.0.600-cp310-cp310-manylinux_2_28_x86_64.whl"}
    blobs = {files["tensorflow-rocm"]: wheel_bytes("tensorflow_rocm", "2.14.0.600", [], ["tensorflow_rocm_only"])}
    index = RecordedIndex({k: [v] for k, v in files.items()}, blobs)
    doc = _doc(
        "conflicting-distributions",
        "import_package",
        [{"import_package": "tensorflow", "distributions": ["tensorflow-rocm", "gone"]}],
    )
    results = [(r.key, r.status) for r in audit_matrix.derive_conflicts(index, doc)]
    assert results == [("tensorflow: tensorflow-rocm", "drift"), ("tensorflow: gone", "underivable")]


def test_exit_status_and_one_line_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "torch-python.json").write_text(
        json.dumps(_doc("torch-python", "torch", [{"torch": "2.3", "python": ["3.11"]}]))
    )
    (tmp_path / "cuda-driver.json").write_text(json.dumps(_doc("cuda-driver", "cuda", [])))
    files = ["torch-2.3.0-cp311-cp311-manylinux1_x86_64.whl"]
    monkeypatch.setattr(audit_matrix, "Index", lambda refresh: RecordedIndex({"torch": files}, {}))
    assert audit_matrix.main(["--matrix", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "cuda-driver: not derivable from the index: minimum drivers are NVIDIA's" in out
    assert out.rstrip().endswith("1 relations not derivable from the index (cuda-driver)")
    files.append("torch-2.3.1-cp312-cp312-manylinux1_x86_64.whl")
    assert audit_matrix.main(["--matrix", str(tmp_path), "--json", "--relation", "torch-python"]) == 1
    assert json.loads(capsys.readouterr().out)["totals"]["drift"] == 1

    def offline(refresh: bool) -> Index:
        raise IndexError_("https://pypi.org/simple/torch/: [Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(audit_matrix, "audit", lambda index, relations: offline(False))
    assert audit_matrix.main(["--matrix", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as exit_:
        audit_matrix.main(["--matrix", str(tmp_path), "--relation", "torch-pyhton"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1
