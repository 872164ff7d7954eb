"""How a process ended, read from its exit status: the signal or the Windows exception behind a number.

A crash often leaves no words of its own in a report: the shell, the IDE, the CI runner or the launcher says only
how the process ended ("exit code 139", "Process finished with exit code -1073741515 (0xC0000135)", "died with
<Signals.SIGABRT: 6>", "zsh: abort"). The number is structure: 128 + N (a shell's status) and -N (Python's
returncode) are signal N; a Windows status is an NTSTATUS code, printed signed, unsigned or in hex. Each signal or
status is then read as the crash it is, by the same reading its own words get elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import replace

from xladoctor.explain.platforms import platform_of_failure
from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, rule
from xladoctor.explain.rules.backends import illegal_instruction
from xladoctor.explain.rules.crashes import named, native_crash, segfault
from xladoctor.explain.rules.distributed import killed_by_kernel, rank_killed_by_sigbus
from xladoctor.fix import shell

SIGNALS_SOURCE = "https://man7.org/linux/man-pages/man7/signal.7.html (the standard signals and their numbers)"
NTSTATUS_SOURCE = (
    "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55 "
    "(NTSTATUS values)"
)

# The signals that end a process in a crash, by their Linux (x86 and ARM) numbers: signal(7). SIGTERM, SIGINT and
# SIGHUP are left out: someone stopped the process (a scheduler's limit, Ctrl-C, a launcher after another rank
# failed), and the reason is elsewhere in the log.
_SIGNAL_NUMBERS = {4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV"}
# macOS numbers SIGBUS 10 (signal.h of Darwin): a name printed beside the number is read, never the bare 10.
_SIGNAL_NAMES = frozenset({*_SIGNAL_NUMBERS.values(), "SIGIOT"})
# The Windows exceptions (NTSTATUS) a crashing process exits with, and their names in ntstatus.h.
_NTSTATUS = {
    0xC0000005: "EXCEPTION_ACCESS_VIOLATION",  # winbase.h's name, as the rule of its words (crashes.py) says it
    0xC000001D: "STATUS_ILLEGAL_INSTRUCTION",
    0xC0000094: "STATUS_INTEGER_DIVIDE_BY_ZERO",
    0xC00000FD: "STATUS_STACK_OVERFLOW",
    0xC0000135: "STATUS_DLL_NOT_FOUND",
    0xC0000139: "STATUS_ENTRYPOINT_NOT_FOUND",
    0xC0000142: "STATUS_DLL_INIT_FAILED",
    0xC0000374: "STATUS_HEAP_CORRUPTION",
    0xC0000409: "STATUS_STACK_BUFFER_OVERRUN",
}


def signal_of_status(status: int) -> str | None:
    """The signal a process's exit status says ended it: -N (Python's returncode, torch's exitcode) or 128 + N (a
    shell's $?, a CI runner's exit code); None for an ordinary exit code."""
    number = -status if status < 0 else status - 128 if 128 < status < 160 else None
    return _SIGNAL_NUMBERS.get(number) if number is not None else None


def ntstatus_of(status: int) -> str | None:
    """The Windows exception an exit code is, printed signed (-1073741819) or unsigned (3221225477)."""
    return _NTSTATUS.get(status & 0xFFFFFFFF) if -(2**31) <= status < 2**32 else None


# How an exit status is printed, and the numbers of one that are a crash: 128 + a signal (132-139), -N (a signal's
# number, Python's returncode), a Windows exception signed or unsigned (-1073741819, 3221225477). Each written out
# whole: a rule's literals are lines worth reading (regions.py, where digits are folded: "exit code 13" stands for
# any code of two digits or more), and "exit code 0", pip's "exit code: 1" or an HTTP "return code 200" are not.
_STATUS_WORDS = (
    "exit code ", "exit code: ", "exit status ", "exited with code ", "exitcode: ", "exitcode  : ", "exitcode ",
    "non-zero status ",
)  # fmt: skip
_CRASH_NUMBERS = (r"13[2-9]", r"-10737\d{5}", r"32212\d{5}", r"-(?:[4-9]|11)")
_CRASH_STATUS = "|".join(
    [re.escape(words) + number for words in _STATUS_WORDS for number in _CRASH_NUMBERS]
    + [r"return code = -(?:[4-9]|11)"]  # DeepSpeed's launcher: "exits with return code = -6"
)
# The Windows exceptions in hex, after the words of an exit code or of Windows' error reporting ("Exception code:
# 0xc0000409", "exit code: 0xc0000409"; PyCharm's "(0xC0000005)" follows the number, which is read). Each form of each
# code is a branch of its own, its words inside its group, so that the literal a line must hold to be read keeps them
# (digits are folded in the literals: a pointer's "(0xc0001234)" or "0xC000123456" alone is no status).
_HEX_SPELLINGS = tuple(f"0x{case(f'{code:08X}')}" for code in _NTSTATUS for case in (str.upper, str.lower))
_HEX_WORDS = (
    "Exception code: ", "exception code: ", "Exception Code: ", "exit code ", "exit code: ", "Exit code: ",
    "ExitCode: ", "exited with code ", "unable to start correctly (",
)  # fmt: skip
_HEX_FORMS = tuple(words + spelling for spelling in _HEX_SPELLINGS for words in _HEX_WORDS)
_NTSTATUS_HEX = "".join(rf"|(?P<hex{at}>{re.escape(form)})\b" for at, form in enumerate(_HEX_FORMS))


@rule(
    "framework-internal-error",
    # the number: a shell's or CI runner's "exit code 134" / "exit status 134", PyCharm's "Process finished with exit
    # code 134 (interrupted by signal 6: SIGABRT)", torch elastic's "exitcode: -6" (and its summary's padded
    # "exitcode  : -6"), GNU time's "Command exited with non-zero status 134", make's "Error 134"
    rf"\b(?P<status>{_CRASH_STATUS})\b"
    r"(?: \(interrupted by signal (?P<pycharm_number>\d{1,2}): (?P<pycharm>SIG[A-Z]{2,6})\))?"
    r"|returned non-zero exit status (?P<returncode>-\d{1,2})\b"
    r"|\bmake(?:\[\d{1,3}\])?: \*\*\* \[[^\]\n]{1,300}\] Error (?P<make>1[3-5]\d)\b"
    # the name: subprocess's "died with <Signals.SIGABRT: 6>", mp.spawn's "terminated with signal SIGABRT", torch
    # elastic's "Signal 6 (SIGABRT) received by PID 12", fish's "terminated by signal SIGABRT (Abort)", GNU time's
    # "Command terminated by signal 6"
    r"|died with <Signals\.(?P<named>SIG[A-Z]{2,6}): (?P<named_number>\d{1,2})>"
    r"|terminated with signal (?P<name>SIG[A-Z]{2,6})|terminated by signal (?P<fish>SIG[A-Z]{2,6})"
    r"|Signal (?P<received_number>\d{1,2}) \((?P<received>SIG[A-Z]{2,6})\) received by PID"
    r"|Command terminated by signal (?P<number>\d{1,2})\b"
    # zsh's report of its foreground job ("zsh: abort      python x.py", "zsh: abort (core dumped)  python x.py"),
    # each word its own branch so that each is a literal of its own
    r"|\bzsh: abort(?P<zsh_abort>)\s|\bzsh: bus error(?P<zsh_bus>)\s|\bzsh: trace trap(?P<zsh_trap>)\s" + _NTSTATUS_HEX,
    # a Windows status in hex, as PyCharm prints it beside the signed number
    source=f"{SIGNALS_SOURCE}; {NTSTATUS_SOURCE}; https://docs.python.org/3/library/subprocess.html "
    "(Popen.returncode: -N for signal N); https://www.gnu.org/software/bash/manual/bash.html#Exit-Status (128+N)",
    confidence=0.45,
)
def process_ended_by(found: re.Match[str], failure: Failure) -> Lead | None:
    """The crash an exit status names, read as its own words would be; None for an ordinary exit code (1, 2, 255)
    and for a signal that is no crash (SIGTERM, SIGINT, macOS's SIGEMT)."""
    said = found.group(0).strip()
    named, signal = _signal_named(found)
    if named:
        return _signal_lead(signal, said, found, failure) if signal is not None else None
    number = found.group("status").rsplit(" ", 1)[-1] if found.group("status") else None
    number = number or found.group("returncode") or found.group("make")
    spelled = next((found.group(f"hex{at}") for at in range(len(_HEX_FORMS)) if found.group(f"hex{at}")), None)
    status = int(spelled.rsplit(" ", 1)[-1].strip("()"), 16) if spelled else int(number) if number else None
    if status is None:
        return None
    signal = signal_of_status(status) if not spelled else None
    if signal is not None:
        return _signal_lead(signal, said, found, failure)
    windows = ntstatus_of(status)
    return _windows_lead(windows, said) if windows is not None else None


def _signal_named(found: re.Match[str]) -> tuple[bool, str | None]:
    """Whether the match names its signal (by name, by a number that is one, or in zsh's words), and the crash
    signal it is (None: a signal that is no crash, as SIGTERM)."""
    for name_group, number_group in (("pycharm", "pycharm_number"), ("named", "named_number"),
                                     ("received", "received_number"), ("name", None), ("fish", None)):  # fmt: skip
        name = found.group(name_group)
        if name is None:
            continue
        name = "SIGABRT" if name == "SIGIOT" else name
        number = found.group(number_group) if number_group else None
        if name == "SIGBUS" and number == "10":
            return True, "SIGBUS (macOS)"  # macOS numbers SIGBUS 10 (Darwin's signal.h); Linux 7
        return True, name if name in _SIGNAL_NAMES else None
    if found.group("number"):
        return True, _SIGNAL_NUMBERS.get(int(found.group("number")))
    for group, signal in (("zsh_abort", "SIGABRT"), ("zsh_bus", "SIGBUS (zsh)"), ("zsh_trap", "SIGTRAP")):
        if found.group(group) is not None:  # an empty group: the words matched
            return True, signal
    return False, None


def _signal_lead(signal: str, said: str, found: re.Match[str], failure: Failure) -> Lead | None:
    macos = platform_of_failure(failure) == "macos" or signal == "SIGBUS (macOS)"
    signal = signal.split(" ", 1)[0]
    # on Linux a training process's SIGBUS is nearly always a page of /dev/shm that could not be backed; on macOS,
    # and in the words of zsh (macOS's shell), a bus error is a crash like another
    shm = signal == "SIGBUS" and not macos and found.group("zsh_bus") is None
    # each reading under its own rule's family and confidence
    if signal == "SIGKILL":
        return replace(killed_by_kernel(found, failure), family="out-of-memory", confidence=0.7)
    if signal == "SIGSEGV":
        return segfault(found, failure)
    if signal == "SIGILL":
        return replace(illegal_instruction(on_a_mac=macos), family="gpu-arch-unsupported", confidence=0.75)
    if shm:
        return replace(rank_killed_by_sigbus(found, failure), family="nccl-shm", confidence=0.7)
    if signal == "SIGABRT":
        return _aborted(said, signal)
    return native_crash(said, signal)


def _aborted(said: str, signal: str) -> Lead:
    """A process that called abort() (or, on Windows, __fastfail: MSVC's abort and std::terminate, and a failed /GS
    stack check, which end the process without any handler of its own, faulthandler's included)."""
    fastfail = signal == "STATUS_STACK_BUFFER_OVERRUN"
    return Lead(
        f"The process aborted itself ({named(said, signal)}): native code found something it cannot go on with (a "
        "failed check or assertion, an uncaught C++ exception, a corrupt heap"
        + (", a stack buffer overrun caught by its /GS check) and ended the process at once (__fastfail). " if fastfail
           else ") and called abort(). ")
        + "The line printed just before it says which check; without it, the native stack at that moment does.",
        {"signal": signal},
        verdict="unknown",
        next=(
            ("Event Viewer, Windows Logs > Application: the crash's entry names the faulting module",
             "WinDbg's !analyze -v on the crash dump  # the native stack")
            if fastfail
            else ("python -X faulthandler ...  # the Python stack at the abort",
                  "gdb -batch -ex run -ex bt --args python ...  # the native stack")
        ),
    )  # fmt: skip


def _windows_lead(status: str, said: str) -> Lead:
    """A Windows exception read as its family: a DLL missing, a DLL of another version, or a crash."""
    if status == "STATUS_ILLEGAL_INSTRUCTION":
        # Windows has no /proc/cpuinfo to look at: the CPU's model names what it has
        lead = illegal_instruction(on_a_mac=False)
        return replace(
            lead,
            family="gpu-arch-unsupported",
            confidence=0.75,
            next=("Get-CimInstance Win32_Processor | Select-Object Name  # PowerShell: the CPU's model",),
        )
    if status in ("STATUS_DLL_NOT_FOUND", "STATUS_DLL_INIT_FAILED"):
        missing = status == "STATUS_DLL_NOT_FOUND"
        return Lead(
            f"Windows stopped the process before it ran ({named(said, status)}): a DLL it links against "
            + ("was not found on the DLL search path" if missing else "failed to initialise")
            + " (most often the Microsoft Visual C++ runtime, or a CUDA DLL of the toolkit the build expects).",
            {"status": status, "library": "Visual C++ Redistributable"},
            shell("winget install Microsoft.VCRedist.2015+.x64  # the Visual C++ runtime the wheels link"),
            family="missing-library",
            verdict="environment",
            confidence=0.7,
            next=("python -c \"import os; print(os.environ['PATH'])\"  # which folders Windows searches for DLLs",),
        )
    if status == "STATUS_ENTRYPOINT_NOT_FOUND":
        return Lead(
            f"Windows stopped the process before it ran ({named(said, status)}): a DLL it loaded lacks a function the "
            "program was linked against, so that DLL is another version than the one it was built with (an older "
            "copy of a runtime or CUDA DLL earlier on PATH).",
            {"status": status},
            family="undefined-symbol",
            verdict="environment",
            confidence=0.7,
            next=("where.exe python  # and each DLL folder on PATH: an older copy first is the one loaded",),
        )
    if status == "STATUS_STACK_BUFFER_OVERRUN":
        # since Windows 8 the code of __fastfail, through which MSVC's abort() and std::terminate end a process
        return _aborted(said, status)
    return native_crash(said, status)
