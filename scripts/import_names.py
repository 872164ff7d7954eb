"""Write compat_matrix/failures/import-names.json: which distribution ships each import name, read from wheels.

Why: `No module named 'X'` is answered with an install command, and `pip install X` is right only when a
distribution named X ships the module X. Often none does under that name (cv2 is opencv-python, and a project's
own folders `utils` or `ldm` are no distribution at all), and a project of that name on PyPI may be somebody else's
(a typosquat waits on the names people guess). explain's rule (explain/rules/versions.py: no_module_named) gives
the install command only for a name this table (or its short hand-kept list, rules/__init__.py's DISTRIBUTION_OF)
knows; for any other it says what to check instead.

What: for each wheel given (the newest release of each distribution found), the names it installs at the top of
site-packages, read from the wheel's RECORD (its list of files): a package folder, a module file, a compiled
module; and for a namespace folder (no __init__.py: google, nvidia) the packages one level inside it. Each name
keeps the distributions that ship it, with the release and file read. The names are read, never typed; which
distributions --download fetches (ECOSYSTEM) and the few names left out (NOT_AN_IMPORT, NAMESAKES) are kept here
by hand, each with its reason.

Usage (standard library only):
  python scripts/import_names.py DIR_OR_WHEEL ...   # e.g. a folder filled by `pip download --no-deps -d DIR ...`
  python scripts/import_names.py --download DIR [DIR_OR_WHEEL ...]   # fetch ECOSYSTEM into DIR first
  python scripts/import_names.py --check DIR ...    # exit 1 when the table is not what those wheels make
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from xladoctor.explain.shipped import canonical  # noqa: E402  (the name PyPI compares, as explain compares it)

OUT = ROOT / "compat_matrix" / "failures" / "import-names.json"
_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$")
# a source archive (for a project that publishes no wheel): its egg-info's top_level.txt names its imports
_SDIST = re.compile(r"^(?P<name>.+)-(?P<version>\d[^-]*)\.tar\.gz$")
_TOP_LEVEL = re.compile(r"[^/]+/[^/]+\.egg-info/top_level\.txt")
_VERSION_PART = re.compile(r"\d+|[a-z]+")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
# Folders some wheels ship by mistake at the top of site-packages (aiomysql's docs, einx's test, a C library's
# include/ and lib/): no distribution is the one to install for them, so they are never written down.
NOT_AN_IMPORT = frozenset({
    "test", "tests", "doc", "docs", "example", "examples", "benchmark", "benchmarks", "scripts", "include", "lib",
    "lib64", "share", "bin",
})  # fmt: skip
# Distributions on PyPI that share the import name of a better-known project people mean by it: PyPI's apex is not
# NVIDIA's apex (github.com/NVIDIA/apex, built from its repository), so `import apex` gets no install from this table.
NAMESAKES = {("apex", "apex")}
# The nvidia namespace's distributions come per CUDA major version, named and laid out differently in each
# (nvidia-cudnn-cu12 installs nvidia/cudnn; CUDA 13's nvidia-cublas installs nvidia/cu13): which one is right is the
# framework's CUDA, not a name, so explain's rule reads that namespace itself and the table leaves it out.
PER_CUDA = "nvidia"


# The ML ecosystem's distributions that --download fetches (beside whatever wheels the folders given hold): the
# frameworks' companions, model libraries, applications' dependencies. The largest wheels are left out (torch,
# tensorflow, jaxlib, vllm, xformers, triton, tensorrt, cupy): explain names the frameworks among them by their own
# names (rules/__init__.py: KNOWN_IMPORTS) and gives the others no install command.
ECOSYSTEM = (
    "ultralytics", "kornia", "gradio", "ray", "mlflow", "xgboost", "lightgbm", "catboost", "torchao", "torchtext",
    "torchdata", "torchmetrics", "pytorch-lightning", "lightning", "tensorflow-addons", "tensorflow-probability",
    "tensorflow-datasets", "tensorflow-hub", "tensorflow-text", "tensorflow-io", "keras-cv", "keras-nlp",
    "keras-hub", "tf-keras", "flax", "optax", "orbax-checkpoint", "chex", "dm-haiku", "equinox", "jaxtyping",
    "diffrax", "numpyro", "distrax", "objax", "trax", "open-clip-torch", "openai-whisper", "faster-whisper",
    "ctranslate2", "whisperx", "pyannote-audio", "speechbrain", "librosa", "soundfile", "torchcodec", "av",
    "decord", "imageio", "imageio-ffmpeg", "moviepy", "timm", "transformers", "diffusers", "accelerate", "peft",
    "trl", "datasets", "evaluate", "tokenizers", "sentencepiece", "sentence-transformers", "safetensors",
    "huggingface-hub", "hf-transfer", "bitsandbytes", "auto-gptq", "autoawq", "optimum", "optimum-quanto", "gguf",
    "llama-cpp-python", "exllamav2", "unsloth", "liger-kernel", "flash-linear-attention", "mamba-ssm", "causal-conv1d",
    "einops", "einx",
    "deepspeed", "fairscale", "colossalai", "horovod", "mpi4py", "petastorm", "onnx", "onnxruntime",
    "onnxsim", "onnxscript", "pycuda", "numba", "cuda-python", "nvidia-ml-py", "pynvml", "gpustat", "opencv-python",
    "opencv-contrib-python", "scikit-image", "scikit-learn", "albumentations", "imgaug", "pycocotools", "shapely",
    "trimesh", "pyrender", "pytorch3d", "fvcore", "iopath", "omegaconf", "hydra-core", "wandb", "tensorboard",
    "tensorboardx", "comet-ml", "neptune", "clearml", "mmcv", "mmengine", "mmdet", "mmsegmentation", "mmpose",
    "openmim", "segment-anything", "sam2", "groundingdino-py", "supervision", "insightface", "onnx2torch",
    "facexlib", "basicsr", "gfpgan", "realesrgan", "controlnet-aux", "rembg", "torch-geometric", "torch-scatter",
    "torch-sparse", "nerfacc", "gsplat", "tinycudann", "langchain", "langchain-core", "langchain-community",
    "llama-index", "openai", "anthropic", "tiktoken", "google-generativeai", "google-genai", "sglang", "nltk",
    "spacy", "gensim", "jieba", "pypinyin", "matplotlib", "seaborn", "plotly", "pandas", "polars", "pyarrow",
    "h5py", "zarr", "netcdf4", "xarray", "protobuf", "grpcio", "absl-py", "ml-dtypes", "jax", "pyyaml", "pillow",
    "python-dotenv", "attrs", "cattrs", "pydantic", "typeguard", "beartype", "tqdm", "rich", "click", "typer",
    "fire", "mujoco", "gymnasium", "gym", "dm-control", "stable-baselines3", "pybullet", "isaacgym",
    "comfyui-frontend-package", "spandrel", "kornia-rs",
)  # fmt: skip


def download(folder: Path) -> None:
    """Fetch ECOSYSTEM into `folder` without dependencies: the wheel, or the source archive where none is published."""
    folder.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder)]
    for name in ECOSYSTEM:
        if subprocess.run([*pip, "--only-binary=:all:", name], capture_output=True).returncode != 0:
            if subprocess.run([*pip, "--no-binary=:all:", name], capture_output=True).returncode != 0:
                print(f"not fetched: {name}", file=sys.stderr)


def _version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key good enough to pick the newest of a distribution's wheels (numbers compare as numbers)."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in _VERSION_PART.findall(version.lower()))


def _named(file: Path) -> re.Match[str] | None:
    return _WHEEL.match(file.name) or _SDIST.match(file.name)


def newest_wheels(paths: list[Path]) -> dict[str, Path]:
    """The newest release of each distribution among the files given and those in the folders given: its wheel, or
    its source archive where that release has no wheel there."""
    files = [p for path in paths for p in (sorted(path.iterdir()) if path.is_dir() else [path])]
    newest: dict[str, tuple[tuple[tuple[tuple[int, int | str], ...], bool], Path]] = {}
    for file in files:
        found = _named(file)
        if found is None:
            continue
        key = (_version_key(found.group("version")), file.name.endswith(".whl"))
        name = canonical(found.group("name"))
        if name not in newest or key > newest[name][0]:
            newest[name] = (key, file)
    return {name: file for name, (_, file) in sorted(newest.items())}


def top_names(files: list[str]) -> set[str]:
    """The import names a wheel's files install: top-level packages and modules, and the packages inside a
    namespace folder (a top folder with no __init__.py)."""
    names: set[str] = set()
    folders: dict[str, set[str]] = {}
    for path in files:
        parts = path.split("/")
        head = parts[0]
        if head.endswith((".dist-info", ".data")) or head == "__pycache__":
            continue
        if len(parts) == 1:
            module = head.split(".", 1)[0]
            if head.endswith((".py", ".so", ".pyd")) and _IDENTIFIER.match(module):
                names.add(module)
            continue
        if _IDENTIFIER.match(head):
            folders.setdefault(head, set()).add("/".join(parts[1:]))
    for head, inside in folders.items():
        if any(p in ("__init__.py", "__init__.pyi") or re.match(r"__init__\..*\.(so|pyd)$", p) for p in inside):
            names.add(head)
            continue
        subs = {p.split("/", 1)[0] for p in inside if "/" in p and _IDENTIFIER.match(p.split("/", 1)[0])}
        names.update(f"{head}.{sub}" for sub in subs if sub != "__pycache__")
        if not subs:
            names.add(head)
    return names


def sdist_names(sdist: Path) -> set[str]:
    """The import names a source archive's own egg-info lists (top_level.txt); none when it has no such file."""
    with tarfile.open(sdist, "r:gz") as archive:
        member = next((m for m in archive.getmembers() if _TOP_LEVEL.fullmatch(m.name)), None)
        handle = archive.extractfile(member) if member is not None else None
        text = handle.read().decode("utf-8", "replace") if handle is not None else ""
    lines = (line.strip() for line in text.splitlines())
    return {line.replace("/", ".") for line in lines if _IDENTIFIER.match(line.split("/")[0])}


