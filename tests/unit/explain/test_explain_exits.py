"""explain reads how a process ended from its exit status alone: the signal or Windows exception behind a number."""

from __future__ import annotations

import io

import pytest

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.rules.exits import ntstatus_of, signal_of_status


def _diagnose(log: str):  # type: ignore[no-untyped-def]
    return explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis


@pytest.mark.parametrize(
    ("status", "signal"),
    [(-6, "SIGABRT"), (134, "SIGABRT"), (137, "SIGKILL"), (-11, "SIGSEGV"), (139, "SIGSEGV"), (132, "SIGILL"),
     (135, "SIGBUS"), (136, "SIGFPE"), (1, None), (2, None), (255, None), (0, None), (130, None), (143, None)],
)  # fmt: skip
def test_a_shells_status_and_pythons_returncode_name_the_same_signal(status: int, signal: str | None) -> None:
    # 130 (Ctrl-C) and 143 (SIGTERM) are someone stopping the process, not a crash: no signal read
    assert signal_of_status(status) == signal


@pytest.mark.parametrize(
    ("status", "name"),
    [(-1073741819, "EXCEPTION_ACCESS_VIOLATION"), (3221225477, "EXCEPTION_ACCESS_VIOLATION"),
     (-1073741515, "STATUS_DLL_NOT_FOUND"), (0xC0000135, "STATUS_DLL_NOT_FOUND"),
     (-1073740940, "STATUS_HEAP_CORRUPTION"), (-1073741795, "STATUS_ILLEGAL_INSTRUCTION"), (1, None), (-1, None),
     (2**40, None)],
)  # fmt: skip
def test_a_windows_exit_code_is_its_ntstatus_signed_or_not(status: int, name: str | None) -> None:
    assert ntstatus_of(status) == name


