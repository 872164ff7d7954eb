"""explain reads a failure's structure: tracebacks whatever their wrapping, chains, wrappers, prefixes; one verdict
chosen among many records; the facts of an environment joined with the log (recorded snapshots of real ones)."""

from __future__ import annotations

import io

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.explain.engine import exit_status, explain_stream, trigger_words
from xladoctor.explain.records import clean, owner_of, parse
from xladoctor.explain.regions import RegionCollector
from xladoctor.facts import facts_from_json

CUDNN = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"
TORCH_FRAME = (
    "Traceback (most recent call last):\n"
    '  File "/x/lib/python3.11/site-packages/torch/__init__.py", line 1, in <module>\n'
)


def _records(log: str):  # type: ignore[no-untyped-def]
    collector = RegionCollector(trigger_words())
    collector.feed(log)
    return parse(collector.finish())


def _explain(log: str, facts_case: str | None = None):  # type: ignore[no-untyped-def]
    facts = facts_from_json(load_json(FACTS_DIR / f"{facts_case}.json")) if facts_case else None
    return explain_stream("run.log", io.BytesIO(log.encode()), facts)


@pytest.mark.parametrize(
    "prefix",
    [
        "", "[rank3]: ", "[default0]:", "[1,0]<stderr>:", "0: ", "(RayWorkerWrapper pid=5280) ",
        "2024-05-01 12:00:00,123 - ERROR - ", "2025-01-01T10:00:00.123Z ", "ERROR 04-26 01:59:07 worker_base.py:157] ",
        "\x1b[0;31m", "vllm-openai-1  | ", "api  | ", "[pod/trainer-0/main] ", "> ",
        "2024-05-01 12:00:00,123 - root - ERROR - ", "ERROR:root:",
    ],
)  # fmt: skip
def test_a_traceback_is_read_whatever_its_prefix(prefix: str) -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/home/me/train.py", line 12, in <module>',
        "    model = build()",
        '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 99, in __call__',
        "    return f(x)",
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x10 and 20x5)",
    ]
    [record] = _records("".join(prefix + line + "\n" for line in lines))
    assert (record.type, record.message) == (
        "RuntimeError",
        "mat1 and mat2 shapes cannot be multiplied (4x10 and 20x5)",
    )
    assert [(f.owner, f.line) for f in record.frames] == [(None, 12), ("torch", 99)]
    assert record.user_frame is not None and record.user_frame.short() == "/home/me/train.py:12"
    assert record.line == 6


def test_the_first_exception_of_a_chain_is_the_root() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 3, in <module>\n'
        f"{CUDNN}\n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 5, in <module>\n'
        "RuntimeError: Failed to import the backend\n"
    )
    records = _records(log)
    assert [(r.type, r.position, r.chain) for r in records] == [("ImportError", 0, 0), ("RuntimeError", 1, 0)]
    diagnosis = _explain(log).diagnosis
    assert (diagnosis.family, diagnosis.line) == ("missing-library", 3)


def test_a_compile_wrapper_gives_way_to_the_error_it_carries() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/_dynamo/output_graph.py", line 1, in call\n'
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
        "RuntimeError: Cannot find a working triton installation. More information on installing Triton can be found "
        "at https://github.com/openai/triton\n"
    )
    records = _records(log)
    assert [(r.type, r.wrapper) for r in records] == [
        ("torch._dynamo.exc.BackendCompilerFailed", True),
        ("RuntimeError", False),
    ]
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "module-not-found" and diagnosis.params["package"] == "triton"


def test_a_traceback_without_its_header_is_still_one() -> None:
    log = (
        '  File "/opt/venv/lib/python3.11/site-packages/jax/_src/core.py", line 1799, in canonicalize_shape\n'
        "    raise _invalid_shape_error(shape, context)\n"
        "TypeError: Shapes must be 1D sequences of concrete values of integer type, got (Traced<int32[]>,).\n"
    )
    [record] = _records(log)
    assert record.type == "TypeError" and record.library == "jax"


@pytest.mark.parametrize(
    "prefix",
    ["vllm-openai-1  | ", "ollama  | ", "[pod/trainer-0/main] ", "2024-05-01 12:00:00,123 - root - {} - ", "{}:root:"],
)
def test_an_error_line_is_read_behind_a_container_s_or_a_logger_s_tag(prefix: str) -> None:
    # `docker compose logs`, `kubectl logs --prefix` and logging's documented formats tag every line, the error's too
    log = (
        prefix.format("INFO") + "loading the model\n"
        + prefix.format("ERROR") + "ValueError: vmap got inconsistent sizes for array axes to be mapped:\n"
    )  # fmt: skip
    exceptions = [r for r in _records(log) if r.kind == "exception"]
    assert [(r.type, r.message) for r in exceptions] == [
        ("ValueError", "vmap got inconsistent sizes for array axes to be mapped:")
    ]


@pytest.mark.parametrize(
    "prefix",
    [
        "", "[1,1]<stderr>:", "[rank3]: ", "2024-05-01 12:00:00,123 - ERROR - ", "(RayWorkerWrapper pid=5280) ",
        "worker-1  | ", "[pod/trainer-0/main] ", "> ",
    ],
)  # fmt: skip
@pytest.mark.parametrize("before", ["", "ERROR: the step failed\n", "Epoch 1/3\n"])
def test_a_headless_traceback_keeps_its_frames_whatever_tags_its_lines_and_whatever_came_before(
    prefix: str, before: str
) -> None:
    # OpenMPI's --tag-output, a rank tag, a logger's header: every line carries it, the header was cut off
    lines = [
        '  File "/usr/local/lib/python3.10/dist-packages/horovod/torch/mpi_ops.py", line 1290, in synchronize',
        "    raise HorovodInternalError(e)",
        "",
        "horovod.common.exceptions.HorovodInternalError: ncclCommInitRank failed: invalid usage",
    ]
    log = "".join(prefix + line + "\n" for line in [*before.splitlines(), *lines])
    exceptions = [r for r in _records(log) if r.kind == "exception"]
    assert [(r.type, r.library) for r in exceptions] == [("horovod.common.exceptions.HorovodInternalError", "horovod")]
    assert exceptions[0].frames[0].line == 1290


@pytest.mark.parametrize(
    "log",
    [
        # a message that quotes a file and a line is no frame: its record stays (the review's)
        '[rank0]: Error in worker: File "/data/shard_003.tar", line 12: unexpected end of archive\n'
        "[rank0]: RuntimeError: NCCL error: unhandled system error\n",
        # faulthandler's dump ("line N in f", no comma) is no traceback of Python's order
        "[rank0]: Fatal Python error: Segmentation fault\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/torch/nn/functional.py", line 2233 in embedding\n'
        "[rank0]: Extension modules: numpy.core._multiarray_umath\n",
    ],
)
def test_a_tagged_line_that_only_quotes_a_file_starts_no_traceback(log: str) -> None:
    records = _records(log)
    assert records[0].kind == "line" and not any(r.frames for r in records)


def test_a_tagged_headless_traceback_keeps_its_frames_across_another_rank_s_lines() -> None:
    # the second review's: another rank's line, a progress bar, between one rank's frames
    log = (
        "[rank0]: ERROR: worker crashed\n"
        '[rank0]:   File "/home/me/train.py", line 9, in <module>\n'
        "[rank1]: Epoch 3: loss 0.41\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/datasets/formatting/formatting.py", line 277, in get\n'
        "[rank0]:     value = self.data[key]\n"
        "[rank0]: KeyError: 'text'\n"
    )
    exceptions = [r for r in _records(log) if r.kind == "exception"]
    assert [(r.type, len(r.frames)) for r in exceptions] == [("KeyError", 2)]


def test_another_rank_s_error_between_a_traceback_s_frames_stays_a_record_of_its_own() -> None:
    # the third review's: rank1's line is no part of rank0's traceback, and is not lost in it
    log = (
        "[rank0]: ERROR: worker crashed\n"
        '[rank0]:   File "/home/me/train.py", line 9, in <module>\n'
        "[rank1]: ERROR: CUDA out of memory. Tried to allocate 2.00 GiB\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/datasets/formatting/formatting.py", line 277, in get\n'
        "[rank0]: KeyError: 'text'\n"
    )
    records = _records(log)
    assert [r.type for r in records if r.kind == "exception"] == ["KeyError"]
    assert any("CUDA out of memory" in r.message for r in records if r.kind == "line")


def test_a_headless_traceback_behind_a_timestamp_keeps_all_its_frames() -> None:
    # GitHub Actions' and `docker logs -t`'s timestamp, a header cut off
    lines = [
        '  File "/app/train.py", line 50, in <module>',
        "    main(cfg)",
        '  File "/opt/venv/lib/python3.11/site-packages/timm/x.py", line 40, in main',
        "    raise KeyError(cfg.name)",
        "KeyError: 'resnet'",
    ]
    log = "".join(f"2025-01-01T10:00:00.1234567Z {line}\n" for line in lines)
    [record] = _records(log)
    assert record.type == "KeyError" and [f.line for f in record.frames] == [50, 40]


def test_frames_after_an_error_line_with_no_exception_line_after_them_stay_its_own() -> None:
    # ComfyUI prints the message first and the frames after it: no traceback of Python's order to split off
    log = (
        "!!! Exception during processing !!! expected input[1, 16, 128, 128] to have 4 channels\n"
        '  File "/ComfyUI/execution.py", line 151, in recursive_execute\n'
        "    output_data, output_ui = get_output_data(obj, input_data_all)\n"
    )
    [record] = _records(log)
    assert "expected input[1, 16, 128, 128]" in record.message and record.frames[0].line == 151


# IPython's tracebacks (Jupyter, Colab, Kaggle), as IPython's ultratb.py prints them: 8.x and 7.x
IPYTHON_8 = """---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[3], line 2
      1 model = Net()
----> 2 model.to("cuda")

File /usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py:1145, in Module.to(self, *args, **kwargs)
   1141         return t.to(device, dtype if t.is_floating_point() else None)
-> 1145 return self._apply(convert)

File ~/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py:298, in _lazy_init()
    296 if "CUDA_MODULE_LOADING" not in os.environ:
    297     os.environ["CUDA_MODULE_LOADING"] = "LAZY"
--> 298 torch._C._cuda_init()

RuntimeError: Found no NVIDIA driver on your system.
"""
IPYTHON_7 = """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
<ipython-input-4-5f3a2b> in <module>
      1 args = parse()
----> 2 run(args)

/usr/local/lib/python3.7/dist-packages/accelerate/launch.py in run(args)
     40     cfg = load()
---> 41     launch(cfg, args, 3)

TypeError: launch() takes 2 positional arguments but 3 were given
"""


def test_an_ipython_traceback_has_its_frames_owners_and_the_line_that_ran() -> None:
    [record] = _records(IPYTHON_8)
    assert [(f.owner, f.line) for f in record.frames] == [(None, 2), ("torch", 1145), ("torch", 298)]
    assert record.frames[0].code == 'model.to("cuda")' and record.frames[-1].code == "torch._C._cuda_init()"
    [record] = _records(IPYTHON_7)
    assert [(f.owner, f.line, f.function) for f in record.frames] == [(None, 2, "<module>"), ("accelerate", 41, "run")]
    assert record.frames[-1].code == "launch(cfg, args, 3)"


# rich.traceback's box (Typer apps, SD.Next): frames as "│ path:line in func │", the running line marked ❱, the
# function on a line of its own when the path is long
RICH = """╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /home/me/app/launch.py:42 in main                                            │
│                                                                              │
│   41 │   model = load(args)                                                  │
│ ❱ 42 │   out = model.generate(x, scale=2)                                    │
│   43 │   save(out)                                                           │
│                                                                              │
│ /opt/venv/lib/python3.10/site-packages/diffusers/pipelines/pipe.py:88 in     │
│ generate                                                                     │
│                                                                              │
│   87 │   │   latents = self.prepare(x)                                       │
│ ❱ 88 │   │   return self.unet(latents, **kwargs)                             │
│   89 │                                                                       │
╰──────────────────────────────────────────────────────────────────────────────╯
TypeError: UNet2DConditionModel.forward() got an unexpected keyword argument 'scale'
"""


