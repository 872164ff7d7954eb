"""compat_matrix/failures/api-history.json and the script that writes it from the released wheels
(scripts/api_history.py): what it reads from a wheel's source, and that the table it wrote holds together."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from types import ModuleType

from conftest import load_script

from xladoctor.matrix.failures import parameter_history

ROOT = Path(__file__).resolve().parents[3]
TABLE = ROOT / "compat_matrix" / "failures" / "api-history.json"


def _script() -> ModuleType:
    return load_script("api_history")


SOURCE = """
from dataclasses import dataclass, field

@dataclass
class BaseConfig:
    seed: int = 0

@dataclass
class TinyConfig(BaseConfig):
    rank: int = 8
    alpha: float = field(default=16.0)

class TinyTrainer(Base):
    @deprecate_kwarg("tokenizer", new_name="processing_class", version="9.0")
    def __init__(self, model, args=None, *, processing_class=None):
        pass

class LooseTrainer:
    def __init__(self, model, **kwargs):
        pass

class Helper:
    def __init__(self, x):
        pass
"""


def test_a_wheel_s_constructors_dataclass_fields_and_deprecated_names_are_read(tmp_path: Path) -> None:
    script = _script()
    wheel = tmp_path / "tiny-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("tiny/trainer.py", SOURCE)
        archive.writestr("tiny/other.py", "class OtherTrainer:\n    def __init__(self, unread):\n        pass\n")
    target = script.Target("tiny", "1.0", (r"tiny/trainer\.py",), r"\w+(?:Trainer|Config)")
    shapes = script.shapes(wheel, target)
    assert sorted(shapes) == ["BaseConfig", "LooseTrainer", "TinyConfig", "TinyTrainer"]  # Helper, other.py: not kept
    assert shapes["TinyConfig"].parameters == {"seed": "", "rank": "", "alpha": ""}  # the base's field included
    assert shapes["TinyTrainer"].parameters == {
        "model": "", "args": "", "processing_class": "", "tokenizer": "processing_class",
    }  # fmt: skip
    assert shapes["LooseTrainer"].var_keyword and not shapes["TinyTrainer"].var_keyword


def test_the_table_holds_together() -> None:
    doc = json.loads(TABLE.read_text(encoding="utf-8"))
    assert doc["generated_by"] == "scripts/api_history.py" and "wheels" in doc["source"]
    for row in doc["rows"]:
        releases = row["releases"]
        assert releases == sorted(releases, key=lambda v: tuple(map(int, v.split(".")))), row["class"]
        for name, entry in row["parameters"].items():
            assert entry["first"] in releases and entry["last"] in releases, (row["class"], name)
            assert releases.index(entry["first"]) <= releases.index(entry["last"]), (row["class"], name)


def test_what_the_releases_say_is_looked_up_by_class_and_name() -> None:
    """Facts checked against the wheels themselves: trl 0.12.2's SFTTrainer still takes tokenizer= through
    @deprecate_kwarg, 0.13.0's does not; Lightning 2.0 dropped gpus=."""
    (trl,) = parameter_history("SFTTrainer", "tokenizer")
    assert (trl.package, trl.last, trl.next_series, trl.renamed_to, trl.removed) == (
        "trl", "0.12", "0.13", "processing_class", True,
    )  # fmt: skip
    lightning = [h for h in parameter_history("Trainer", "gpus") if h.package == "pytorch-lightning"]
    assert lightning and lightning[0].next_series == "2.0"
    assert parameter_history("SFTTrainer", "no_such_argument") == []


def test_the_first_release_that_refuses_counts_the_package_s_releases_not_the_class_s() -> None:
    """trl's KTOTrainer was gone from 0.26 to 1.7: model_init=, last taken in 0.25, is refused from 0.26 on."""
    (kto,) = parameter_history("KTOTrainer", "model_init")
    assert (kto.last, kto.next_series) == ("0.25", "0.26")


CALLABLES = """
def hub_download(repo_id, *, token=None, local_dir_use_symlinks="auto"):
    pass

@validate_args
def snapshot(repo_id, *, token=None):
    pass

class TinyPipeline:
    @torch.no_grad()
    def __call__(self, prompt, ip_image=None, **kwargs):
        pass

    def helper(self, x):
        pass

def unread(x):
    pass
"""


def test_a_wheel_s_functions_and_methods_are_read_with_the_names_a_decorator_accepts(tmp_path: Path) -> None:
    script = _script()
    wheel = tmp_path / "tiny-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("tiny/api.py", CALLABLES)
        archive.writestr("tiny/_validators.py", "def validate_args(f):\n    smoothly_accept_old_token(f)\n")
    target = script.Target(
        "tiny", "1.0", (r"tiny/api\.py",), "(?!)", r"hub_download|snapshot|\w+Pipeline\.__call__",
        (("validate_args", "tiny/_validators.py", "smoothly_accept_old_token", "use_auth_token", "token"),),
    )  # fmt: skip
    shapes = script.shapes(wheel, target)
    assert sorted(shapes) == ["TinyPipeline.__call__", "hub_download", "snapshot"]  # helper, unread: not kept
    assert shapes["hub_download"].parameters == {"repo_id": "", "token": "", "local_dir_use_symlinks": ""}
    assert shapes["snapshot"].parameters == {"repo_id": "", "token": "", "use_auth_token": "token"}
    assert shapes["TinyPipeline.__call__"].parameters == {"prompt": "", "ip_image": ""}  # self left out
    assert shapes["TinyPipeline.__call__"].var_keyword
    # a release whose decorator no longer holds the marker does not accept the old name
    later = tmp_path / "tiny-2.0-py3-none-any.whl"
    with zipfile.ZipFile(later, "w") as archive:
        archive.writestr("tiny/api.py", CALLABLES)
        archive.writestr("tiny/_validators.py", "def validate_args(f):\n    return f\n")
    assert "use_auth_token" not in script.shapes(later, target)["snapshot"].parameters


def test_functions_are_looked_up_by_the_name_python_s_message_gives_them() -> None:
    """Facts checked against the wheels: huggingface_hub's @validate_hf_hub_args took use_auth_token= as token= up
    to 0.36 (utils/_validators.py), 1.0 dropped it; diffusers' StableDiffusionPipeline.__call__ took ip_adapter_image=
    from 0.24."""
    (hub,) = parameter_history("snapshot_download", "use_auth_token")
    assert (hub.package, hub.last, hub.next_series, hub.renamed_to) == ("huggingface-hub", "0.36", "1.0", "token")
    (sd,) = parameter_history("StableDiffusionPipeline.__call__", "ip_adapter_image")
    assert (sd.package, sd.first, sd.added, sd.removed) == ("diffusers", "0.24", True, False)