def wheel_files(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        record = next((n for n in archive.namelist() if n.endswith(".dist-info/RECORD")), None)
        if record is None:
            return archive.namelist()
        text = archive.read(record).decode("utf-8", "replace")
    return [row[0] for row in csv.reader(io.StringIO(text)) if row]


def build(paths: list[Path]) -> dict[str, object]:
    names: dict[str, list[dict[str, str]]] = {}
    read = newest_wheels(paths)
    for wheel in read.values():
        found = _named(wheel)
        assert found is not None  # newest_wheels kept only names that match
        try:
            imports = top_names(wheel_files(wheel)) if wheel.name.endswith(".whl") else sdist_names(wheel)
        except (zipfile.BadZipFile, tarfile.TarError, OSError) as error:
            print(f"skipped {wheel.name}: {error}", file=sys.stderr)
            continue
        distribution = {"distribution": canonical(found.group("name")), "version": found.group("version")}
        for name in imports:
            if name.split(".")[0] in (*NOT_AN_IMPORT, PER_CUDA) or (name, distribution["distribution"]) in NAMESAKES:
                continue
            names.setdefault(name, []).append(distribution | {"file": wheel.name})
    return {
        "title": "Import names and the distributions whose wheels install them: explain gives `pip install` for a "
        "missing module only where a distribution is known to ship it",
        "source": "each wheel's RECORD (its .dist-info list of files), or for a distribution with no wheel its source "
        "archive's egg-info top_level.txt; the newest release of each distribution read, the file named on each row",
        "generated_by": "scripts/import_names.py",
        "distributions_read": len(read),
        "names": {name: sorted(rows, key=lambda r: r["distribution"]) for name, rows in sorted(names.items())},
    }


def text(doc: dict[str, object]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="*", type=Path, help="wheels, or folders of wheels")
    parser.add_argument("--check", action="store_true", help="exit 1 when the table differs from what they make")
    parser.add_argument("--download", type=Path, metavar="DIR", help="first fetch ECOSYSTEM into DIR, and read it too")
    args = parser.parse_args(argv)
    if args.download is not None:
        download(args.download)
        args.paths.append(args.download)
    table = build(args.paths)
    names = table["names"]
    assert isinstance(names, dict)
    shipped = {row["distribution"] for rows in names.values() for row in rows}
    for name in ECOSYSTEM if args.download is not None else ():
        if canonical(name) not in shipped:
            print(f"no import names read for {name} (not fetched, or its files list none)", file=sys.stderr)
    doc = text(table)
    if args.check:
        if OUT.read_text("utf-8") != doc:
            print(f"{OUT.relative_to(ROOT)} is not what these wheels make: rerun the script", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(doc, "utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