def test_a_rich_traceback_has_its_frames_owners_and_the_line_that_ran() -> None:
    [record] = _records(RICH)
    assert record.type == "TypeError"
    assert [(f.owner, f.line) for f in record.frames] == [(None, 42), ("diffusers", 88)]
    assert record.frames[0].function == "main"
    codes = ["out = model.generate(x, scale=2)", "return self.unet(latents, **kwargs)"]
    assert [f.code for f in record.frames] == codes
    diagnosis = _explain(RICH).diagnosis
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("api-version-skew", "environment")
    assert "diffusers" in diagnosis.cause


def test_a_notebook_call_that_a_library_makes_with_the_wrong_arguments_is_version_skew() -> None:
    diagnosis = _explain(IPYTHON_7).diagnosis
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("api-version-skew", "environment")
    assert "accelerate" in diagnosis.cause


def test_prefixes_and_owners() -> None:
    assert clean("[rank1]:[W1203 10:00:00] x") == "[W1203 10:00:00] x"
    assert clean("I1203 12:00:00.000000 1234 file.cc:12] Error here") == "Error here"
    assert owner_of("/x/lib/python3.10/site-packages/flash_attn/ops.py") == "flash-attn"
    assert owner_of("/usr/lib/python3.11/importlib/__init__.py") == "python"
    assert owner_of("/home/me/train.py") is None


def test_a_library_file_shown_from_its_own_folder_is_the_library_s() -> None:
    # JAX's traceback filter prints its frames relative to site-packages; reporters cut paths to the package
    assert owner_of("jax/_src/numpy/util.py") == "jax"
    assert owner_of(".......diffusers/models/transformers/transformer_flux.py") == "diffusers"
    assert owner_of("/keras/src/utils/traceback_utils.py") == "keras"
    assert owner_of("flash_attn/flash_attn_interface.py") == "flash-attn"
    # a project's own folders are the user's, whatever they are called
    assert owner_of("models/unet.py") is None
    assert owner_of("datasets/coco.py") is None  # DETR's, SSD's: a project's own folder of that name
    assert owner_of("../datasets/coco.py") is None and owner_of("/datasets/coco.py") is None
    assert owner_of("triton/model_repository/llm/1/model.py") is None  # Triton Inference Server's layout
    assert owner_of("cosyvoice/bin/inference.py") is None
    assert owner_of("train.py") is None


def test_the_first_error_wins_over_the_later_timeouts_it_causes() -> None:
    log = (
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. GPU 1 has a total capacity "
        "of 79.10 GiB of which 2.10 GiB is free.\n"
        "[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=77, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600041 milliseconds before timing out.\n"
    )
    diagnosis = _explain(log).diagnosis
    assert (diagnosis.family, diagnosis.verdict, diagnosis.line) == ("out-of-memory", "not-environment", 1)
    assert "hang-timeout" in diagnosis.others


def test_warnings_give_way_to_an_error() -> None:
    log = (
        "W0101 00:00:00.0 1 dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
        "libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
        "Traceback (most recent call last):\n"
        '  File "/home/me/fit.py", line 4, in <module>\n'
        'ValueError: Input 0 of layer "dense" is incompatible with the layer: expected axis -1 to have value 8\n'
    )
    diagnosis = _explain(log).diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")


def test_an_oom_with_memory_reserved_but_unallocated_is_fragmentation() -> None:
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.15 GiB of which 1.10 GiB is free. Of the allocated memory 60.00 GiB is allocated by PyTorch, and "
        "{unused} is reserved by PyTorch but unallocated.\n"
    )
    fragmented = _explain(oom.format(unused="16.50 GiB")).diagnosis
    assert fragmented.params["fragmented"] == "True" and "expandable_segments:True" in " ".join(fragmented.remediation)
    short = _explain(oom.format(unused="20.00 MiB")).diagnosis
    assert short.params["fragmented"] == "False" and short.remediation == ()


def test_nothing_decided_names_the_last_error_and_what_to_run_next() -> None:
    log = "starting\nerror: the widget frobnicated unexpectedly\n"  # a line: no exception for a guess to read
    explanation = _explain(log)
    diagnosis = explanation.diagnosis
    assert (diagnosis.verdict, diagnosis.family, diagnosis.line) == ("unknown", None, 2)
    assert diagnosis.next and not explanation.failing()


def test_a_healthy_log_has_no_verdict() -> None:
    assert _explain("epoch 1 loss 0.5\nepoch 2 loss 0.4\ndone\n").diagnosis is None


@pytest.mark.parametrize(
    "metric",
    [
        "validation error 0.12",
        "mean squared error: 0.034",
        "epoch 3 train_error=0.1 val_error=0.2",
        "top-1 error 23.4%",
        "max abs error = 1e-6",
        "relative error (%): 2.3",
    ],
)
def test_a_measured_error_a_healthy_run_prints_is_no_failure(metric: str) -> None:
    """A training or test loop's metric named "error" is neither the verdict nor a line that looks like one."""
    explanation = _explain(f"epoch 1 loss 0.5\n{metric}\ntraining done\n")
    assert explanation.diagnosis is None and not explanation.candidates


@pytest.mark.parametrize(
    "failure",
    [
        "make: *** [all] Error 1",
        "CUDA error 700",
        "test error: nan",
        "max relative error 0.3 exceeds the tolerance",
        "FAILED test_matmul - max error 0.5",
    ],
)
def test_an_error_with_a_number_that_is_a_failure_is_still_one(failure: str) -> None:
    diagnosis = _explain(f"epoch 1 loss 0.5\n{failure}\n").diagnosis
    assert diagnosis is not None and diagnosis.line == 2


def test_the_failure_after_a_metric_is_the_record_that_matters() -> None:
    log = 'epoch 1 val error 0.2\nTraceback (most recent call last):\n  File "t.py", line 3, in <module>\n    f()\n'
    diagnosis = _explain(log + "RuntimeError: the widget frobnicated unexpectedly\n").diagnosis
    assert diagnosis is not None and diagnosis.line == 5


# ---- joined with an environment's facts (recorded snapshots of real environments) --------------------------


def test_a_missing_library_the_facts_have_installed_is_a_contradiction() -> None:
    """torch 2.9's CUDA build, recorded: nvidia-cudnn-cu12 is installed, so the log came from elsewhere."""
    log = f"{TORCH_FRAME}{CUDNN}\n"
    diagnosis = _explain(log, "real-torch29-xla29").diagnosis
    assert diagnosis.contradicted and "nvidia-cudnn-cu12 9.10.2.21 is installed here" in diagnosis.joined[0]


def test_a_missing_wheel_the_installed_torch_requires_is_pinned() -> None:
    doc = load_json(FACTS_DIR / "real-torch29-xla29.json")
    doc["distributions"] = [d for d in doc["distributions"] if not d["name"].startswith("nvidia-cudnn")]
    facts = facts_from_json(doc)
    log = f"{TORCH_FRAME}{CUDNN}\n"
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), facts).diagnosis
    assert not diagnosis.contradicted
    assert diagnosis.remediation == (
        f"{facts.interpreter} -m pip install 'nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\"'",
    ) or any("nvidia-cudnn-cu12==9.10.2.21" in c for c in diagnosis.remediation)


def test_a_log_from_another_python_is_said_to_be() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.10/dist-packages/torch/__init__.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'cv2'\n"
    )
    diagnosis = _explain(log, "real-torch29-xla29").diagnosis
    assert diagnosis.contradicted and "Python 3.10" in diagnosis.joined[0]


def test_no_kernel_image_names_this_machines_gpu_and_the_builds_archs() -> None:
    log = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    diagnosis = _explain(log, "gpu-blackwell-old-torch").diagnosis
    assert diagnosis.family == "gpu-arch-unsupported"
    assert any("compute capability 12.0" in said and "sm_90" in said for said in diagnosis.joined), diagnosis.joined


def test_a_module_installed_here_means_another_interpreter_ran() -> None:
    log = "ModuleNotFoundError: No module named 'torch_xla'\n"
    diagnosis = _explain(log, "real-torch29-xla29").diagnosis
    assert diagnosis.family == "module-not-found" and diagnosis.contradicted


_PKG_RESOURCES_AT_RUN = (
    'Traceback (most recent call last):\n  File "/home/me/venv/lib/python3.11/site-packages/tensorboard/'
    'default.py", line 3, in <module>\n    import pkg_resources\n'
    "ModuleNotFoundError: No module named 'pkg_resources'\n"
)


@pytest.mark.parametrize(
    ("installed", "contradicted", "said"),
    [
        ("82.0.1", False, "a release without pkg_resources"),
        ("81.0.0", True, "the program ran in another interpreter"),
        (None, False, ""),
    ],
)
def test_pkg_resources_is_setuptools_before_82_and_the_installed_setuptools_says_which(
    installed: str | None, contradicted: bool, said: str
) -> None:
    """setuptools 82.0.0 removed pkg_resources (its NEWS.rst): an installed 82+ confirms the log, an 81 contradicts
    it, and the fix pins setuptools below 82 either way."""
    diagnosis = explain_stream(
        "run.log", io.BytesIO(_PKG_RESOURCES_AT_RUN.encode()), _with_trl(installed, "setuptools")
    ).diagnosis
    assert diagnosis is not None and diagnosis.family == "module-not-found"
    assert "setuptools 82.0.0" in diagnosis.cause and diagnosis.params["package"] == "setuptools"
    assert diagnosis.contradicted is contradicted and said in " ".join(diagnosis.joined), diagnosis.joined
    assert any("'setuptools<82'" in command for command in diagnosis.remediation), diagnosis.remediation


def test_pkg_resources_missing_in_an_isolated_build_pins_setuptools_and_builds_without_isolation() -> None:
    log = (
        "  Getting requirements to build wheel ... error\n  error: subprocess-exited-with-error\n\n"
        "  \u00d7 Getting requirements to build wheel did not run successfully.\n  \u2502 exit code: 1\n"
        "  \u2570\u2500> [17 lines of output]\n      Traceback (most recent call last):\n"
        '        File "/tmp/pip-build-env-x/overlay/lib/python3.12/site-packages/setuptools/build_meta.py", line 331,'
        " in get_requires_for_build_wheel\n"
        '        File "<string>", line 3, in <module>\n'
        "      ModuleNotFoundError: No module named 'pkg_resources'\n      [end of output]\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "build-failure" and "setuptools 82.0.0" in diagnosis.cause
    assert any("'setuptools<82'" in command for command in diagnosis.remediation), diagnosis.remediation
    assert any("--no-build-isolation" in command for command in diagnosis.next), diagnosis.next


# ---- a constructor's keyword against its library's release history (compat_matrix/failures/api-history.json) ----

_AT_USER_CALL = (
    "Traceback (most recent call last):\n"
    '  File "/content/train.py", line 42, in <module>\n'
    "    {call}\n"
    "TypeError: {message}\n"
)


@pytest.mark.parametrize(
    ("call", "message", "package", "fix"),
    [
        ("trainer = SFTTrainer(model=model, tokenizer=tok)",
         "SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'", "trl", "'trl<0.13'"),
        ("trainer = pl.Trainer(gpus=1, max_epochs=3)",
         "__init__() got an unexpected keyword argument 'gpus'", "pytorch-lightning", "'pytorch-lightning<2.0'"),
        ("args = TrainingArguments(evaluation_strategy='epoch')",
         "TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'", "transformers",
         "'transformers<4.51'"),
        ("config = LoraConfig(r=8, use_dora=True)",
         "LoraConfig.__init__() got an unexpected keyword argument 'use_dora'", "peft", "'peft>=0.9'"),
    ],
    ids=["trl-renamed", "lightning-removed", "transformers-removed", "peft-added"],
)  # fmt: skip
def test_a_keyword_a_release_of_the_library_took_is_a_release_question(
    call: str, message: str, package: str, fix: str
) -> None:
    """Raised at the user's own call, the traceback alone reads as their typo; the wheels' history says the library
    moved (the versions come from api-history.json, read from each release's wheel)."""
    diagnosis = _explain(_AT_USER_CALL.format(call=call, message=message)).diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("api-version-skew", "environment"), diagnosis.cause
    assert diagnosis.params["package"] == package and "/content/train.py:42" in diagnosis.cause
    assert any(fix in command for command in diagnosis.remediation), diagnosis.remediation


def test_a_keyword_no_release_took_stays_the_users_mistake() -> None:
    log = _AT_USER_CALL.format(
        call="trainer = SFTTrainer(model, tokenizr=tok)",
        message="SFTTrainer.__init__() got an unexpected keyword argument 'tokenizr'",
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.decided_by != "api-version-skew:constructor_parameter_history"
    assert diagnosis.verdict == "not-environment", diagnosis.cause


def _with_trl(version: str | None, name: str = "trl"):  # type: ignore[no-untyped-def]
    doc = load_json(FACTS_DIR / "real-torch29-xla29.json")
    template = next(d for d in doc["distributions"] if d["name"] == "filelock")  # a pure-Python wheel's record
    doc["distributions"] = [d for d in doc["distributions"] if d["name"] != name]
    if version is not None:
        doc["distributions"].append(
            {**template, "name": name, "version": version, "top_level": [name], "packages": [name],
             "metadata_dir": template["metadata_dir"].replace("filelock", name), "requires": []}
        )  # fmt: skip
    return facts_from_json(doc)


@pytest.mark.parametrize(
    ("installed", "contradicted", "said"),
    [("0.19.1", False, "refuses tokenizer="), ("0.12.2", True, "takes tokenizer="), (None, True, "not installed")],
)
def test_the_installed_release_confirms_or_contradicts_the_history(
    installed: str | None, contradicted: bool, said: str
) -> None:
    log = _AT_USER_CALL.format(
        call="trainer = SFTTrainer(model=model, tokenizer=tok)",
        message="SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'",
    )
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), _with_trl(installed)).diagnosis
    assert diagnosis.family == "api-version-skew"
    assert diagnosis.contradicted is contradicted and said in " ".join(diagnosis.joined), diagnosis.joined


