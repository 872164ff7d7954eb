"""scripts/import_names.py, which writes compat_matrix/failures/import-names.json from wheels' RECORD files: which
import names a wheel installs (packages, modules, compiled modules, a namespace's packages), the newest wheel of a
distribution, and the folders it never writes down."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from importlib import resources
from pathlib import Path

from conftest import load_script

from xladoctor.explain import shipped


def _wheel(folder: Path, name: str, version: str, files: list[str]) -> Path:
    path = folder / f"{name}-{version}-py3-none-any.whl"
    record = "".join(f"{f},sha256=x,1\n" for f in files) + f"{name}-{version}.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as archive:
        for f in files:
            archive.writestr(f, "")
        archive.writestr(f"{name}-{version}.dist-info/RECORD", record)
    return path


def test_a_wheel_s_import_names_are_read_from_its_record(tmp_path: Path) -> None:
    script = load_script("import_names")
    names = script.top_names(
        [
            "yaml/__init__.py", "_yaml/__init__.py", "six.py", "fast.cpython-311-x86_64-linux-gnu.so",
            "google/protobuf/__init__.py", "google/protobuf/message.py",  # a namespace: its package is the name
            "pyyaml-6.0.dist-info/METADATA", "pyyaml-6.0.data/scripts/x", "__pycache__/six.cpython-311.pyc",
            "README.md",
        ]
    )  # fmt: skip
    assert names == {"yaml", "_yaml", "six", "fast", "google.protobuf"}


def test_the_newest_wheel_of_each_distribution_is_read_and_junk_folders_are_not_written(tmp_path: Path) -> None:
    script = load_script("import_names")
    _wheel(tmp_path, "PyYAML", "5.4.1", ["oldyaml/__init__.py"])
    _wheel(tmp_path, "PyYAML", "6.0.10", ["yaml/__init__.py"])
    _wheel(tmp_path, "aiomysql", "0.2.0", ["aiomysql/__init__.py", "docs/conf.py", "examples/x.py"])
    _wheel(tmp_path, "nvidia_cudnn_cu12", "9.1.0", ["nvidia/cudnn/__init__.py"])
    doc = script.build([tmp_path])
    names = doc["names"]
    assert set(names) == {"yaml", "aiomysql"}, names  # 6.0.10 is newer than 5.4.1; docs, examples, nvidia left out
    assert names["yaml"] == [{"distribution": "pyyaml", "version": "6.0.10", "file": "PyYAML-6.0.10-py3-none-any.whl"}]


def test_every_row_of_the_table_shipped_is_what_its_file_says() -> None:
    script = load_script("import_names")
    path = resources.files("xladoctor.compat_matrix").joinpath("failures", "import-names.json")
    table = json.loads(path.read_text("utf-8"))
    assert table["generated_by"] == "scripts/import_names.py" and table["distributions_read"] > 500
    for name, rows in table["names"].items():
        assert name.split(".")[0] not in (*script.NOT_AN_IMPORT, script.PER_CUDA), name
        for row in rows:
            found = script._named(Path(row["file"]))  # the row's distribution and release are its file's
            assert found is not None and script.canonical(found.group("name")) == row["distribution"], row
            assert found.group("version") == row["version"] and (name, row["distribution"]) not in script.NAMESAKES
    assert shipped.the_one_shipping("yaml") == "pyyaml" and shipped.the_one_shipping("nvidia.cudnn") is None


def test_a_distribution_with_no_wheel_is_read_from_its_source_archive_s_top_level_txt(tmp_path: Path) -> None:
    script = load_script("import_names")
    path = tmp_path / "openai_whisper-20250625.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, text in [
            ("openai_whisper-20250625/openai_whisper.egg-info/top_level.txt", b"whisper\n"),
            ("openai_whisper-20250625/whisper/__init__.py", b""),
        ]:
            info = tarfile.TarInfo(name)
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    _wheel(tmp_path, "kornia", "0.9.0", ["kornia/__init__.py"])
    names = script.build([tmp_path])["names"]
    assert names["whisper"][0]["distribution"] == "openai-whisper" and names["kornia"][0]["file"].endswith(".whl")