@pytest.mark.parametrize(
    ("log", "family", "verdict", "word"),
    [
        ("Process finished with exit code 134 (interrupted by signal 6: SIGABRT)\n", "framework-internal-error",
         "unknown", "abort()"),
        ("subprocess.CalledProcessError: Command '['python', 'x.py']' died with <Signals.SIGABRT: 6>.\n",
         "framework-internal-error", "unknown", "SIGABRT"),
        ("torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT\n",
         "framework-internal-error", "unknown", "SIGABRT"),
        ("python main.py\nzsh: abort      python main.py\n", "framework-internal-error", "unknown", "SIGABRT"),
        ("zsh: abort (core dumped)  python main.py\n", "framework-internal-error", "unknown", "SIGABRT"),
        ("fish: Job 1, 'python x.py' terminated by signal SIGABRT (Abort)\n", "framework-internal-error", "unknown",
         "SIGABRT"),
        ("[0]:\n  exitcode  : -4 (pid: 1234)\n  traceback : Signal 4 (SIGILL) received by PID 1234\n",
         "gpu-arch-unsupported", "environment", "AVX"),
        ("Command exited with non-zero status 139\n", "framework-internal-error", "unknown", "SIGSEGV"),
        ("subprocess.CalledProcessError: Command '['python', 'x.py']' returned non-zero exit status -11.\n",
         "framework-internal-error", "unknown", "SIGSEGV"),
        ("make: *** [Makefile:3: run] Error 139\n", "framework-internal-error", "unknown", "SIGSEGV"),
        ("Command terminated by signal 9\nexit status 137\n", "out-of-memory", "not-environment", "SIGKILL"),
        ("Error: Process completed with exit code 132.\n", "gpu-arch-unsupported", "environment", "AVX"),
        ("subprocess.CalledProcessError: Command '['python', 'x.py']' died with <Signals.SIGILL: 4>.\n",
         "gpu-arch-unsupported", "environment", "AVX"),
        ("Process finished with exit code 135 (interrupted by signal 7: SIGBUS)\n", "nccl-shm", "environment",
         "--shm-size"),
        ("Process finished with exit code -1073741515 (0xC0000135)\n", "missing-library", "environment",
         "STATUS_DLL_NOT_FOUND"),
        ("exited with code 3221225781\n", "missing-library", "environment", "Microsoft.VCRedist"),
        ("Process finished with exit code -1073741511 (0xC0000139)\n", "undefined-symbol", "environment",
         "STATUS_ENTRYPOINT_NOT_FOUND"),
        ("Process finished with exit code -1073741795 (0xC000001D)\n", "gpu-arch-unsupported", "environment", "AVX"),
        ("Process finished with exit code -1073740940 (0xC0000374)\n", "framework-internal-error", "unknown",
         "STATUS_HEAP_CORRUPTION"),
        ("Process finished with exit code -1073741571 (0xC00000FD)\n", "framework-internal-error", "unknown",
         "STATUS_STACK_OVERFLOW"),
    ],
)  # fmt: skip
def test_an_exit_status_alone_is_read_as_the_crash_it_names(log: str, family: str, verdict: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (family, verdict), diagnosis
    said = " ".join([diagnosis.cause, *map(str, diagnosis.params.values()), *diagnosis.remediation])
    assert word in said, said


@pytest.mark.parametrize(
    "log",
    [
        "subprocess.CalledProcessError: Command '['python', 'x.py']' died with <Signals.SIGBUS: 10>.\n",
        "Process finished with exit code 138 (interrupted by signal 10: SIGBUS)\n",
        "python main.py\nzsh: bus error  python main.py\n",
    ],
)
def test_a_bus_error_numbered_or_worded_as_on_a_mac_is_no_full_dev_shm(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "framework-internal-error", diagnosis
    assert "/dev/shm" not in diagnosis.cause


def test_a_signal_named_that_is_no_crash_is_not_read_from_its_number() -> None:
    # macOS numbers SIGEMT 7: the name says it, and 135 must not then be read as Linux's SIGBUS
    diagnosis = _diagnose("Process finished with exit code 135 (interrupted by signal 7: SIGEMT)\n")
    assert diagnosis is None or diagnosis.decided_by != "framework-internal-error:process_ended_by", diagnosis


@pytest.mark.parametrize(
    "log",
    [
        "loading configuration file /root/.cache/hub/snapshots/e7da7f221d5bf496a48136c0627a2a4e1/config.json\n"
        "Resolved revision 9c1234567e\nEpoch 1: loss 0.31\nTraining completed.\n",
        "Upload done, return code 200\nTraining completed.\n",
        # (far from the end, where plain words of failure are looked for when nothing else failed)
        "options:\n  --abort      abort the run when loss is NaN\n"
        + "Epoch 1: loss 0.31 lr 0.0001 step time 0.5s\n" * 5000,
        # numbers shaped like a Windows status, with no words of an exit around them
        "dataset bytes=3456789012\nTraining completed.\n",
        "offset -1234567890 applied\nTraining completed.\n",
        "worker ready buf=0xC000123456\nTraining completed.\n",
        "worker ready buf=0xc000123456 size=4096\nTraining completed.\n",
        "mapped region (0xc0001234) ok\nTraining completed.\n",
    ],
)
def test_a_healthy_log_with_a_hash_an_http_code_help_text_or_a_status_like_number_has_no_failure(log: str) -> None:
    assert _diagnose(log) is None


def test_windows_illegal_instruction_asks_nothing_of_proc_cpuinfo() -> None:
    diagnosis = _diagnose("Process finished with exit code -1073741795 (0xC000001D)\n")
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported", diagnosis
    assert diagnosis.next and not any("/proc" in step for step in diagnosis.next), diagnosis.next


def test_an_illegal_instruction_on_a_mac_is_read_as_rosetta() -> None:
    log = (
        'File "/Users/me/miniforge3/lib/python3.11/site-packages/torch/__init__.py", line 1\n'
        "subprocess.CalledProcessError: Command '['python', 'x.py']' died with <Signals.SIGILL: 4>.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "Rosetta" in diagnosis.cause, diagnosis


@pytest.mark.parametrize(
    "log",
    [
        "note: This error originates from a subprocess.\nerror: subprocess-exited-with-error\n  exit code: 1\n",
        "Process finished with exit code 0\n",
        "torchrun: failed (exitcode: 1) local_rank: 0 (pid: 12) of binary: /usr/bin/python\n",
        "Process finished with exit code 130 (interrupted by signal 2: SIGINT)\n",
    ],
)
def test_an_ordinary_exit_code_or_a_stop_is_no_crash(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "framework-internal-error:process_ended_by", diagnosis


def test_the_crashs_own_words_before_the_exit_status_decide() -> None:
    # MPS's failed assertion is the cause; the shell's "abort" after it only says how the process ended
    log = (
        "/AppleInternal/Library/BuildRoots/0/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/"
        "Types/MPSNDArray.mm:788: failed assertion `[MPSNDArray initWithDevice:descriptor:] Error: total bytes of "
        "NDArray > 2**32'\nzsh: abort      python train.py\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:metal_assertion", diagnosis


def test_a_notebook_that_names_its_dead_kernel_is_read() -> None:
    diagnosis = _diagnose("Kernel Restarting\nThe kernel for train.ipynb appears to have died. It will restart.\n")
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:notebook_kernel_died"


def test_a_fail_fast_is_windows_abort() -> None:
    for log in ("Process finished with exit code -1073740791 (0xC0000409)\n", "exited with code 3221226505\n"):
        diagnosis = _diagnose(log)
        assert diagnosis is not None and "aborted itself" in diagnosis.cause, (log, diagnosis)


@pytest.mark.parametrize(
    "log",
    [
        "Faulting application name: python.exe\nException code: 0xc0000409\n",
        "Process finished with exit code 0xC0000409\n",
        "error: process didn't exit successfully: `x.exe` (exit code: 0xc0000409, STATUS_STACK_BUFFER_OVERRUN)\n",
    ],
)
def test_a_windows_status_in_hex_after_the_words_of_an_exit_is_read(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:process_ended_by", diagnosis
    # __fastfail runs no handler: faulthandler would print nothing
    assert not any("faulthandler" in step for step in diagnosis.next), diagnosis.next