def test_a_ray_task_error_is_read_as_the_class_of_its_cause() -> None:
    """Ray re-raises a task's exception as "RayTaskError(<cause class>)" (ray/exceptions.py): the cause's class is
    the record's type, and the code lines of the traceback above it are not error lines of their own."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/root/app/train.py", line 26, in train\n'
        "    out = ray.get(refs)\n"
        '  File "/usr/local/lib/python3.12/dist-packages/ray/_private/worker.py", line 2849, in get\n'
        "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)\n"
        "ray.exceptions.RayTaskError(RuntimeError): ray::Actor.init() (pid=1233799, ip=172.17.0.3)\n"
    )
    (record,) = _records(log)
    assert (record.kind, record.type, record.library) == ("exception", "RuntimeError", "ray")
    assert _explain(log).diagnosis.family != "hang-timeout"  # timeout=timeout is code, not a timeout
    assert _records("    main(args)\n") == []


@pytest.mark.parametrize(
    ("line", "family"),
    [
        ("ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
         "gpu-arch-unsupported"),
        ("ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.", "gpu-arch-unsupported"),
        ("RuntimeError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU "
         "has compute capability 7.5.", "gpu-arch-unsupported"),
        ("ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu if you want to train the model "
         "on CPU.", "accelerator-unavailable"),
        ("TypeError: BFloat16 is not supported on MPS", "user-code-error"),  # a backend's gap, from your own line
    ],
    ids=["transformers", "accelerate", "compute-capability", "no-gpu-at-all", "mps-backend"],
)  # fmt: skip
def test_a_dtype_the_gpu_generation_lacks_is_the_gpu_not_the_framework(line: str, family: str) -> None:
    """FAMILIES.md: a dtype a GPU generation lacks (bf16 before Ampere, fp8e4nv before Ada) is gpu-arch-unsupported;
    one a backend does not implement (MPS) is not (unsupported-op, or the user's line that asked for it)."""
    log = f'Traceback (most recent call last):\n  File "/w/train.py", line 3, in <module>\n{line}\n'
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == family, (diagnosis.decided_by, diagnosis.cause)
    if family == "gpu-arch-unsupported":
        assert diagnosis.verdict == "environment" and "8.0" in diagnosis.cause


def test_the_dispatcher_s_could_not_run_is_read_wherever_an_app_prints_it() -> None:
    log = (
        "Error transcribing file: Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from "
        "the 'SparseMPS' backend. This could be because the operator doesn't exist for this backend.\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "unsupported-op" and diagnosis.params["backend"] == "SparseMPS"


@pytest.mark.parametrize(
    ("fmt", "family", "word"),
    [("mp3", "missing-library", "FFmpeg"), ("None", "module-not-found", "soundfile")],
)
def test_torchaudio_without_a_backend_names_what_the_format_needs(fmt: str, family: str, word: str) -> None:
    log = f"RuntimeError: Couldn't find appropriate backend to handle uri <_io.BytesIO at 0x28dd> and format {fmt}.\n"
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == family and word in diagnosis.cause, diagnosis.cause


def test_a_class_the_log_does_not_tie_to_its_library_is_said_with_less_confidence() -> None:
    """A Trainer of the user's own would not be transformers': without the library in the log, the verdict says so
    and is less sure; with it (here Lightning's alias on the call line), the package is the one the log shows."""
    bare = _explain("TypeError: Trainer.__init__() got an unexpected keyword argument 'gpus'\n").diagnosis
    assert bare.params["package"] == "pytorch-lightning" and "lightning" in bare.cause and bare.confidence < 0.8
    assert "class of your own" in bare.cause
    lightning = _AT_USER_CALL.format(
        call="trainer = L.Trainer(gpus=1)", message="Trainer.__init__() got an unexpected keyword argument 'gpus'"
    )
    diagnosis = _explain(lightning).diagnosis
    assert diagnosis.params["package"] == "lightning" and any("'lightning<2.0'" in c for c in diagnosis.remediation)


def test_a_library_that_made_the_refused_call_is_named_and_super_is_not_guessed() -> None:
    by_library = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 42, in <module>\n'
        "    trainer = make_trainer(model)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/unsloth/trainer.py", line 300, in make_trainer\n'
        "    return SFTTrainer(model=model, tokenizer=tokenizer)\n"
        "TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'\n"
    )
    diagnosis = _explain(by_library).diagnosis
    assert diagnosis.params["package"] == "trl" and "unsloth's code at" in diagnosis.cause, diagnosis.cause
    through_super = by_library.replace(
        "return SFTTrainer(model=model, tokenizer=tokenizer)", "super().__init__(model=model, tokenizer=tokenizer)"
    ).replace("SFTTrainer.__init__()", "__init__()")  # Python 3.9 names no class: which base is not shown
    assert _explain(through_super).diagnosis.decided_by != "api-version-skew:constructor_parameter_history"


def test_a_field_a_config_inherits_from_another_package_is_not_claimed() -> None:
    """trl's configs inherit transformers' TrainingArguments: whether they take its fields is transformers' call."""
    from xladoctor.matrix.failures import parameter_history

    assert parameter_history("PPOConfig", "learning_rate") == []
    assert [h.package for h in parameter_history("SFTConfig", "max_seq_length")] == ["trl"]  # trl's own field


def test_a_contradiction_found_before_the_history_is_kept() -> None:
    """A log from Python 3.8 against facts of 3.11: the history's agreement does not clear that contradiction."""
    log = _AT_USER_CALL.format(
        call="trainer = SFTTrainer(model=model, tokenizer=tok)",
        message="SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'",
    ).replace('"/content/train.py"', '"/usr/lib/python3.8/site-packages/app/train.py"')
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), _with_trl("0.19.1")).diagnosis
    assert diagnosis.contradicted


def test_a_ray_header_carries_the_task_s_own_exception_when_the_log_has_it() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/root/app/train.py", line 26, in train\n'
        "    out = ray.get(refs)\n"
        "ray.exceptions.RayTaskError(ModuleNotFoundError): ray::Actor.init() (pid=1, ip=10.0.0.1)\n"
        "Traceback (most recent call last):\n"
        '  File "/root/app/actor.py", line 5, in init\n'
        "    import flash_attn\n"
        "ModuleNotFoundError: No module named 'flash_attn'\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "module-not-found" and diagnosis.line == 8, (diagnosis.decided_by, diagnosis.cause)


def test_the_review_s_bf16_and_mps_cases() -> None:
    newest = (  # transformers today: use_cpu always, the Ampere sentence when a GPU is there
        "ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu if you want to train the model on "
        "CPU. You need Ampere+ GPU with cuda>=11.0\n"
    )
    assert _explain(newest).diagnosis.family == "gpu-arch-unsupported"
    on_a_mac = (
        "Traceback (most recent call last):\n"
        '  File "/Users/me/venv/lib/python3.11/site-packages/accelerate/accelerator.py", line 480, in __init__\n'
        "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device.\n"
    )
    assert _explain(on_a_mac).diagnosis.family == "unsupported-op"
    fp8 = "RuntimeError: UNIMPLEMENTED: Unsupported fp8 dot: requires compute capability 8.9\n"
    assert "bfloat16" not in _explain(fp8).diagnosis.cause
    fallback = (
        "/opt/venv/lib/python3.11/site-packages/torch/_tensor_str.py:137: UserWarning: MPS: nonzero op is supported "
        "natively starting from macOS 13.0. Falling back on CPU. This may have performance implications.\n"
    )
    diagnosis = _explain(fallback).diagnosis
    assert diagnosis is None or diagnosis.decided_by != "unsupported-op:mps_needs_newer_macos"


@pytest.mark.parametrize(("installed", "contradicted"), [("0.4.35", False), ("0.4.36", True), ("0.5.0", True)])
def test_a_history_read_release_by_release_compares_whole_versions(installed: str, contradicted: bool) -> None:
    """jax's rows are whole versions ("0.4.36"): 0.4.35 and 0.4.36 are the same minor series and must not compare
    equal (jit took compiler_options= from 0.4.36, read from the wheels)."""
    log = _AT_USER_CALL.format(
        call="step = jax.jit(f, compiler_options={})",
        message="jit() got an unexpected keyword argument 'compiler_options'",
    )  # the call line shows jax: a one-word name is read as jax's only then
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), _with_trl(installed, "jax")).diagnosis
    assert diagnosis.decided_by == "api-version-skew:callable_parameter_history", diagnosis.cause
    assert diagnosis.contradicted is contradicted, diagnosis.joined


def _raised_in(*files: str, error: str = "RuntimeError: the widget frobnicated unexpectedly") -> str:
    frames = "".join(f'  File "{file}", line {n}, in f{n}\n    g()\n' for n, file in enumerate(files, 10))
    return f"Traceback (most recent call last):\n{frames}{error}\n"


def test_an_unknown_error_a_library_raised_is_guessed_its_defect_and_said_to_be_a_guess() -> None:
    site = "/venv/lib/python3.11/site-packages"
    explanation = _explain(_raised_in("train.py", f"{site}/widgetlib/core.py"))
    diagnosis = explanation.diagnosis
    assert (diagnosis.verdict, diagnosis.family, diagnosis.decided_by) == (
        "unknown", "framework-internal-error", "structure:raised-in-library",
    )  # fmt: skip
    assert diagnosis.params["library"] == "widgetlib" and "widgetlib's own code" in diagnosis.cause
    assert not diagnosis.decided and not explanation.failing()  # a guess is no decided cause: exit 0
    assert diagnosis.confidence < 0.5 and diagnosis.next


@pytest.mark.parametrize(
    ("files", "error"),
    [
        (("train.py",), "RuntimeError: the widget frobnicated unexpectedly"),  # the user's own raise
        # a builtin of the standard library refusing what the user's code passed it
        (("train.py", "/usr/lib/python3.11/json/__init__.py"), "RuntimeError: the widget frobnicated unexpectedly"),
        # kinds that say what failed around the program, not a defect
        (("train.py", "/venv/lib/python3.11/site-packages/widgetlib/io.py"), "TimeoutError: the widget timed out"),
        (("train.py", "/venv/lib/python3.11/site-packages/widgetlib/io.py"), "ConnectionResetError: widget gone"),
    ],
)
def test_no_guess_where_the_user_raised_it_or_its_kind_is_not_a_defect(files: tuple[str, ...], error: str) -> None:
    diagnosis = _explain(_raised_in(*files, error=error)).diagnosis
    assert diagnosis.decided_by != "structure:raised-in-library"


