"""The readers of the packages probe (xladoctor/probes/scripts/packages.py) made faster give what the plain ones
gave: each is held to the straightforward version it replaced, on real-looking and on random, hostile input."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import random
import struct
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "xladoctor" / "probes" / "scripts" / "packages.py"


@pytest.fixture(scope="module")
def probe() -> ModuleType:
    spec = importlib.util.spec_from_file_location("xladoctor_probe_packages", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its main() runs only as __main__
    return module


# --- the straightforward readers, as they were before issue 26 -----------------------------------------------


def plain_top_levels(record_text: str) -> tuple[list[str], list[str]]:
    tops: list[str] = []
    has_init: set[str] = set()
    for line in record_text.splitlines():
        path = line.split(",", 1)[0].strip().strip('"')
        if not path or path.startswith(("..", "/")):
            continue
        parts = path.replace("\\", "/").split("/")
        first = parts[0]
        if first.endswith((".dist-info", ".data", ".egg-info")) or first == "__pycache__":
            continue
        if first not in tops:
            tops.append(first)
        if len(parts) == 2 and parts[1] == "__init__.py":
            has_init.add(first)
    return tops, sorted(has_init)


def plain_shared_libs(record_text: str) -> list[str]:
    libs = []
    for line in record_text.splitlines():
        path = line.split(",", 1)[0].strip().strip('"')
        name = path.rsplit("/", 1)[-1]
        if not path.startswith(("..", "/")) and (name.endswith(".so") or ".so." in name):
            libs.append(path)
    return libs


def plain_fatbin_archs(probe: ModuleType, path: Path) -> dict[str, dict[str, int]] | None:
    counts: dict[str, dict[str, int]] = {"cubin": {}, "ptx": {}}
    try:
        with open(path, "rb") as handle:
            found = probe._elf_section(handle, b".nv_fatbin")
            if found is None:
                return None
            start, size = found
            pos, end = start, start + size
            while pos + 16 <= end:
                handle.seek(pos)
                magic, _version, header_size, body_size = struct.unpack("<IHHQ", handle.read(16))
                if magic != probe.FATBIN_MAGIC:
                    pos += 8
                    continue
                entry, stop = pos + header_size, pos + header_size + body_size
                while entry + 32 <= stop:
                    handle.seek(entry)
                    head = handle.read(32)
                    kind, _unused, entry_header, entry_size = struct.unpack_from("<HHIQ", head, 0)
                    arch = struct.unpack_from("<I", head, 28)[0]
                    if entry_header == 0:
                        break
                    bucket = counts["ptx" if kind == 1 else "cubin"]
                    bucket[str(arch)] = bucket.get(str(arch), 0) + 1
                    entry += entry_header + entry_size
                pos = stop
    except (OSError, struct.error, ValueError, IndexError):
        return None
    return counts


# --- RECORD ----------------------------------------------------------------------------------------------------

TORCH_LIKE = "\n".join(
    [
        "torch/__init__.py,sha256=abc,100",
        "torch/_C.cpython-311-x86_64-linux-gnu.so,sha256=abc,100",
        "torch/lib/libtorch_cuda.so,sha256=abc,100",
        "torch/lib/libgomp.so.1,sha256=abc,100",
        '"torch/utils/__init__.py",sha256=abc,100',
        "functorch/__init__.py,,",
        "torchgen/packaged/x.yaml,,",
        "torch-2.9.0.dist-info/RECORD,,",
        "../../../bin/torchrun,sha256=abc,100",
        "__pycache__/typing_extensions.cpython-311.pyc,,",
        "typing_extensions.py,sha256=abc,100",
        "Lib\\site-packages\\win\\__init__.py,,",
        "",
    ]
)
PIECES = ["a", "b", "pkg", ".", "..", "/", "\\", ",", '"', " ", "\t", "__init__.py", ".so", ".so.1", ".dist-info"]
PIECES += ["__pycache__", ".data", ".egg-info", "\r", "\x0b", "\x85", "\u2028", "\n", "\n", "\n", "é"]


def _random_record(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 120)))


def test_record_readers_on_a_real_looking_record(probe: ModuleType) -> None:
    lines = TORCH_LIKE.splitlines()
    assert probe.record_top_levels(lines) == plain_top_levels(TORCH_LIKE)
    assert probe.record_top_levels(lines) == (
        ["torch", "functorch", "torchgen", "typing_extensions.py", "Lib"],
        ["functorch", "torch"],
    )
    assert probe.record_shared_libs(lines) == plain_shared_libs(TORCH_LIKE)


def test_record_readers_agree_with_the_plain_ones_on_random_records(probe: ModuleType) -> None:
    rng = random.Random(26)
    for _ in range(3000):
        text = _random_record(rng)
        lines = text.splitlines()
        assert probe.record_top_levels(lines) == plain_top_levels(text), repr(text)
        assert probe.record_shared_libs(lines) == plain_shared_libs(text), repr(text)


# --- Requires-Dist ---------------------------------------------------------------------------------------------


def _dist(tmp_path: Path, folder: str, files: dict[str, str]) -> Any:
    root = tmp_path / folder
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return importlib.metadata.PathDistribution(root)


@pytest.mark.parametrize(
    "folder, files",
    [
        ("a-1.dist-info", {"METADATA": "Name: a\nVersion: 1\nRequires-Dist: b>=2\nRequires-Dist: c; extra == 'x'\n"}),
        ("a-1.dist-info", {"METADATA": "Name: a\nVersion: 1\n\nA long description.\n"}),
        ("a-1.egg-info", {"PKG-INFO": "Name: a\nVersion: 1\n", "requires.txt": "b>=2\n\n[x]\nc\n"}),
        ("a-1.egg-info", {"PKG-INFO": "Name: a\nVersion: 1\n", "requires.txt": ""}),
        ("a-1.dist-info", {}),
    ],
    ids=["requires-dist", "none", "egg-info", "empty-requires-txt", "no-metadata"],
)
def test_requires_reads_metadata_once_and_says_what_dist_requires_says(
    probe: ModuleType, tmp_path: Path, folder: str, files: dict[str, str]
) -> None:
    dist = _dist(tmp_path, folder, files)
    assert probe._requires(dist, dist.metadata) == list(dist.requires or [])


# --- fatbin ----------------------------------------------------------------------------------------------------


def _elf_with_fatbin(body: bytes) -> bytes:
    """A 64-bit little-endian ELF with two sections: the names, and .nv_fatbin holding `body`."""
    names = b"\0.shstrtab\0.nv_fatbin\0"
    names_at, body_at = 64, 64 + len(names)
    table_at = body_at + len(body)
    header = bytearray(64)
    header[:5] = b"\x7fELF\x02"
    struct.pack_into("<Q", header, 0x28, table_at)
    struct.pack_into("<HHH", header, 0x3A, 64, 3, 1)
    null = bytes(64)
    shstrtab = struct.pack("<IIQQQQ", 1, 3, 0, 0, names_at, len(names)) + bytes(24)
    fatbin = struct.pack("<IIQQQQ", 11, 1, 0, 0, body_at, len(body)) + bytes(24)
    return bytes(header) + names + body + null + shstrtab + fatbin


def _container(entries: list[tuple[int, int]]) -> bytes:
    """A fatbin container: its header, then one entry per (kind, sm_ number), each with a 16-byte payload."""
    body = b"".join(
        struct.pack("<HHIQ", kind, 0, 64, 16) + bytes(12) + struct.pack("<I", arch) + bytes(32 + 16)
        for kind, arch in entries
    )
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body


@pytest.mark.parametrize(
    "body",
    [
        _container([(2, 80), (2, 90), (1, 90)]) + bytes(8) + _container([(2, 80)]),
        _container([(2, 80), (2, 90)])[:-40],  # cut inside the last entry
        bytes(5) + _container([(2, 120)]),  # not aligned: the scan steps over it
        b"",
    ],
    ids=["two-containers", "truncated", "misaligned", "empty"],
)
def test_fatbin_archs_reads_what_the_seek_and_read_version_read(probe: ModuleType, tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "libtorch_cuda.so"
    path.write_bytes(_elf_with_fatbin(body))
    assert probe.fatbin_archs(str(path)) == plain_fatbin_archs(probe, path)


@pytest.mark.parametrize("offset", [2**40, 2**63 - 1, 2**63, 2**64 - 64])
def test_a_section_past_any_file_is_no_architectures(probe: ModuleType, tmp_path: Path, offset: int) -> None:
    data = bytearray(_elf_with_fatbin(_container([(2, 80)])))
    table_at = struct.unpack_from("<Q", data, 0x28)[0]
    struct.pack_into("<Q", data, table_at + 2 * 64 + 24, offset)  # .nv_fatbin's sh_offset
    path = tmp_path / "libtorch_cuda.so"
    path.write_bytes(bytes(data))
    assert probe.fatbin_archs(str(path)) is None


# --- distributions: found and read as importlib.metadata finds and reads them --------------------------------


def _seen(dist: Any) -> tuple[Any, ...]:
    """What the probe reads of a distribution, from either reader."""
    meta = dist.metadata
    headers = (
        tuple(meta.get(h) for h in ("Name", "Version", "Requires-Python")) + (meta.get_all("Requires-Dist"),)
        if meta is not None
        else None
    )
    points = sorted((p.group, p.name) for p in dist.entry_points)
    return str(dist._path), str(dist.locate_file("")), headers, points, dist.requires


def _both(probe: ModuleType, sys_path: list[str]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    ours = [_seen(d) for d in probe.distributions(sys_path)]
    theirs = [_seen(d) for d in importlib.metadata.distributions(path=sys_path)]
    return ours, theirs


def test_distributions_of_this_interpreter_are_importlib_metadata_s(probe: ModuleType) -> None:
    import sys

    ours, theirs = _both(probe, list(sys.path))
    assert len(ours) > 20  # the test environment: pytest, typer, rich, ... and xladoctor itself
    assert ours == theirs


ODD_FOLDERS: dict[str, dict[str, str]] = {
    "plain-1.0.dist-info": {
        "METADATA": "Metadata-Version: 2.1\nName: plain\nVersion: 1.0\nRequires-Dist: a>=1\nRequires-Dist: b; "
        "extra == 'x'\nRequires-Python: >=3.8\n\nName: not-a-header\n",
        "entry_points.txt": "[torch_xla.plugins]\ncpu = plugin:Cpu\n# a comment\n[console_scripts]\n go = x:y \n",
    },
    "folded-2.0.dist-info": {
        "METADATA": "Name: folded\nLicense: one\n        two \u2028 three\x85 four\n\tfive\nVersion: 2.0\n"
        "Requires-Dist: c\n"
    },
    "nobody-3.dist-info": {"METADATA": "Name: nobody\nVersion: 3\nthis line is no header\nRequires-Dist: d\n"},
    "empty-4.dist-info": {},
    "pkginfo-5.egg-info": {"PKG-INFO": "Name: pkginfo\nVersion: 5\n", "requires.txt": "e>=1\n\n[extra]\nf\n"},
    "Same_Name-1.dist-info": {"METADATA": "Name: Same-Name\nVersion: 1\n"},
    "same.name-2.dist-info": {"METADATA": "Name: same.name\nVersion: 2\n"},
    "crlf-6.dist-info": {"METADATA": "Name: crlf\r\nVersion: 6\r\nSummary: x:\r\n\r\nbody\r\n"},
}


def test_odd_folders_are_read_as_importlib_metadata_reads_them(probe: ModuleType, tmp_path: Path) -> None:
    site = tmp_path / "site"
    for folder, files in ODD_FOLDERS.items():
        (site / folder).mkdir(parents=True)
        for name, text in files.items():
            (site / folder / name).write_bytes(text.encode())
    (site / "legacy-7.egg-info").write_text("Name: legacy\nVersion: 7\n")  # an egg-info that is a file
    (site / "old-8.egg" / "EGG-INFO").mkdir(parents=True)
    (site / "old-8.egg" / "EGG-INFO" / "PKG-INFO").write_text("Name: old\nVersion: 8\n")
    (site / "not-a-dist").mkdir()
    entries = [str(site), str(site) + "/", str(site).replace("/site", "//site/."), str(site / "old-8.egg"), "/nowhere"]
    ours, theirs = _both(probe, entries)
    assert len(ours) == 3 * 9 + 1  # nine in the folder, under three spellings of it, and the egg's EGG-INFO
    assert ours == theirs


def test_the_working_directory_entry_is_read_as_importlib_metadata_reads_it(
    probe: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "here-1.dist-info").mkdir()
    (tmp_path / "here-1.dist-info" / "METADATA").write_text("Name: here\nVersion: 1\n")
    monkeypatch.chdir(tmp_path)
    ours, theirs = _both(probe, [""])
    assert ours == theirs and [seen[:2] for seen in ours] == [("here-1.dist-info", ".")]


def test_a_metadata_file_that_is_not_utf8_fails_as_importlib_metadata_fails(probe: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "latin-1.dist-info").mkdir()
    (tmp_path / "latin-1.dist-info" / "METADATA").write_bytes(b"Name: latin\nVersion: 1\nAuthor: Jos\xe9\n")
    readers: list[Any] = [probe.distributions([str(tmp_path)]), importlib.metadata.distributions(path=[str(tmp_path)])]
    for reader in readers:
        with pytest.raises(UnicodeDecodeError):
            next(iter(reader)).metadata.get("Name")


def test_a_zip_archive_on_the_path_is_left_to_importlib_metadata(probe: ModuleType, tmp_path: Path) -> None:
    import zipfile

    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped-1.dist-info/METADATA", "Name: zipped\nVersion: 1\n")
    found = list(probe.distributions([str(archive)]))
    assert [d.metadata.get("Name") for d in found] == ["zipped"]
