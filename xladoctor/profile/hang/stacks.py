"""Threads from what each source writes: py-spy's JSON, pystack's text, faulthandler's text, the hook's dump.

Every parser takes text or JSON a process of the user's program (or a tool reading it) wrote, so it reads
defensively: a field of the wrong type is skipped, never raised on. Frames come out innermost first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from xladoctor.profile.hang.model import Frame, Thread

MAX_THREADS = 256
MAX_FRAMES = 200
# The standard library and installed packages are not the user's code (the hook decides this in the process
# itself from sysconfig; from outside, the paths say it), nor are frozen modules and our own hooks.
_LIBRARY = re.compile(r"/(?:site|dist)-packages/|/lib/python\d+\.\d+/|/lib/pypy\d|^<|/_xladoctor_profile[a-z_]*\.py$")


def is_user_path(path: str) -> bool:
    """A file of the user's program, judged from its path alone (for stacks read from outside the process)."""
    return bool(path) and path.endswith(".py") and not _LIBRARY.search(path)


def _text(value: object, limit: int = 1000) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def is_hook_frame(frame: Frame) -> bool:
    """A frame of xladoctor's own hooks (the collective wrapper): left out of what the user is shown."""
    return "/_xladoctor_profile" in frame.file or frame.file.startswith("_xladoctor_profile")


def _cleaned(frames: list[Frame]) -> tuple[Frame, ...]:
    return tuple(f for f in frames if not is_hook_frame(f))[:MAX_FRAMES]


def _ours(frames: list[Frame]) -> bool:
    """A thread of xladoctor's hook (the dump listener): left out of the program's threads."""
    python = [f for f in frames if not f.native]
    return (
        bool(python)
        and all(is_hook_frame(f) or "/threading.py" in f.file for f in python)
        and any(is_hook_frame(f) for f in python)
    )


def from_py_spy(document: object) -> tuple[Thread, ...]:
    """`py-spy dump --json [--native]` (py-spy 0.4: a list of threads, each with frames innermost first; a native
    frame names its shared object in `module`)."""
    if not isinstance(document, list):
        return ()
    threads = []
    for item in document[:MAX_THREADS]:
        if not isinstance(item, Mapping):
            continue
        frames = []
        for raw in item.get("frames") or []:
            if not isinstance(raw, Mapping):
                continue
            module = raw.get("module")
            native = isinstance(module, str) and bool(module)
            file = _text(module if native else raw.get("filename"))
            frames.append(Frame(file, _int(raw.get("line")), _text(raw.get("name"), 300),
                                user=not native and is_user_path(file), native=native))  # fmt: skip
        if _ours(frames):
            continue
        name = _text(item.get("thread_name"), 200)
        ident = item.get("os_thread_id") or item.get("thread_id")
        threads.append(
            Thread(
                name=name or "",
                ident=str(ident) if isinstance(ident, int) else "",
                frames=_cleaned(frames),
                main=name == "MainThread" or (ident is not None and ident == item.get("pid")),
                active=bool(item.get("active")) if isinstance(item.get("active"), bool) else None,
            )
        )
    return tuple(sorted(threads, key=lambda t: not t.main))


# pystack 1.x `pystack remote PID [--native]`: "Traceback for thread TID (NAME) [FLAGS] (most recent call last):",
# then `(Python) File "F", line N, in FUNC` (its source line indented below) or `(C) File "F", line N, in FUNC (LIB)`.
_PYSTACK_THREAD = re.compile(r"^Traceback for thread (\d+) \(([^)]*)\) \[([^\]]*)\]")
_PYSTACK_FRAME = re.compile(r'^\s+\((Python|C)\) File "([^"]*)", line (\d+), in (.*?)(?: \(([^()]*)\))?$')


def from_pystack(text: str) -> tuple[Thread, ...]:
    threads: list[Thread] = []
    current: tuple[str, str, str] | None = None
    frames: list[Frame] = []

    def close() -> None:
        if current is not None and len(threads) < MAX_THREADS and not _ours(frames):
            tid, name, flags = current
            threads.append(Thread(name, tid, _cleaned(list(reversed(frames))), main=not threads,
                                  active="Has the GIL" in flags or None))  # fmt: skip

    for line in text.splitlines():
        head = _PYSTACK_THREAD.match(line)
        if head:
            close()
            current, frames = (head.group(1), head.group(2), head.group(3)), []
            continue
        frame = _PYSTACK_FRAME.match(line)
        if frame and current is not None and len(frames) < 4 * MAX_FRAMES:
            native = frame.group(1) == "C"
            file = (frame.group(5) or frame.group(2)) if native else frame.group(2)
            frames.append(Frame(file, int(frame.group(3)), frame.group(4)[:300], user=not native and
                                is_user_path(file), native=native))  # fmt: skip
    close()
    return tuple(threads)


# faulthandler (CPython Python/traceback.c): "Thread 0x... (most recent call first):" or "Current thread 0x...",
# then `  File "F", line N in FUNC`; a blank line between threads.
_FAULT_THREAD = re.compile(r"^(Current thread|Thread) (0x[0-9a-f]+)(?: \[([^\]]*)\])? \(most recent call first\):")
_FAULT_FRAME = re.compile(r'^  File "([^"]*)", line (\d+) in (.*)$')


def from_faulthandler(text: str, main_ident: str | None = None) -> tuple[Thread, ...]:
    threads: list[Thread] = []
    for block in re.split(r"\n(?=(?:Current thread|Thread) 0x)", text):
        lines = block.splitlines()
        if not lines:
            continue
        head = _FAULT_THREAD.match(lines[0])
        if head is None:
            continue
        frames = [
            Frame(m.group(1), int(m.group(2)), m.group(3)[:300], user=is_user_path(m.group(1)))
            for m in (_FAULT_FRAME.match(line) for line in lines[1:])
            if m
        ]
        ident = str(int(head.group(2), 16))
        if _ours(frames):
            continue
        threads.append(Thread(head.group(3) or "", ident, _cleaned(frames), main=ident == main_ident))
        if len(threads) >= MAX_THREADS:
            break
    if main_ident is None and threads:  # faulthandler cannot say which is the main thread: the outermost <module>
        with_module = [t for t in threads if t.frames and t.frames[-1].function == "<module>"]
        if len(with_module) == 1:
            threads = [Thread(t.name, t.ident, t.frames, main=t is with_module[0]) for t in threads]
    return tuple(sorted(threads, key=lambda t: not t.main))


def from_hook(document: Mapping[str, Any]) -> tuple[Thread, ...]:
    """The hook's dump (_xladoctor_profile_watch.py): threads with [file, line, function, user] frames."""
    raw_threads = document.get("threads")
    if not isinstance(raw_threads, list):
        return ()
    threads = []
    for item in raw_threads[:MAX_THREADS]:
        if not isinstance(item, Mapping):
            continue
        frames = []
        for raw in item.get("frames") or []:
            if isinstance(raw, list) and len(raw) >= 3:
                file = _text(raw[0])
                user = raw[3] if len(raw) > 3 and isinstance(raw[3], bool) else is_user_path(file)
                frames.append(Frame(file, _int(raw[1]), _text(raw[2], 300), user=user))
        if _ours(frames):
            continue
        native = item.get("native_id")
        ident = native if isinstance(native, int) else item.get("id")
        threads.append(Thread(_text(item.get("name"), 200), str(ident) if isinstance(ident, int) else "",
                              _cleaned(frames), main=item.get("main") is True))  # fmt: skip
    return tuple(sorted(threads, key=lambda t: not t.main))