def test_a_library_s_own_exception_class_names_it_when_the_log_shows_no_frames() -> None:
    diagnosis = _explain("widgetlib.errors.FrobError: the widget frobnicated unexpectedly\n").diagnosis
    assert (diagnosis.family, diagnosis.params["library"]) == ("framework-internal-error", "widgetlib")
    frameless = _explain("RuntimeError: the widget frobnicated unexpectedly\n").diagnosis
    assert frameless.decided_by == "structure:frameless-exception"  # no frames, no class of a library: not its own


def test_an_exception_pasted_without_frames_is_guessed_a_defect_by_base_rate_and_asks_for_the_traceback() -> None:
    explanation = _explain("RuntimeError: the widget frobnicated unexpectedly\n")
    diagnosis = explanation.diagnosis
    assert (diagnosis.verdict, diagnosis.family, diagnosis.decided_by) == (
        "unknown", "framework-internal-error", "structure:frameless-exception",
    )  # fmt: skip
    assert "Traceback (most recent call last)" in diagnosis.cause and "no frames" in diagnosis.cause
    assert not diagnosis.decided and not explanation.failing() and diagnosis.confidence <= 0.2


@pytest.mark.parametrize(
    "log",
    [
        "TimeoutError: the widget timed out\n",  # a kind that says what failed around the program
        "OSError: the widget file is gone\n",
        _raised_in("train.py", error="RuntimeError: the widget frobnicated unexpectedly"),  # frames: the user's raise
        "E0101 00:00:00.000 widget.cc:12] the widget frobnicated unexpectedly\n",  # a log line, not an exception
        "Error: the widget frobnicated unexpectedly\n",  # a tool's bare "Error:", no exception class
    ],
)
def test_no_frameless_guess_for_a_kind_not_a_defect_a_traceback_or_a_line(log: str) -> None:
    diagnosis = _explain(log).diagnosis
    assert diagnosis is None or diagnosis.decided_by != "structure:frameless-exception"


def test_a_traceback_pasted_with_every_line_indented_alike_is_still_one() -> None:
    site = "/usr/local/lib/python3.12/dist-packages"
    log = (
        f'   File "{site}/slangtorch/util/compile.py", line 71, in jit_compile\n'
        "     _write_ninja_file_and_build_library(\n"
        " TypeError: _write_ninja_file_and_build_library() missing 2 required positional arguments: "
        "'extra_sycl_cflags' and 'with_sycl'\n"
    )
    (record,) = [r for r in _records(log) if r.kind == "exception"]
    assert record.type == "TypeError" and record.library == "slangtorch"
    assert record.frames[-1].code.startswith("_write_ninja_file_and_build_library(")
    assert _explain(log).diagnosis.family == "api-version-skew"


@pytest.mark.parametrize(
    ("call", "message", "package"),
    [
        ("opts = faster_whisper.transcribe.TranscriptionOptions(**opts)",
         "TranscriptionOptions.__new__() got an unexpected keyword argument 'max_new_tokens'", "faster-whisper"),
        ("out = torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)",
         "scaled_dot_product_attention() got an unexpected keyword argument 'enable_gqa'", "torch"),
        ("train(model, lr=0.1)", "train() got an unexpected keyword argument 'lr'", None),  # the user's own function
        ("out = self.model.generate(x, foo=1)", "generate() got an unexpected keyword argument 'foo'", None),
        ("out = utils.helpers.Runner(x, foo=1)", "Runner.__init__() got an unexpected keyword argument 'foo'", None),
    ],
    ids=["library-class-by-module-path", "library-function", "own-function", "through-an-object", "project-module"],
)  # fmt: skip
def test_a_keyword_refused_at_the_user_s_call_to_a_library_s_module_path_is_that_library_s_release(
    call: str, message: str, package: str | None
) -> None:
    diagnosis = _explain(_AT_USER_CALL.format(call=call, message=message)).diagnosis
    if package is None:
        assert diagnosis.verdict == "not-environment", diagnosis.cause
        return
    assert (diagnosis.family, diagnosis.params["package"]) == ("api-version-skew", package), diagnosis.cause
    assert "/content/train.py:42" in diagnosis.cause


def test_a_keyword_refused_with_no_traceback_is_a_release_question_said_with_less_confidence() -> None:
    diagnosis = _explain("TypeError: __init__() got an unexpected keyword argument 'enable_lora'\n").diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("api-version-skew", "environment")
    assert diagnosis.confidence <= 0.5 and "if the call is your own" in diagnosis.cause


# ---- nothing decided: the environment's own static checks, when its facts are at hand --------------------------


def test_an_undecided_failure_names_the_checks_its_environment_fails_and_puts_check_first() -> None:
    """Recorded facts of a machine whose driver is older than its torch's CUDA: the log says nothing of it."""
    diagnosis = _explain("starting\nerror: the widget frobnicated unexpectedly\n", "gpu-driver-too-old").diagnosis
    assert diagnosis.family is None
    assert "[cuda-driver-too-old]" in diagnosis.joined[0] and "fail" in diagnosis.joined[0]
    assert diagnosis.next[0].startswith("xladoctor check")


def test_an_undecided_failure_in_a_healthy_environment_points_away_from_the_installation() -> None:
    diagnosis = _explain("RuntimeError: the widget frobnicated unexpectedly\n", "gpu-h100-healthy").diagnosis
    assert diagnosis.decided_by == "structure:frameless-exception"  # a guess: still undecided
    assert "No static check of xladoctor check fails" in diagnosis.joined[-1]
    assert not any(step.startswith("xladoctor check") for step in diagnosis.next)  # it has just run


def test_a_decided_failure_does_not_run_the_environment_s_checks() -> None:
    diagnosis = _explain("ModuleNotFoundError: No module named 'widgetlib'\n", "gpu-driver-too-old").diagnosis
    assert diagnosis.decided and not any("xladoctor check" in line for line in diagnosis.joined)


def test_an_undecided_log_of_another_python_is_not_judged_by_these_facts_checks() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.6/site-packages/widgetlib/core.py", line 3, in run\n    go()\n'
        "error: the widget frobnicated unexpectedly\n"
    )
    diagnosis = _explain(log, "gpu-driver-too-old").diagnosis
    assert diagnosis.contradicted and "Python 3.6" in diagnosis.joined[0]
    assert not any("[cuda-driver-too-old]" in line for line in diagnosis.joined)


def test_a_verdict_says_whose_code_raised_it_through_whose() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 3, in <module>\n'
        '  File "/usr/lib/python3.11/functools.py", line 10, in wrapper\n'
        '  File "/opt/venv/lib/python3.11/site-packages/fvdb/ops.py", line 40, in conv\n'
        '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 99, in __call__\n'
        '  File "/opt/venv/lib/python3.11/site-packages/fvdb/ops.py", line 41, in conv\n'
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    [record] = _records(log)
    assert record.packages == ("your code", "fvdb", "torch")  # the standard library's frame is nobody's choice
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported"
    assert diagnosis.params["stack"] == "your code -> fvdb -> torch"
    assert diagnosis.to_json()["params"]["stack"] == "your code -> fvdb -> torch"


def test_an_exception_reported_message_first_and_frames_after_is_read_as_one() -> None:
    # ComfyUI's report of a node's exception: no type, the message above the frames
    log = (
        "Error occurred when executing IPAdapter:\n\n"
        "'ClipVisionModel' object has no attribute 'patcher'\n\n"
        'File "/Users/z/ComfyUI/execution.py", line 151, in recursive_execute\n'
        "output_data, output_ui = get_output_data(obj, input_data_all)\n"
        'File "/Users/z/ComfyUI/custom_nodes/IPAdapter-ComfyUI/ip_adapter.py", line 224, in clip_vision_encode\n'
        "comfy.model_management.load_model_gpu(clip_vision.patcher)\n"
    )
    [record] = _records(log)
    assert (record.kind, record.type, record.line) == ("exception", "AttributeError", 3)  # CPython's words for it
    assert record.packages == ("ComfyUI", "IPAdapter-ComfyUI")  # an application and its plug-in: not your code
    assert record.frames[-1].code == "comfy.model_management.load_model_gpu(clip_vision.patcher)"
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "api-version-skew"
    untyped = _records("Error occurred when executing X:\n\nthe widget is out of range\n\n" + log.split("\n\n", 2)[2])
    assert untyped[0].type == "" and untyped[0].message == "the widget is out of range"


def test_a_message_above_a_traceback_of_python_order_is_not_taken_for_its_exception() -> None:
    log = (
        "loading the model\n"
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 3, in <module>\n'
        "    main()\n"
        "RuntimeError: the real error\n"
    )
    assert [(r.type, r.message) for r in _records(log) if r.kind == "exception"] == [("RuntimeError", "the real error")]


def test_a_traceback_cut_at_an_assert_or_at_a_frame_line_keeps_its_exception_and_frames() -> None:
    asserted = _records(
        'File "/venv/lib/python3.10/site-packages/insightface/app/face_analysis.py", line 43, in __init__\n'
        "    assert 'detection' in self.models\n"
    )
    assert [(r.type, r.message, r.library) for r in asserted] == [
        ("AssertionError", "'detection' in self.models", "insightface")
    ]
    cut = _records(
        '.../python310\\lib\\site-packages\\xformers\\ops\\fmha\\flash.py", line 139, in _flash_fwd\n'
        "    out, softmax_lse, p, rng_state = _C_flashattention.fwd(\n"
        "ValueError: too many values to unpack (expected 4)\n"
    )
    assert [(r.type, r.library) for r in cut] == [("ValueError", "xformers")]


def test_values_unpacked_from_the_users_own_call_are_no_version_mismatch() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 3, in <module>\n'
        "    a, b = my_ext.forward(x)\n"
        "ValueError: not enough values to unpack (expected 2, got 1)\n"
    )
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is None or diagnosis.family != "version-mismatch"


def test_an_exception_group_s_sub_exceptions_are_read_behind_their_bars() -> None:
    log = (
        "  + Exception Group Traceback (most recent call last):\n"
        '  |   File "/home/me/app.py", line 10, in main\n'
        "  |     async with asyncio.TaskGroup() as tg:\n"
        "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
        "  +-+---------------- 1 ----------------\n"
        "    | Traceback (most recent call last):\n"
        '    |   File "/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 293, in _lazy_init\n'
        "    |     torch._C._cuda_init()\n"
        "    | ValueError: the frobnicator of widget 3 overflowed\n"
        "    +------------------------------------\n"
    )
    records = [r for r in _records(log) if r.kind == "exception"]
    assert [(r.type, r.packages) for r in records] == [
        ("ExceptionGroup", ("your code",)), ("ValueError", ("torch",)),
    ]  # fmt: skip
    assert records[1].message == "the frobnicator of widget 3 overflowed"


def test_a_python_list_index_raised_in_a_library_is_that_library_s_not_a_tensor_shape() -> None:
    """CPython's "list index out of range" is a list the raising code built, not a tensor's index: raised in jax's
    own code it is a guess of jax's defect; raised in the user's, the user's bug. A tensor's index stays a shape."""
    in_jax = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 3, in <module>\n    jax.vmap(f)(a, b)\n'
        '  File "/venv/lib/python3.11/site-packages/jax/_src/api.py", line 1057, in arg_name\n'
        '    res = f"argument {signature_parameters[i]}"\n'
        "IndexError: list index out of range\n"
    )
    diagnosis = _explain(in_jax).diagnosis
    assert diagnosis.family == "framework-internal-error" and diagnosis.params["library"] == "jax"
    assert "your call into it: /home/me/run.py:3, `jax.vmap(f)(a, b)`" in diagnosis.cause
    in_user = (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 3, in <module>\n    x = items[9]\n'
        "IndexError: list index out of range\n"
    )
    assert _explain(in_user).diagnosis.family == "user-code-error"
    tensor = TORCH_FRAME + "    emb(ids)\nIndexError: index out of range in self\n"
    assert _explain(tensor).diagnosis.decided_by == "user-code-error:shapes_and_devices"


