"""scripts/attribute_history.py, which writes compat_matrix/failures/attribute-history.json from the released wheels:
what it reads from a wheel's source (methods, class-body names, self.X, bases within the wheel, __getattr__), and how
it keeps an attribute only where releases differ."""

from __future__ import annotations

import zipfile
from pathlib import Path
from types import ModuleType

from conftest import load_script


def _script() -> ModuleType:
    return load_script("attribute_history")


OLD = """
class Cache:
    def get_max_length(self):
        return self.limit

class DynamicCache(Cache):
    mode = "dynamic"
    def __init__(self):
        self.key_cache = []
        self.count: int = 0

class Lazy:
    def __getattr__(self, name):
        return name
    def old(self):
        pass
"""

NEW = """
class Cache:
    def get_seq_length(self):
        return 0

class DynamicCache(Cache):
    mode = "dynamic"
    def __init__(self):
        self.layers = []
        self.count: int = 0
        self._private = 1

class Lazy:
    def __getattr__(self, name):
        return name
"""


def _wheel(tmp_path: Path, version: str, source: str) -> Path:
    path = tmp_path / f"tiny-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("tiny/cache_utils.py", source)
        archive.writestr("other/ignored.py", "class DynamicCache:\n    def unrelated(self):\n        pass\n")
    return path


def test_a_wheels_classes_are_read_with_what_their_bases_in_it_give_them(tmp_path: Path) -> None:
    script = _script()
    target = script.Target("tiny", "1.0", ("tiny",))
    read = script.classes(_wheel(tmp_path, "1.0", OLD), target)
    assert read["DynamicCache"].attributes >= {"mode", "__init__", "key_cache", "count", "get_max_length"}
    assert "unrelated" not in read["DynamicCache"].attributes  # another top-level package of the wheel
    assert read["Lazy"].dynamic and not read["DynamicCache"].dynamic


def test_only_what_some_release_lacked_is_kept_and_private_names_are_not(tmp_path: Path) -> None:
    script = _script()
    target = script.Target("tiny", "1.0", ("tiny",))
    series = ["1.0", "1.1", "1.2"]
    read = [
        script.classes(_wheel(tmp_path, "1.0", OLD), target),
        script.classes(_wheel(tmp_path, "1.1", OLD), target),
        script.classes(_wheel(tmp_path, "1.2", NEW), target),
    ]
    paths = [{"tiny", "tiny.cache_utils"}, {"tiny", "tiny.cache_utils"}, {"tiny"}]
    table = script.encode(series, read, paths)
    assert table["modules"] == {"tiny": "0-2", "tiny.cache_utils": "0-1"}
    names = [name for name, _ in table["classes"]]
    assert "Lazy" not in names  # answers unknown names itself: its history cannot tell
    index = str(names.index("DynamicCache"))
    changed = table["changed"]
    assert index in changed["get_max_length"]["0-1"].split(",")
    assert index in changed["get_seq_length"]["2-2"].split(",")
    assert index in changed["layers"]["2-2"].split(",") and index in changed["key_cache"]["0-1"].split(",")
    assert "mode" not in changed and "count" not in changed  # every release had them
    assert "_private" not in changed


def test_module_paths_come_from_files_extensions_folders_and_a_folder_added_to_path(tmp_path: Path) -> None:
    script = _script()
    wheel = tmp_path / "tiny-3.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        added = '__path__.append(os.path.join(os.path.dirname(__file__), "api"))\n'
        archive.writestr("tiny/__init__.py", "import os\n" + added)
        archive.writestr("tiny/api/backend/__init__.py", "")
        archive.writestr("tiny/_C.cpython-311-darwin.so", b"")
        archive.writestr("tiny/models/gemma/modeling_gemma.py", "")
        archive.writestr("tiny-3.0.dist-info/RECORD", "")
    found = script.modules(wheel, script.Target("tiny", "3.0", ("tiny",)))
    assert {"tiny", "tiny._C", "tiny.models", "tiny.models.gemma", "tiny.models.gemma.modeling_gemma"} <= found
    assert {"tiny.api.backend", "tiny.backend"} <= found  # imports under both names
