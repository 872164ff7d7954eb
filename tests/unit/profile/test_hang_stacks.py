"""The stack parsers on what the tools really wrote (tests/hang/raw/: py-spy 0.4.3 and pystack 1.7.2 on a rank of
tests/integration/programs/hang_gloo.py waiting in gloo's all_reduce and one looping; faulthandler of CPython 3.11 on
a thread stuck in a regular expression), the collectives' readers, and hostile input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xladoctor.profile.hang.classify import classify, collective_op, main_thread, own_frames
from xladoctor.profile.hang.collectives import from_flight_recorder, from_ring
from xladoctor.profile.hang.model import Frame, Thread
from xladoctor.profile.hang.replay import ranks_from_json
from xladoctor.profile.hang.stacks import from_faulthandler, from_hook, from_py_spy, from_pystack, is_user_path

RAW = Path(__file__).parents[2] / "hang" / "raw"
PROGRAM = "/work/wt28/tests/integration/programs/hang_gloo.py"


def _python(thread: Thread) -> list[tuple[str, int, str]]:
    return [(f.file.rsplit("/", 1)[-1], f.line, f.function) for f in thread.frames if not f.native]


def test_py_spy_native_json_of_a_rank_in_gloo_all_reduce() -> None:
    [thread] = from_py_spy(json.loads((RAW / "py-spy-native-all-reduce.json").read_text()))
    assert thread.main and thread.name == "MainThread" and thread.active is False
    assert _python(thread) == [
        ("distributed_c10d.py", 3252, "all_reduce"),
        ("c10d_logger.py", 83, "_exception_logger.<locals>.wrapper"),
        ("hang_gloo.py", 59, "main"),
        ("hang_gloo.py", 67, "<module>"),
    ]
    assert [f.function for f in thread.frames if f.native][:3] == [
        thread.frames[0].function,
        "pthread_cond_wait",
        "std::condition_variable::wait",
    ]
    assert collective_op(thread.frames) == "all_reduce"
    assert [f.user for f in thread.frames if not f.native] == [False, False, True, True]


def test_pystack_native_text_of_the_same_wait() -> None:
    [thread] = from_pystack((RAW / "pystack-native-all-reduce.txt").read_text())
    assert _python(thread) == [
        ("distributed_c10d.py", 3252, "all_reduce"),
        ("c10d_logger.py", 83, "wrapper"),
        ("hang_gloo.py", 59, "main"),
        ("hang_gloo.py", 67, "<module>"),
    ]
    assert any(f.function.startswith("c10d::Work::wait") for f in thread.frames if f.native)
    assert classify(thread, 0.0, lambda f, n: "").summary == "waiting in all_reduce"


def test_py_spy_json_of_a_rank_looping_in_python() -> None:
    [thread] = from_py_spy(json.loads((RAW / "py-spy-busy.json").read_text()))
    activity = classify(thread, None, lambda f, n: "spin += 1")
    assert (activity.kind, activity.summary, activity.location.line if activity.location else None) == (
        "python",
        "running Python",
        53,
    )


def test_faulthandler_text_names_each_thread_and_finds_the_main_one() -> None:
    text = (RAW / "faulthandler-regex.txt").read_text()
    main = str(int((RAW / "faulthandler-regex.main").read_text().strip()))
    threads = from_faulthandler(text, main)
    assert [t.main for t in threads] == [True, False]
    assert _python(threads[0]) == [("__init__.py", 166, "match"), ("fh.py", 8, "<module>")]
    assert _python(threads[1])[0] == ("fh.py", 5, "waiter")
    unnamed = from_faulthandler(text)  # without the hook's main thread id: the one that runs <module>
    assert [t.main for t in unnamed] == [True, False]


def test_the_hooks_own_thread_and_frames_are_left_out() -> None:
    hook = "/tmp/xladoctor-profile-x/hooks/_xladoctor_profile_watch.py"
    dump = {"threads": [
        {"id": 1, "name": "MainThread", "native_id": 11, "main": True, "frames": [
            ["/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", 3252, "all_reduce", False],
            ["/tmp/xladoctor-profile-x/hooks/_xladoctor_profile_dist.py", 120, "collective", False],
            [PROGRAM, 59, "main", True]]},
        {"id": 2, "name": None, "native_id": None, "main": False, "frames": [[hook, 127, "_listen", False]]},
    ]}  # fmt: skip
    [thread] = from_hook(dump)
    assert [f.function for f in thread.frames] == ["all_reduce", "main"] and thread.ident == "11"


@pytest.mark.parametrize(
    "path, user",
    [
        (PROGRAM, True),
        ("/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", False),
        ("/usr/lib/python3.11/threading.py", False),
        ("<frozen importlib._bootstrap>", False),
        ("/tmp/xladoctor-profile-x/hooks/_xladoctor_profile_dist.py", False),
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", False),
    ],
)
def test_what_counts_as_the_users_code_from_outside(path: str, user: bool) -> None:
    assert is_user_path(path) is user


def test_a_forked_worker_is_judged_on_its_own_frames_only() -> None:
    frames = (
        Frame("/job/data.py", 12, "Numbers.__getitem__", user=True),
        Frame("/venv/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", 374, "_worker_loop"),
        Frame("/usr/lib/python3.11/multiprocessing/process.py", 314, "BaseProcess._bootstrap"),
        Frame("/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", 1176, "__init__"),
        Frame("/job/train.py", 40, "main", user=True),
    )
    assert own_frames(frames) == frames[:2]
    activity = classify(Thread("MainThread", "9", frames, main=True), 0.0, lambda f, n: "with LOCK:")
    assert (activity.kind, activity.location.line if activity.location else None) == ("lock", 12)


def test_the_hooks_ring_folds_starts_ends_and_errors() -> None:
    at = {"file": "/job/train.py", "line": 20, "function": "main"}
    lines = [
        {"ph": "s", "g": "default", "seq": 1, "op": "all_reduce", "at": at, "sizes": [[4]], "dtype": "float32",
         "step": 1, "t": 1.0},
        {"ph": "e", "g": "default", "seq": 1, "op": "all_reduce", "async": False},
        {"ph": "s", "g": "default", "seq": 2, "op": "broadcast", "at": at, "step": 1},
        {"ph": "e", "g": "default", "seq": 2, "op": "broadcast", "async": True},
        {"ph": "s", "g": "default", "seq": 3, "op": "all_reduce", "at": at, "step": 2},
        {"ph": "x", "g": "default", "seq": 3, "op": "all_reduce", "error": "RuntimeError: Connection reset"},
        {"ph": "s", "g": "7", "seq": 1, "op": "barrier", "at": at, "step": 2},
        {"ph": "s", "g": 5, "seq": "x"},  # wrong types: skipped
        {"nothing": True},
    ]  # fmt: skip
    found = from_ring(lines)
    assert [(c.group, c.seq, c.op, c.state, c.step) for c in found] == [
        ("default", 1, "all_reduce", "completed", 1),
        ("default", 2, "broadcast", "async", 1),
        ("default", 3, "all_reduce", "failed", 2),
        ("7", 1, "barrier", "started", 2),
    ]
    assert found[0].sizes == ((4,),) and found[2].error == "RuntimeError: Connection reset"
    assert found[3].describe() == "barrier #1 (group 7)"


def test_flight_recorder_entries_as_torch_writes_them() -> None:
    entries = [
        {"collective_seq_id": 4, "p2p_seq_id": 0, "is_p2p": False, "profiling_name": "nccl:_allgather_base",
         "process_group": ["0", "default_pg"], "input_sizes": [[8, 2]], "input_dtypes": ["Float"], "state": "started",
         "retired": False, "time_created_ns": 1_700_000_000_000_000_000,
         "frames": [["/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", 1, "f", False],
                    ["/job/train.py", 30, "main", True]]},
        {"collective_seq_id": 3, "is_p2p": False, "profiling_name": "gloo:all_reduce", "process_group": ["0", ""],
         "state": "scheduled", "retired": True},
        {"collective_seq_id": "nope"},
        "not an entry",
    ]  # fmt: skip
    [gathered, reduced] = from_flight_recorder(entries)
    assert (gathered.op, gathered.state, gathered.group, gathered.sizes, gathered.dtype) == (
        "all_gather_into_tensor",
        "started",
        "default",
        ((8, 2),),
        "float",
    )
    assert gathered.location is not None and gathered.location.line == 30 and gathered.started_at == 1.7e9
    assert (reduced.op, reduced.state) == ("all_reduce", "completed")


@pytest.mark.parametrize("value", [None, 3, "x", [1, "a", None], {"threads": "no"}, {"ranks": [7]}])
def test_hostile_input_parses_to_nothing_rather_than_raising(value: object) -> None:
    assert from_py_spy(value) == ()
    assert from_hook(value if isinstance(value, dict) else {"threads": value}) == ()
    assert [r.label for r in ranks_from_json(value)] == (["?"] if value == {"ranks": [7]} else [])
    assert from_pystack(str(value)) == () and from_faulthandler(str(value)) == ()
    assert main_thread(()) is None


def test_wrongly_typed_frames_are_skipped_one_by_one() -> None:
    [thread] = from_py_spy(
        [
            {
                "thread_name": "MainThread",
                "frames": [
                    7,
                    {"name": 3, "filename": None, "line": "x"},
                    {"name": "f", "filename": "/a/b.py", "line": 2},
                ],
            }
        ]
    )
    assert [(f.file, f.line, f.function) for f in thread.frames] == [("", 0, ""), ("/a/b.py", 2, "f")]


_SITE = "/venv/lib/python3.11/site-packages"
_IMPORT = Frame("<frozen importlib._bootstrap>", 1176, "_find_and_load")


def test_a_rank_still_importing_torch_is_starting_not_waiting_for_its_dataloader() -> None:
    """`import torch` runs torch/utils/data/dataloader.py's module body (a CI run read it as a DataLoader wait and
    called the starting job hung)."""
    frames = (
        Frame(f"{_SITE}/torch/utils/data/dataloader.py", 23, "<module>"),
        _IMPORT,
        Frame(f"{_SITE}/torch/__init__.py", 2031, "<module>"),
        _IMPORT,
        Frame("/job/train.py", 14, "<module>", user=True),
    )
    activity = classify(Thread("MainThread", "9", frames, main=True), 0.5, lambda f, n: "import torch")
    assert (activity.kind, activity.summary) == ("import", "importing modules")


def test_an_import_a_compiler_makes_is_the_compile() -> None:
    frames = (
        Frame(f"{_SITE}/sympy/core/basic.py", 10, "<module>"),
        _IMPORT,
        Frame(f"{_SITE}/torch/_inductor/graph.py", 700, "run"),
        Frame("/job/train.py", 30, "step", user=True),
    )
    activity = classify(Thread("MainThread", "9", frames, main=True), 0.5, lambda f, n: "model(x)")
    assert activity.kind == "compile"


def test_a_script_a_launcher_imported_is_judged_on_its_own_work() -> None:
    frames = (
        Frame("/usr/lib/python3.11/multiprocessing/queues.py", 113, "get"),
        Frame(f"{_SITE}/torch/utils/data/dataloader.py", 1133, "_try_get_data"),
        Frame("/job/train.py", 44, "main", user=True),
        Frame("/job/train.py", 70, "<module>", user=True),
        _IMPORT,
        Frame(f"{_SITE}/launcher/run.py", 12, "main"),
    )
    activity = classify(Thread("MainThread", "9", frames, main=True), 0.0, lambda f, n: "batch = next(batches)")
    assert (activity.kind, activity.location.line if activity.location else None) == ("data-loader", 44)


def test_importing_a_compiler_is_an_import_not_a_compile() -> None:
    """torch.optim's first optimizer imports torch._dynamo (seconds on a busy machine): its module bodies run."""
    frames = (
        Frame(f"{_SITE}/torch/_dynamo/output_graph.py", 126, "<module>"),
        _IMPORT,
        Frame(f"{_SITE}/torch/_compile.py", 40, "inner"),
        Frame(f"{_SITE}/torch/optim/sgd.py", 30, "__init__"),
        Frame("/job/train.py", 36, "main", user=True),
    )
    activity = classify(Thread("MainThread", "9", frames, main=True), 0.5, lambda f, n: "SGD(...)")
    assert (activity.kind, activity.summary) == ("import", "importing modules")