def test_a_wrapper_that_hands_on_its_arguments_does_not_make_the_call_a_library_s() -> None:
    """A missing argument raised under a library's `f(*args, **kwargs)` came from the frame above it: the user's call,
    not two libraries of different releases."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 28, in <module>\n    updates = my_grad(my_module=m, index=i)\n'
        '  File "/venv/lib/python3.8/site-packages/equinox/_ad.py", line 72, in __call__\n'
        "    value, grad = self._fun_value_and_grad(*args, **kwargs)\n"
        "TypeError: __call__() missing 1 required positional argument: 'x'\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family != "api-version-skew" and diagnosis.verdict != "environment"
    library_call = log.replace("self._fun_value_and_grad(*args, **kwargs)", "self._fun_value_and_grad(x=1)")
    assert _explain(library_call).diagnosis.family == "api-version-skew"


def test_cuda_s_operation_not_supported_is_the_allocator_or_a_feature_the_system_lacks() -> None:
    log = TORCH_FRAME + (
        "RuntimeError: CUDA error: operation not supported\n"
        "CUDA kernel errors might be asynchronously reported at some other API call\n"
    )
    diagnosis = _explain(log).diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("bad-configuration", "environment")
    assert "--disable-cuda-malloc" in diagnosis.cause and diagnosis.params["variable"] == "PYTORCH_CUDA_ALLOC_CONF"


def test_a_log_whose_failure_has_no_error_word_still_gives_its_last_failing_line_and_what_to_run() -> None:
    """No record anywhere ("nothing failed" before): the log's end is read again with plain words of failure, and
    the line that matters is named with the next steps, as unknown; a log that only warns still says nothing."""
    log = (
        "All distributed processes registered. Starting with 32 processes\n"
        "rank 3: all_reduce on ProcessGroupNCCL stuck for 600 s\n"
    )
    assert not _records(log)
    diagnosis = _explain("step 1\nstep 2\n" + log).diagnosis
    assert diagnosis is not None and diagnosis.family is None and diagnosis.verdict == "unknown"
    assert diagnosis.line == 4 and "stuck for 600 s" in diagnosis.record
    assert any("NCCL_DEBUG=INFO" in step for step in diagnosis.next)
    assert _explain("epoch 1 loss 0.5\nUserWarning: the default will change\n").diagnosis is None
    healthy = "epoch 3 train loss 0.21 (wandb not available)\nProcess finished with exit code 0\n"
    assert _explain(healthy).diagnosis is None


def test_a_kernel_library_refusing_the_gpu_s_architecture_is_the_gpu_not_a_missing_op() -> None:
    log = TORCH_FRAME + "RuntimeError: Unsupported CUDA architecture: sm75\n"
    diagnosis = _explain(log).diagnosis
    assert (diagnosis.family, diagnosis.params["arch"]) == ("gpu-arch-unsupported", "sm75")


def test_nccl_s_operation_not_supported_is_its_memory_sharing_not_the_allocator() -> None:
    log = (
        "node1:1234:1300 [0] transport/p2p.cc:275 NCCL WARN Cuda failure 'operation not supported'\n"
        "node1:1234:1300 [0] NCCL INFO transport/p2p.cc:330 -> 1\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "bad-configuration" and diagnosis.params["variable"] == "NCCL_CUMEM_ENABLE"
    assert "cudaMallocAsync" not in diagnosis.cause and "export NCCL_CUMEM_ENABLE=0" in diagnosis.remediation[0]


def test_c10_s_own_warnings_are_warnings_and_an_error_in_their_lines_is_a_record_of_its_own() -> None:
    """torch's C++ logger writes "[W1105 13:37:10.134 File.cpp:N] ..." (since torch 2.4): a warning, so a run that
    only warned failed nothing; an exception line in the few lines after one is its own record, the one that matters."""
    warned = (
        "[rank1]:[W1105 13:37:10.134661876 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 1]  using GPU 1 to "
        "perform barrier as devices used by this process are currently unknown. This can potentially cause a hang.\n"
    )
    assert _explain(warned + "step 1 loss 2.3\nstep 2 loss 2.1\n").diagnosis is None
    diagnosis = _explain(warned + "step 1 loss 2.3\nValueError: could not convert string to float: 'abc'\n").diagnosis
    assert diagnosis.line == 3 and diagnosis.record.startswith("ValueError: could not convert")


def test_a_preload_the_loader_ignored_gives_way_to_the_error_that_stopped_the_program() -> None:
    """Colab and some images preload a library every process then fails to load ("...: ignored."): the program runs
    on, so the error after it is the cause; alone, the preload is what the log holds."""
    noise = (
        "ERROR: ld.so: object '/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4' from LD_PRELOAD cannot be preloaded "
        "(cannot open shared object file): ignored.\n"
    )
    later = 'Traceback (most recent call last):\n  File "/content/run.py", line 1, in <module>\n    import foo_bar\n'
    later += "ModuleNotFoundError: No module named 'foo_bar'\n"
    assert _explain(noise + "Collecting foo\n" + later).diagnosis.family == "module-not-found"
    assert _explain(noise).diagnosis.params["variable"] == "LD_PRELOAD"


def test_llvm_going_on_without_a_processor_it_does_not_know_is_a_warning() -> None:
    unknown_gpu = "'sm_120' is not a recognized processor for this target (ignoring processor)\n"
    assert _explain(unknown_gpu).diagnosis.family == "gpu-arch-unsupported"
    later = TORCH_FRAME + "    import foo\nModuleNotFoundError: No module named 'foo_bar'\n"
    assert _explain(unknown_gpu + later).diagnosis.family == "module-not-found"


@pytest.mark.parametrize("lines", [3, 2000])  # the whole log in the kept tail, and a tail that begins inside a line
@pytest.mark.parametrize("end", ["\n", ""])
def test_a_line_read_again_at_the_log_s_end_keeps_its_line_number(lines: int, end: str) -> None:
    log = "".join(f"step {i} loss 0.5\n" for i in range(1, lines)) + "rank 3: all_reduce stuck for 600 s" + end
    assert _explain(log).diagnosis.line == lines


def test_torch_s_own_library_missing_when_your_code_imported_the_extension_first_is_the_import_order() -> None:
    """The loader finds a loaded library by its soname: once torch is imported, libc10.so is never missing."""
    error = "ImportError: libc10.so: cannot open shared object file: No such file or directory\n"
    yours = 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
    yours += "    import causal_conv1d_cuda\n"
    diagnosis = _explain(yours + error).diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("missing-library", "not-environment")
    assert "Import torch first" in diagnosis.cause
    package = (
        'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    import mamba_ssm\n'
        '  File "/venv/lib/python3.10/site-packages/mamba_ssm/__init__.py", line 3, in <module>\n'
        "    import selective_scan_cuda\n"
    )
    assert _explain(package + error).diagnosis.verdict == "environment"


_UV_BUILD = """  × Failed to build `flash-attn==2.6.1`
  ├─▶ The build backend returned an error
  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)

      [stderr]
      Traceback (most recent call last):
        File "<string>", line 19, in <module>
      ModuleNotFoundError: No module named 'torch'

      hint: This error likely indicates that `flash-attn@2.6.1` depends on `torch`, but doesn't declare it as a """
_UV_BUILD += """build dependency. If
      `flash-attn` is a first-party package, consider adding `torch` to its `build-system.requires`.
"""


def test_a_module_a_build_imported_is_the_build_s_isolation_when_the_installer_says_so() -> None:
    """uv's hint after the build's stderr, or pip's own block around it, makes "No module named" the build's."""
    diagnosis = _explain(_UV_BUILD).diagnosis
    assert (diagnosis.family, diagnosis.params["module"]) == ("build-failure", "torch")
    pip = "      ModuleNotFoundError: No module named 'packaging'\n      [end of output]\n\n"
    pip += "error: metadata-generation-failed\n"
    assert _explain(pip).diagnosis.family == "build-failure"
    # uv's box alone ("Failed to build", "The build backend returned an error") says whose output it is
    assert _explain(_UV_BUILD.split("      hint")[0]).diagnosis.family == "build-failure"
    # the same error with nothing of a build around it is the interpreter's
    traceback = _UV_BUILD.split("      [stderr]\n")[1].split("\n\n")[0] + "\n"
    assert _explain(traceback).diagnosis.family == "module-not-found"


_NCCL_TEST_HEADER = (
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 graph: 0\n#\n# Using devices\n"
    "#  Rank  0 Group  0 Pid  12345 on    node1 device  0 [0x07] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid  12345 on    node1 device  1 [0x0a] NVIDIA H100 80GB HBM3\n"
)
_NCCL_TEST_TABLE = (
    "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
    "(GB/s)\n"
)


def test_a_collective_test_that_ends_before_its_first_result_hung_there() -> None:
    diagnosis = _explain(_NCCL_TEST_HEADER).diagnosis
    assert (diagnosis.family, diagnosis.decided_by) == ("hang-timeout", "stall:collective-test")
    assert _explain(_NCCL_TEST_HEADER + _NCCL_TEST_TABLE).diagnosis.family == "hang-timeout"


def test_a_collective_test_that_finished_is_a_healthy_log() -> None:
    row = "           8             2     float     sum      -1    25.31    0.00    0.00      0    24.80    0.00"
    row += "    0.00      0\n"
    log = _NCCL_TEST_HEADER + _NCCL_TEST_TABLE + row + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.00\n"
    explanation = _explain(log)
    assert explanation.diagnosis is None


@pytest.mark.parametrize(
    ("log", "package", "other"),
    [
        (  # Python's frames, the paste ending on the frame's source line
            '  File "/home/u/envs/x/lib/python3.10/site-packages/peft/peft_model.py", line 37, in <module>\n'
            "    from transformers import Cache, DynamicCache, EncoderDecoderCache, PreTrainedModel\n",
            "peft",
            "transformers",
        ),
        (  # an attribute of another package written at import, with Python 3.11's carets
            '  File "/x/lib/python3.11/site-packages/equinox/__init__.py", line 3, in <module>\n'
            "    from . import debug as debug\n"
            '  File "/x/lib/python3.11/site-packages/equinox/internal/_noinline.py", line 379, in <module>\n'
            "    jax.core.pp_eqn_rules[noinline_p] = _noinline_pretty_print\n"
            "    ^^^^^^^^^^^^^^^^^^^^^\n",
            "equinox",
            "jax",
        ),
        (  # IPython 7's frames as Colab renders them, cut inside the context lines before the arrow
            "[/usr/local/lib/python3.10/dist-packages/numpyro/ops/provenance.py](https://localhost:8080/#)"
            " in <module>\n"
            "      6 import jax.core as core\n"
            "      7 from jax.experimental.pjit import pjit_p\n",
            "numpyro",
            "jax",
        ),
    ],
)
def test_a_traceback_cut_at_a_package_s_import_is_guessed_as_another_release_of_what_it_imports(
    log: str, package: str, other: str
) -> None:
    diagnosis = _explain(log).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "structure:cut-at-import"
    assert (diagnosis.family, diagnosis.verdict) == ("api-version-skew", "unknown")  # a guess: no verdict class
    assert (diagnosis.params["package"], diagnosis.params["library"]) == (package, other)
    assert f'python -c "import {package}"' in diagnosis.cause


@pytest.mark.parametrize(
    "log",
    [
        # the error's own line is there: read by its rules, not guessed
        '  File "/x/lib/python3.11/site-packages/peft/peft_model.py", line 37, in <module>\n'
        "    from transformers import Cache\n"
        "ImportError: cannot import name 'Cache' from 'transformers'\n",
        # the user's own script at import: no installed package imported another
        '  File "/home/u/proj/train.py", line 3, in <module>\n    from transformers import Cache\n',
        # a function's frame, not an import
        '  File "/x/lib/python3.11/site-packages/peft/tuners/lora.py", line 90, in forward\n'
        "    return torch.matmul(x, w)\n",
        # the standard library is not a release of anything to pin
        '  File "/x/lib/python3.11/site-packages/peft/__init__.py", line 2, in <module>\n    import os.path\n',
        # a dotted name of the module's own (its logger), not a package
        '  File "/x/lib/python3.11/site-packages/peft/__init__.py", line 9, in <module>\n    logger.info("ready")\n',
    ],
)
def test_a_cut_traceback_is_guessed_only_at_an_installed_package_s_import_of_another(log: str) -> None:
    diagnosis = _explain(log).diagnosis
    assert diagnosis is None or diagnosis.decided_by != "structure:cut-at-import"


def test_a_one_file_module_is_named_as_it_is_imported() -> None:
    log = '  File "/x/lib/python3.11/site-packages/six.py", line 9, in <module>\n    from numpy import float\n'
    diagnosis = _explain(log).diagnosis
    assert diagnosis is not None and diagnosis.params["package"] == "six"
    assert 'python -c "import six"' in diagnosis.cause


def test_a_models_remote_code_is_the_models_authors_not_the_users() -> None:
    # transformers imports trust_remote_code's modules from its modules cache as the package transformers_modules
    remote = "/root/.cache/huggingface/modules/transformers_modules/microsoft/Phi-3-mini/modeling_phi3.py"
    assert owner_of(remote) == "transformers_modules"
    windows = "C:\\Users\\me\\.cache\\huggingface\\modules\\transformers_modules\\x\\y\\m.py"
    assert owner_of(windows) == "transformers_modules"
    assert owner_of("/home/me/project/modeling_phi3.py") is None


def test_a_compute_capability_floor_is_checked_against_this_machines_gpu() -> None:
    log = "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.\n"
    fits = _explain(log, "colab-t4").diagnosis
    assert not fits.contradicted and "below the 8.9 the error asks for" in fits.joined[0], fits.joined
    other = _explain(log, "gpu-h100-healthy").diagnosis
    assert other.contradicted and "meets the 8.9" in other.joined[0], other.joined
    # TensorFlow's own minimum, read the same way, and never joined with torch's architectures
    ignored = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1946] Ignoring visible gpu device (device: 0, name: Tesla "
        "T4, pci bus id: 0000:00:04.0, compute capability: 7.5) with Cuda compute capability 7.5. The minimum "
        "required Cuda capability is 8.0.\n"
    )
    tf = _explain(ignored, "colab-t4").diagnosis
    assert tf.family == "gpu-arch-unsupported" and not any("torch" in said for said in tf.joined), tf.joined


def test_an_amd_runtime_is_not_joined_with_the_nvidia_summary() -> None:
    log = (
        "/env/torch/cuda/__init__.py:88: UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount()."
        " Did you run some cuda functions before calling NumHipDevices() that might have already set an error? Error "
        "35: hipErrorInsufficientDriver (Triggered internally at ../c10/hip/HIPFunctions.cpp:110.)\n"
    )
    diagnosis = _explain(log, "colab-t4").diagnosis
    assert diagnosis.family == "cuda-driver-too-old" and not any("NVIDIA" in said for said in diagnosis.joined)


def test_a_syntax_error_no_python_accepts_is_the_files_author_s_not_another_python() -> None:
    """CPython's words for parameters and arguments written in an order no version accepts: the user's script is
    the user's mistake; a generated file (a library's cache of code it writes) is that library's defect."""
    own = (
        '  File "/home/me/train.py", line 12\n    def f(a=1, b):\n               ^\n'
        "SyntaxError: parameter without a default follows parameter with a default\n"
    )
    diagnosis = _explain(own).diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    generated = (
        "Standard import failed for UnslothGKDTrainer: non-default argument follows default argument "
        "(UnslothGKDTrainer.py, line 632). Using tempfile instead!\n"
    )
    diagnosis = _explain(generated).diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("framework-internal-error", "framework-bug")
    assert "UnslothGKDTrainer.py" in diagnosis.cause and "generated" in diagnosis.cause


def test_pytests_report_gives_the_raising_frame_under_its_exception() -> None:
    log = (
        ">       module = code_gen.ast_to_ttir(\n"
        "            fn, signature, specialization, constants, debug=dump, arch=arch\n"
        "        )\n"
        "E       TypeError: ast_to_ttir() got an unexpected keyword argument 'arch'\n"
        "\n"
        "/usr/local/lib/python3.10/dist-packages/jax_triton/triton_lib.py:215: TypeError\n"
    )
    record = next(r for r in _records(log) if r.type == "TypeError")
    assert [(f.owner, f.line) for f in record.frames] == [("jax_triton", 215)]
    assert record.message == "ast_to_ttir() got an unexpected keyword argument 'arch'"
    # a location of another exception type is no frame of this one
    other = next(r for r in _records(log.replace(": TypeError\n", ": ValueError\n")) if r.type == "TypeError")
    assert other.frames == ()
    # the tested project's own file, relative: whose it is, a library's checkout or the reader's code, is not said
    project = log.replace("/usr/local/lib/python3.10/dist-packages/jax_triton/", "gymnasium/wrappers/")
    assert next(r for r in _records(project) if r.type == "TypeError").frames == ()
    named = log.replace("/usr/local/lib/python3.10/dist-packages/jax_triton/", "jax/_src/")  # even a package's name
    assert next(r for r in _records(named) if r.type == "TypeError").frames == ()
    windows = log.replace(
        "/usr/local/lib/python3.10/dist-packages/jax_triton/", "C:\\py\\Lib\\site-packages\\jax_triton\\"
    )
    assert [f.owner for f in next(r for r in _records(windows) if r.type == "TypeError").frames] == ["jax_triton"]


def test_a_log_with_no_failure_words_is_read_from_its_last_line() -> None:
    # a rule whose words the log's scan does not look for (written in any case) still reads the log's last line
    explanation = _explain("step 1 loss 2.3\nstep 2 loss 2.1\n\nFP8 IS NOT SUPPORTED ON THIS GPU\n\n")
    assert explanation.records == 1
    diagnosis = explanation.diagnosis
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported" and diagnosis.line == 4
    # a last line that says nothing of failure is no verdict: a healthy log ends that way, and a rule of last words
    # (a word such as timeout, OOM, "not implemented") reads nothing there either
    for last in ("the run went no further", "Initializing process group with timeout=1800s",
                 "Enabling OOM protection: max_split_size_mb=512", "not implemented ops fall back to CPU"):  # fmt: skip
        quiet = _explain(f"step 1 loss 2.3\nsaving to /tmp/out\n{last}\n")
        assert quiet.records == 1 and quiet.diagnosis is None, (last, quiet.diagnosis)


def test_inductor_names_the_compiler_it_could_not_start() -> None:
    """torch/_inductor/cpp_builder.py checks the compiler only on Windows: the advice is Windows', and a path with
    spaces is read whole."""
    diagnosis = _explain("torch._inductor.exc.InductorError: RuntimeError: Compiler: cl is not found.\n").diagnosis
    assert diagnosis.decided_by == "build-failure:inductor_compiler_not_found" and "x64 Native Tools" in diagnosis.cause
    other = _explain(
        "InvalidCxxCompiler: Compiler: C:\\Program Files\\LLVM\\bin\\clang-cl.exe is not found.\n"
    ).diagnosis
    assert other.params["compiler"] == "C:\\Program Files\\LLVM\\bin\\clang-cl.exe" and "CXX" in other.cause
    assert not any("apt-get" in step or "command -v" in step for step in (*other.next, *other.remediation))


_TORCH_GPU_WARNING = (
    "/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:283: UserWarning: \n"
    "Found GPU0 {gpu} which is of compute capability (CC) {cc}.\n"
    "The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:\n"
    "- 5.0 which supports hardware CC >=5.0,<6.0 except {{5.3}}\n"
    "- 9.0 which supports hardware CC >=9.0,<10.0\n"
    "{tail}\n  warnings.warn(\n"
)


def test_torchs_own_list_of_builds_for_this_gpu_becomes_the_fix() -> None:
    """torch/cuda/__init__.py (_warn_unsupported_code, after 2.9) names the builds of the same release that carry
    the GPU's kernels: the first of them is the command, and the GPU the first line named stays in the cause."""
    tail = (
        "Your installed torch==2.10.0+cu126 does not include kernels for this GPU. Reinstall the same version against "
        "a CUDA build that does, e.g.:\n"
        "  For CUDA 12.9 use pip install torch==2.10.0 --index-url https://download.pytorch.org/whl/cu129\n"
        "  For CUDA 13.0 use pip install torch==2.10.0 --index-url https://download.pytorch.org/whl/cu130"
    )
    diagnosis = _explain(_TORCH_GPU_WARNING.format(gpu="NVIDIA GeForce RTX 5090", cc="12.0", tail=tail)).diagnosis
    assert diagnosis.decided_by == "gpu-arch-unsupported:torch_names_the_builds_for_this_gpu"
    assert "CUDA 12.9 (cu129), CUDA 13.0 (cu130)" in diagnosis.cause
    assert any("torch==2.10.0" in c and "whl/cu129" in c for c in diagnosis.remediation), diagnosis.remediation


def test_a_gpu_no_build_of_the_release_carries_needs_an_older_release_not_another_index() -> None:
    tail = (
        "No published PyTorch CUDA builds for release 2.10.0+cu126 support this GPU. Visit "
        "https://pytorch.org/get-started/locally/ to find a compatible release."
    )
    diagnosis = _explain(_TORCH_GPU_WARNING.format(gpu="Tesla K80", cc="3.7", tail=tail)).diagnosis
    assert diagnosis.decided_by == "gpu-arch-unsupported:torch_names_the_builds_for_this_gpu"
    assert "older torch release" in diagnosis.cause and not any("index-url" in c for c in diagnosis.remediation)
    # Jetson Orin (8.7) sits between 5.0 and 9.0 yet is excluded from 8.0's range: not older, another source
    orin = _explain(_TORCH_GPU_WARNING.format(gpu="Orin", cc="8.7", tail=tail)).diagnosis
    assert "older torch release" not in orin.cause and "Jetson" in orin.cause, orin.cause


@pytest.mark.parametrize(
    ("message", "package"),
    [
        ("RuntimeError: Need networkx installed to perform smart recomputation heuristics", "networkx"),
        ("RuntimeError: To use the ILP for memory budget checkpointing you need to install scipy", "scipy"),
        ("RuntimeError: FXGraphDrawer requires the pydot package to be installed. Please install pydot through your "
         "favorite Python package manager.", "pydot"),
        ("OnnxExporterError: Module onnx is not installed!", "onnx"),
        # pynvml is installed from NVIDIA's own distribution of it
        ("ModuleNotFoundError: pynvml does not seem to be installed or it can't be imported.", "nvidia-ml-py"),
        ("RuntimeError: Please install the `filelock` package to set `jax_compilation_cache_max_size`", "filelock"),
        ("ValueError: `visualize_sharding` requires `rich` to be installed.", "rich"),
        ("ValueError: Handling remote paths requires installing TensorFlow (in order to use gfile).", "TensorFlow"),
    ],
)  # fmt: skip
def test_a_frameworks_own_words_for_an_optional_dependency_name_it(message: str, package: str) -> None:
    """torch's, JAX's and Keras's words when an optional dependency is absent (torch/_functorch/partitioners.py,
    torch/cuda/__init__.py, jax/_src/lru_cache.py, keras/src/utils/file_utils.py, ...)."""
    diagnosis = _explain(message + "\n").diagnosis
    assert (diagnosis.decided_by, diagnosis.params.get("package")) == ("module-not-found:requires_package", package)


@pytest.mark.parametrize(
    "message", ["RuntimeError: This feature requires installing from source: see the docs", "RuntimeError: you need "
                "to install the CUDA toolkit"],
)  # fmt: skip
def test_a_sentence_after_install_is_not_a_package_name(message: str) -> None:
    assert _explain(message + "\n").diagnosis.decided_by != "module-not-found:requires_package"