def test_an_import_that_waits_on_importlibs_module_lock_is_a_deadlock_not_progress() -> None:
    frames = (
        Frame("<frozen importlib._bootstrap>", 169, "_ModuleLock.acquire"),
        Frame("<frozen importlib._bootstrap>", 1170, "_lock_unlock_module"),
        _IMPORT,
        Frame("/job/worker.py", 3, "<module>", user=True),
    )
    activity = classify(Thread("MainThread", "9", frames, main=True), 0.0, lambda f, n: "import model")
    assert activity.kind == "lock"


def test_code_an_import_runs_that_sits_idle_in_a_dataloader_wait_is_that_wait() -> None:
    """A project installed in site-packages that a launcher imported (no user frame at all), idle in its
    DataLoader: not an import in progress, which would be reported as no hang."""
    frames = (
        Frame("/usr/lib/python3.11/multiprocessing/queues.py", 113, "get"),
        Frame(f"{_SITE}/torch/utils/data/dataloader.py", 1133, "_try_get_data"),
        Frame(f"{_SITE}/myproject/train.py", 44, "main"),
        Frame(f"{_SITE}/myproject/train.py", 70, "<module>"),
        _IMPORT,
        Frame(f"{_SITE}/launcher/run.py", 12, "main"),
    )
    idle = classify(Thread("MainThread", "9", frames, main=True), 0.0, lambda f, n: "")
    assert idle.kind == "data-loader"
    busy = classify(Thread("MainThread", "9", frames, main=True), 0.9, lambda f, n: "")
    assert busy.kind == "import"  # using the CPU: still starting up


def test_importlib_reading_files_slowly_is_still_an_import_in_progress() -> None:
    frames = (
        Frame("<frozen importlib._bootstrap_external>", 1186, "get_data"),
        Frame("<frozen importlib._bootstrap_external>", 1069, "SourceLoader.get_code"),
        _IMPORT,
        Frame("/job/train.py", 14, "<module>", user=True),
    )
    activity = classify(Thread("MainThread", "9", frames, main=True), 0.0, lambda f, n: "import torch")
    assert activity.kind == "import"