def test_a_broken_weights_file_is_named_by_the_variable_that_chose_it() -> None:
    """The loaders' own frames pass the file on under their parameters' names (ckpt, filename); the outermost call
    that passes it by a variable's name is where it was chosen, and what the reader has to check."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/srv/ComfyUI/execution.py", line 158, in process_inputs\n'
        "    results.append(getattr(obj, func)(**inputs))\n"
        '  File "/srv/ComfyUI/nodes.py", line 967, in load_clip\n'
        "    clip_vision = comfy.clip_vision.load(clip_path)\n"
        '  File "/srv/ComfyUI/comfy/utils.py", line 34, in load_torch_file\n'
        "    sd = safetensors.torch.load_file(ckpt, device=device.type)\n"
        '  File "/usr/lib/python3.10/site-packages/safetensors/torch.py", line 313, in load_file\n'
        '    with safe_open(filename, framework="pt", device=device) as f:\n'
        "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "user-code-error" and diagnosis.params["variable"] == "clip_path"
    assert "/srv/ComfyUI/nodes.py:967" in diagnosis.cause
    frameless = _explain("safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge\n")
    assert "variable" not in frameless.diagnosis.params


@pytest.mark.parametrize(
    ("message", "package", "want", "fix"),
    [
        ("OSError: Loading a distributed checkpoint requires torch>=2.8.", "torch", ">=2.8", None),
        ("ValueError: Grad Scaler with MPS device requires a Pytorch >= 2.8.0", "torch", ">=2.8.0", None),
        ("RuntimeError: LoRA with DTensor tensor parallelism requires transformers >= 5.17.0. Please upgrade.",
         "transformers", ">=5.17.0", "'transformers>=5.17.0,<6'"),
        ("ValueError: Trying to load old OFT checkpoint, which is no longer supported. Please install PEFT <= v0.15.2 "
         "to load it or train a new OFT adapter.", "peft", "<=0.15.2", "'peft<=0.15.2'"),
        ("ValueError: nossh launcher requires DeepSpeed >= 0.14.5", "deepspeed", ">=0.14.5", "'deepspeed>=0.14.5'"),
        ("ValueError: needs huggingface_hub>=0.34.0,<1.0", "huggingface-hub", ">=0.34.0,<1.0",
         "'huggingface-hub>=0.34.0,<1.0'"),
        ("ValueError: This pipeline requires torchvision>=0.20", "torchvision", ">=0.20", None),
        ("ImportError: This feature requires transformers>=4.57.0.dev0, install from source", "transformers",
         ">=4.57.0.dev0", None),
    ],
)  # fmt: skip
def test_a_librarys_own_release_check_names_the_release_to_install(
    message: str, package: str, want: str, fix: str | None
) -> None:
    """transformers/distributed/checkpoint.py, accelerate/utils/modeling.py, peft/tuners/lora/model.py,
    peft/tuners/oft/model.py: a minimum (or maximum) release in the library's words. torch is never reinstalled from
    a bare pip command (it could trade the CUDA build): its fix is said, with the command to see the build."""
    diagnosis = _explain(message + "\n").diagnosis
    assert diagnosis.decided_by == "version-mismatch:requires_a_release"
    assert (diagnosis.params["package"], diagnosis.params["want"]) == (package, want)
    if fix is None:  # torch and what pins it, and a pre-release: said, never a bare pip command
        assert not diagnosis.remediation
    else:
        assert any(fix in command for command in diagnosis.remediation), diagnosis.remediation


@pytest.mark.parametrize(
    ("message", "package"),
    [
        ("ValueError: `tiktoken` is required to read a `tiktoken` file. Install it with `pip install tiktoken`.",
         "tiktoken"),
        ("ValueError: PEFT is not installed. Please install it with `pip install peft`", "peft"),
        ("RuntimeError: torchaudio is required for audio. Install with: pip install torchaudio", "torchaudio"),
        ("ValueError: NeptuneCallback requires the Neptune client library to be installed. To install the library, "
         "run `pip install neptune`.", "neptune"),
    ],
)  # fmt: skip
def test_the_pip_command_an_error_ends_with_names_the_package(message: str, package: str) -> None:
    diagnosis = _explain(message + "\n").diagnosis
    assert diagnosis.decided_by == "module-not-found:pip_command_in_the_error", diagnosis.decided_by
    assert diagnosis.params["package"] == package
    if package == "torchaudio":  # tied to one torch build: said, never installed from a bare command
        assert not diagnosis.remediation
    else:
        assert any(f"install {package}" in command for command in diagnosis.remediation), diagnosis.remediation


_USER_KEY_ERROR = (
    'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n    x = cfg["lr"]\n'
    "KeyError: 'lr'\n"
)


@pytest.mark.parametrize(
    "log",
    [
        "[notice] A new release of pip is available: 23.2.1 -> 24.0\n[notice] To update, run: pip install --upgrade "
        "pip\n" + _USER_KEY_ERROR,
        "+ pip install -U pip && pip install vllm\nSuccessfully installed vllm-0.6.0\ntorch.OutOfMemoryError: CUDA out "
        "of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.02 GiB is free.\n",
        "Xet Storage is enabled for this repo, but the 'hf_xet' package is not installed. Falling back to regular HTTP "
        "download. For better performance, install the package with: `pip install huggingface_hub[hf_xet]`\n"
        + _USER_KEY_ERROR,
    ],
)  # fmt: skip
def test_a_pip_command_the_log_only_echoes_or_went_past_is_not_the_cause(log: str) -> None:
    assert _explain(log).diagnosis.decided_by != "module-not-found:pip_command_in_the_error"


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: This model requires vllm nightly. Please install it from source with pip install "
        "git+https://github.com/vllm-project/vllm.git",
        "ValueError: Some packages are missing; install them with pip install -r requirements.txt",
        "RuntimeError: Missing files; install the wheel with pip install https://example.org/x-1.0-py3-none-any.whl",
    ],
)  # fmt: skip
def test_a_checkout_a_url_or_a_file_after_pip_install_is_not_a_package_to_install(message: str) -> None:
    diagnosis = _explain(message + "\n").diagnosis
    assert not any(" git" in c or "https" in c or "requirements" in c for c in diagnosis.remediation)
    assert diagnosis.family != "module-not-found", diagnosis.cause


def test_pips_own_conflict_lines_are_not_a_librarys_release_check() -> None:
    log = (
        "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\n"
        "xformers 0.0.23 requires torch==2.1.0, but you have torch 2.2.0 which is incompatible.\n"
    )
    assert _explain(log).diagnosis.family == "resolver-conflict"


@pytest.mark.parametrize(
    ("log", "api"),
    [
        ("ImportError: /venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
         "cusparseCreateCsr, version libcusparse.so.10\n", "cuSPARSE"),
        ("OSError: /venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
         "cudaGetDriverEntryPointByVersion, version libcudart.so.12\n", "CUDA runtime (libcudart)"),
        ("ImportError: dlopen(/Users/s/lib/python3.7/site-packages/torch/_C.cpython-37m-darwin.so, 2): Symbol not "
         "found: _cusparseCreateCsr\n  Referenced from: /Users/s/lib/python3.7/site-packages/torch/lib/"
         "libtorch_cuda.dylib\n  Expected in: /usr/local/cuda/lib/libcusparse.10.dylib\n", "cuSPARSE"),
    ],
)  # fmt: skip
def test_a_missing_function_of_a_cuda_library_is_a_mix_of_cuda_releases(log: str, api: str) -> None:
    """FAMILIES.md: a symbol one of NVIDIA's libraries lacks is that library loaded from another CUDA release
    (cuda-library-mismatch), whoever calls it, on Linux's loader and on macOS's dyld alike."""
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "cuda-library-mismatch" and diagnosis.params["library"] == api, diagnosis.cause


def test_a_cxx_symbol_of_torch_stays_an_extension_built_for_another_torch() -> None:
    log = (
        "ImportError: /venv/lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c104cuda9SetDeviceEi\n"
    )
    assert _explain(log).diagnosis.family == "undefined-symbol"


def test_the_weights_variable_is_not_a_configuration_or_a_librarys_own() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 40, in <module>\n    main(args.config_file)\n'
        '  File "/home/me/run.py", line 12, in main\n    state = torch.load(path)\n'
        '  File "/venv/lib/python3.11/site-packages/torch/serialization.py", line 1025, in load\n'
        "    with _open_zipfile_reader(opened_file) as opened_zipfile:\n"
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.params.get("variable") == "path" and "/home/me/run.py:12" in diagnosis.cause, diagnosis.cause


def test_tensorrts_refusal_of_fp8_names_the_generation_it_needs() -> None:
    log = (
        "[09/11/2024-21:49:27] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error "
        "(Networks with FP8 Q/DQ layers require hardware with FP8 support.)\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "gpu-arch-unsupported" and diagnosis.params["floor"] == "8.9", diagnosis.cause


def test_a_namespace_packages_parts_are_separate_releases() -> None:
    """pyannote.core's helper looking up pyannote.audio's pipeline: two distributions under one top-level name, so
    code written for another release of pyannote.audio, not one release's inconsistency."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.10/dist-packages/pyannote/core/utils/helper.py", line 68, in '
        "get_class_by_name\n    return getattr(import_module(module_name), class_name)\n"
        "AttributeError: module 'pyannote.audio.pipelines' has no attribute 'SpeakerSegmentation'\n"
    )
    diagnosis = _explain(log).diagnosis
    assert (diagnosis.family, diagnosis.verdict) == ("api-version-skew", "environment"), diagnosis.cause
    assert "pyannote.audio" in diagnosis.cause


@pytest.mark.parametrize(
    ("installed", "contradicted", "said"),
    [
        ("0.14.0", False, "outside >=0.14.5, as the log says"),
        ("0.16.1", True, "within >=0.14.5: the log came from another environment"),
        (None, False, "deepspeed is not installed"),
    ],
)
def test_a_release_a_library_asks_for_is_checked_against_the_installed_one(
    installed: str | None, contradicted: bool, said: str
) -> None:
    log = "ValueError: nossh launcher requires DeepSpeed >= 0.14.5\n"
    diagnosis = explain_stream("run.log", io.BytesIO(log.encode()), _with_trl(installed, "deepspeed")).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "version-mismatch:requires_a_release"
    assert diagnosis.contradicted is contradicted and said in " ".join(diagnosis.joined), diagnosis.joined


@pytest.mark.parametrize(
    ("message", "family", "named"),
    [
        ("lightning.fabric.utilities.exceptions.MisconfigurationException: `CUDAAccelerator` can not run on your "
         "system since the accelerator is not available. The following accelerator(s) is available and can be passed "
         "into `accelerator` argument of `Trainer`: ['cpu'].", "accelerator-unavailable", "CUDA_VISIBLE_DEVICES"),
        ("ValueError: You requested to find 2 devices but there are no visible CUDA devices on this machine.",
         "accelerator-unavailable", "CUDA_VISIBLE_DEVICES"),
        ("RuntimeError: Unable to JIT load the fused_adam op due to ninja not being installed.", "build-failure",
         "ninja"),
        ("RuntimeError: fused RMSNorm needs Triton, which is not installed in this environment.", "module-not-found",
         "Triton"),
        ("ModuleNotFoundError: Neither `tensorboard` nor `tensorboardX` is available. Try `pip install`ing either.",
         "module-not-found", "tensorboard"),
        ("ModuleNotFoundError: Please, run `pip install litdata`", "module-not-found", "litdata"),
        ("RuntimeError: Triton is needed for forward pass but it is not available!", "module-not-found", "Triton"),
        ("RuntimeError: Method 'int8_linear_matmul' not available in CPU-only version of bitsandbytes. Reinstall with "
         "GPU support or use CUDA-enabled hardware.", "accelerator-unavailable", "bitsandbytes"),
    ],
)  # fmt: skip
def test_lightning_and_deepspeed_words_for_a_missing_gpu_or_tool(message: str, family: str, named: str) -> None:
    """Lightning's accelerator connector and CUDA accelerator, DeepSpeed's op builder and Triton ops (read from their
    wheels: lightning 2.6, deepspeed 0.19)."""
    diagnosis = _explain(message + "\n").diagnosis
    assert diagnosis.family == family and named in diagnosis.cause, diagnosis.cause


@pytest.mark.parametrize(
    "message",
    [
        "ImportError: Loading an torchao quantized model requires torchao library (`pip install torchao`)",
        "ImportError: This feature requires xformers: `pip install -U xformers`",
        "ImportError: flash_attn is not installed. Please pip install flash-attn",
        "RuntimeError: mamba_ssm is missing; install it with `pip install mamba-ssm --no-build-isolation`",
        "ImportError: needs the dev build; install it with `pip install 'transformers @ git+https://github.com/"
        "huggingface/transformers'`",
        "ValueError: protobuf is too new; please install `pip install protobuf<=3.20.x`",
    ],
)  # fmt: skip
def test_no_bare_pip_command_for_what_a_build_pins_options_a_checkout_or_no_valid_range(message: str) -> None:
    """torch and what pins one torch (torchao, xformers, flash-attn) are never installed by a bare command; nor is a
    command whose options (--no-build-isolation) or checkout (PEP 508 `name @ git+...`) the fix needs, nor a range pip
    refuses."""
    diagnosis = _explain(message + "\n").diagnosis
    assert not any("pip install" in command for command in diagnosis.remediation), diagnosis.remediation


def test_an_import_name_in_a_pip_command_is_installed_by_its_project() -> None:
    diagnosis = _explain("ImportError: scikit-learn is required; install it with `pip install sklearn`\n").diagnosis
    assert any("scikit-learn" in command for command in diagnosis.remediation), diagnosis.remediation


@pytest.mark.parametrize(
    "log",
    [
        "-- Compiler: gfortran is not found. Fortran support disabled.\nERROR: configure failed\n",
        "E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2732] Execution of replica 0 failed: INTERNAL: Failed "
        "to load in-memory CUBIN: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n",
        "UserWarning: fused AdamW requires numpy>=1.26, falling back to the unfused implementation\n",
    ],
)  # fmt: skip
def test_lines_that_only_look_like_the_new_readings_are_left_to_others(log: str) -> None:
    diagnosis = _explain(log).diagnosis
    readings = (
        "build-failure:inductor_compiler_not_found", "catalogue:xla-cubin-invalid",
        "version-mismatch:requires_a_release",
    )  # fmt: skip
    assert diagnosis is None or diagnosis.decided_by not in readings, diagnosis.decided_by


def test_a_macos_cuda_symbol_names_the_caller_past_dyld_s_uuid_and_gives_macos_steps() -> None:
    log = (
        "ImportError: dlopen(/Users/s/lib/python3.7/site-packages/torch/_C.cpython-37m-darwin.so, 2): Symbol not "
        "found: (_cusparseCreateCsr)\n  Referenced from: <8F2E1A3C-1111-2222-3333-444455556666> /Users/s/lib/"
        "python3.7/site-packages/torch/lib/libtorch_cuda.dylib\n  Expected in: "
        "/usr/local/cuda/lib/libcusparse.10.dylib\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis.family == "cuda-library-mismatch" and diagnosis.params["caller"] == "libtorch_cuda.dylib"
    assert diagnosis.next[0].startswith("otool -L") and "LD_LIBRARY_PATH" not in " ".join(diagnosis.next)


@pytest.mark.parametrize(
    ("message", "command"),
    [
        ("ImportError: numpy is too old; please install it with `pip install numpy~=1.26.0`", "'numpy~=1.26.0'"),
        ("ImportError: this needs a newer transformers; install it with pip install 'transformers[torch] >= 4.40'",
         "'transformers[torch]>=4.40,<5'"),
    ],
)  # fmt: skip
def test_a_pip_commands_range_is_kept_however_it_is_written(message: str, command: str) -> None:
    diagnosis = _explain(message + "\n").diagnosis
    assert any(command in c for c in diagnosis.remediation), diagnosis.remediation


def test_torch_s_other_wording_of_a_missing_cuda_toolkit_is_the_same_build_failure() -> None:
    # torch/utils/cpp_extension.py's CUDA_NOT_FOUND_MESSAGE, raised by _check_cuda_version (its two strings joined
    # with no space between them in recent releases), besides "CUDA_HOME environment variable is not set"
    log = (
        '  File "/env/lib/python3.8/site-packages/torch/utils/cpp_extension.py", line 394, in _check_cuda_version\n'
        "    raise RuntimeError(CUDA_NOT_FOUND_MESSAGE)\n"
        "RuntimeError: \n"
        "CUDA was not found on the system, please set the CUDA_HOME or the CUDA_PATHenvironment variable or add NVCC "
        "to your system PATH. The extension compilation will fail.\n"
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis is not None
    assert (diagnosis.family, diagnosis.decided_by) == ("build-failure", "catalogue:cuda-home-not-set")


def test_a_shape_error_without_frames_does_not_claim_whose_code_gave_the_values() -> None:
    # the error alone cannot tell the user's script from the project or library they run
    alone = _explain("RuntimeError: expected scalar type Float but found Half\n").diagnosis
    assert alone is not None and alone.verdict == "not-environment"
    assert "your code" not in alone.cause and "the whole traceback shows whose" in alone.cause
    framed = _explain(
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 12, in <module>\n'
        "    y = model(x)\n"
        "RuntimeError: expected scalar type Float but found Half\n"
    ).diagnosis
    assert framed is not None and "your code at /home/me/train.py:12" in framed.cause


def test_a_warning_s_reading_is_for_a_log_of_warnings_alone() -> None:
    # a run that fails exits without destroying its process group: the error above the warning is the failure
    warning = (
        "[rank0]:[W825 13:09:39.967659278 ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was "
        "not called before program exit, which can leak resources. (function operator())\n"
    )
    alone = _explain(warning).diagnosis
    assert alone is not None and alone.decided_by == "user-code-error:process_group_left_open"
    assert alone.cause.startswith("A warning, not a failure")
    failed = _explain(
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.11/site-packages/zebra/step.py", line 12, in run\n'
        "    raise RuntimeError('the zebra step stopped')\n"
        "RuntimeError: the zebra step stopped\n" + warning
    ).diagnosis
    assert failed is not None and failed.decided_by != "user-code-error:process_group_left_open"
    assert "zebra" in failed.record
    # a warning is no failure for a gate: exit 0 for the warning alone, 1 for a run that failed before it
    known = _explain("RuntimeError: CUDA error: no kernel image is available for execution on the device\n" + warning)
    assert known.diagnosis is not None and known.diagnosis.family == "gpu-arch-unsupported"
    assert (exit_status(_explain(warning)), exit_status(known)) == (0, 1)


_RENAMED = (
    "[rank0]:[W Utils.hpp:108] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use "
    "TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarString)\n"
)
_MASTER_ADDR = "master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified.\n"
_IPV6 = (
    "[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not "
    "supported by protocol).\n"
)


@pytest.mark.parametrize("warning", [_RENAMED, _MASTER_ADDR, _IPV6], ids=["renamed", "master-addr", "ipv6"])
@pytest.mark.parametrize(
    ("failure", "decided_by"),
    [
        ("Segmentation fault (core dumped)\n", "framework-internal-error:segfault"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 "
         "GiB of which 1.25 GiB is free.\n", "out-of-memory:torch_device_oom"),
        ("[2024-01-01 10:00:00,000] [INFO] [comm.py:637:init_distributed] cdb=None\n[2024-01-01 10:00:00,000] [INFO] "
         "[comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl\n", "stall:startup"),
    ],
    ids=["segfault", "oom", "startup-stall"],
)  # fmt: skip
def test_a_warning_printed_before_a_failure_or_a_hang_leaves_it_the_reading(
    warning: str, failure: str, decided_by: str
) -> None:
    # torchrun's note, the store's IPv6 line and a renamed variable come first in a job's log: whatever failed or
    # hung after them, with no traceback of its own, is what explain names, and the exit status says it failed
    explanation = _explain(warning + failure)
    assert explanation.diagnosis is not None and explanation.diagnosis.decided_by == decided_by
    assert exit_status(explanation) == 1


def test_an_unread_error_after_torchrun_s_note_is_its_own_record() -> None:
    # the note is a warning however it is printed: the error line after it is the record that matters
    diagnosis = _explain(_MASTER_ADDR + "ValueError: the zebra config has no field 'stripes'\n").diagnosis
    assert diagnosis is not None and diagnosis.line == 2 and "zebra" in diagnosis.record


def test_the_private_collective_s_warning_is_read_in_torch_s_older_and_newer_words() -> None:
    for said in (
        "UserWarning: torch.distributed._all_gather_base is a private function and will be deprecated. Please use "
        "torch.distributed.all_gather_into_tensor instead.\n",
        "FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use "
        "`torch.distributed.all_gather_into_tensor` instead.\n",
    ):
        diagnosis = _explain(said).diagnosis
        assert diagnosis is not None and diagnosis.decided_by == "api-version-skew:private_collective", said
        assert diagnosis.params["use"] == "torch.distributed.all_gather_into_tensor"


@pytest.mark.parametrize(
    "uuid", ["GPU-8932f937-8b3e-4c6d-a0b1-1234567890ab", "MIG-GPU-8932f937-8b3e/1/0", "MIG-4f7a1c2d-9e8b"]
)
def test_a_gpu_uuid_read_as_an_index_is_the_setting_whatever_form_it_takes(uuid: str) -> None:
    diagnosis = _explain(f"ValueError: invalid literal for int() with base 10: '{uuid}'\n").diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "bad-configuration:gpu_uuids_read_as_indices"
    assert diagnosis.verdict == "environment"  # no frame says whose parser it was: the setting is the reader's
    assert _explain("ValueError: invalid literal for int() with base 10: 'GPU-0'\n").diagnosis.decided_by != (
        "bad-configuration:gpu_uuids_read_as_indices"
    )


def test_a_headless_traceback_quoted_without_python_s_indent_keeps_its_frames() -> None:
    # a paste that lost the frames' two spaces, then quoted as Markdown: "> File ..." with one space
    log = (
        '> File "/opt/venv/lib/python3.11/site-packages/torchaudio/_extension/utils.py", line 61, in _load_lib\n'
        "> torch.ops.load_library(path)\n"
        '> File "/opt/venv/lib/python3.11/site-packages/torch/_ops.py", line 643, in load_library\n'
        "> ctypes.CDLL(path)\n"
        "> FileNotFoundError: Could not find module 'libtorchaudio.pyd' (or one of its dependencies).\n"
    )
    exceptions = [r for r in _records(log) if r.kind == "exception"]
    assert [(r.type, len(r.frames)) for r in exceptions] == [("FileNotFoundError", 2)]


@pytest.mark.parametrize(
    "after",
    [
        "ERROR:root:training diverged, loss is nan\n",
        "E0619 10:00:00.000000 1234 run.py:12] the step went wrong\n",
        "slurmstepd: error: *** JOB 123 ON node1 CANCELLED AT 2024-01-01T10:00:00 DUE TO TIME LIMIT ***\n",
        "RuntimeError: The server socket has failed to listen on any local network address. The server socket cannot "
        "be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol).\n",
    ],
    ids=["logging-error", "glog-error", "slurm-cancelled", "socket-runtime-error"],
)
def test_a_log_is_no_log_of_warnings_alone_when_any_line_of_it_says_it_failed(after: str) -> None:
    for log in (_MASTER_ADDR + after, after + _IPV6, _RENAMED + "\n" + after):
        diagnosis = _explain(log).diagnosis
        assert diagnosis is None or not diagnosis.cause.startswith("A warning, not a failure"), log


def test_warnings_alone_are_read_with_the_lines_python_prints_beside_them() -> None:
    # a UserWarning with the source line warnings.warn printed under it, then the process group's warning
    log = (
        "/opt/venv/lib/python3.11/site-packages/zebra/data.py:12: UserWarning: stripes are deprecated\n"
        "  warnings.warn('stripes are deprecated')\n"
        + _IPV6.replace("[W socket.cpp:436]", "[rank0]:[W socket.cpp:436]")
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:ipv6_listener_refused"
    assert diagnosis.line == 3


def test_what_the_log_says_of_its_environment_outranks_a_warning_s_reading() -> None:
    # a torch build and a driver the log names that cannot run together decide, a note beside them does not
    log = (
        "torch==2.4.0+cu124\n| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
        + _MASTER_ADDR
    )
    diagnosis = _explain(log).diagnosis
    assert diagnosis is not None and diagnosis.family == "cuda-driver-too-old"


@pytest.mark.parametrize(
    "after",
    [
        "rank 3 stuck in all_reduce\n",
        "exitcode  : 1 (pid: 1234)\n",
        "Received 15 death signal, shutting down workers\n",
        "[rank1]:[E1207 10:00:00.100000 140 ProcessGroupNCCL.cpp:1375] ProcessGroupNCCL preparing to dump debug.\n",
    ],
    ids=["stuck", "exitcode", "death-signal", "ranked-glog-error"],
)
def test_plain_words_of_failure_or_a_ranked_error_level_keep_a_log_from_being_warnings_alone(after: str) -> None:
    diagnosis = _explain(_RENAMED + after).diagnosis
    assert diagnosis is None or diagnosis.decided_by != "api-version-skew:variable_renamed"


def test_a_warning_s_line_number_counts_newlines_only() -> None:
    # a form feed or a lone carriage return is no line break to the rest of the engine
    diagnosis = _explain("starting\x0cstill the first line\n" + _RENAMED).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "api-version-skew:variable_renamed"
    assert diagnosis.line == 2
