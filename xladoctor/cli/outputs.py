"""Where a report goes: a regular file is replaced atomically; anything else is written in place, as a shell
redirect (`>`) writes it; an input is never an output.

A device, a FIFO or a terminal is never renamed over: `-o /dev/null` as root must not turn the host's /dev/null
into a regular file, and a FIFO's reader must get the report. `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and
`/proc/self/fd/N` are the descriptors themselves (bash's redirection rules treat them so too). A symbolic link to a
regular file is followed, and the message says so. Every destination is examined before any work starts, so a
bad one costs nothing (exit 2), not the report of a long run.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from xladoctor.errors import UsageError

# bash(1), REDIRECTION: "/dev/fd/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr" name the shell's own descriptors
_STREAMS = {"/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR = re.compile(r"/(?:dev/fd|proc/self/fd|proc/thread-self/fd)/([0-9]{1,9})")
_MAX_LINKS = 40  # Linux's MAXSYMLINKS
_UMASK_LOCK = threading.Lock()


def _one_line(text: str) -> str:
    """xladoctor.sanitize.one_line, imported when a path is shown: the redaction's patterns are compiled off the
    start-up of a command (the static check starts its probe sooner)."""
    from xladoctor.sanitize import one_line

    return one_line(text)


@dataclass(frozen=True)
class Destination:
    """An examined output: how it will be written, and the file that will change."""

    given: Path
    # "replace": a regular file (new or not) renamed into place; "truncate": a file in a folder we cannot write,
    # rewritten as `>` does; "in-place": a device or a FIFO; "descriptor": stdout, stderr, /dev/fd/N
    how: str
    target: Path  # the file that changes (the link's target for a link)
    descriptor: int | None = None
    link: bool = False  # `given` is a symbolic link that was followed

    def said(self) -> str:
        """What the user is told once it is written."""
        if self.link and self.how in ("replace", "truncate"):
            return f"wrote {_one_line(str(self.target))} (the file the link {_one_line(str(self.given))} points to)"
        return f"wrote {_one_line(str(self.given))}"


def named(option: str, path: object) -> str:
    """`--output FILE`, or `--report html:FILE` (an option that ends in ':' takes the file without a space)."""
    shown = _one_line(str(path))
    return f"{option}{shown}" if option.endswith(":") else f"{option} {shown}"


def _descriptor(text: str) -> int | None:
    if text in _STREAMS:
        return _STREAMS[text]
    match = _DESCRIPTOR.fullmatch(text)
    return int(match.group(1)) if match else None


def _through_descriptor(path: str) -> tuple[bool, int | None]:
    """Whether a chain of links passes through a descriptor table (/dev/fd/M, /proc/N/fd/M), and our own descriptor
    it names: then the descriptor is what is meant, and renaming over what it points to would cut a redirection."""
    current = path
    own = re.compile(rf"/proc/(?:self|thread-self|{os.getpid()})/fd/([0-9]{{1,9}})")
    for _ in range(_MAX_LINKS):
        fd = _descriptor(current)
        if fd is not None:
            return True, fd
        match = own.fullmatch(current)
        if match:
            return True, int(match.group(1))
        if re.match(r"/proc/[0-9]+/fd/", current):
            return True, None
        try:
            target = os.readlink(current)
        except OSError:
            return False, None
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return False, None


def _folder_writable(folder: Path, option: str, given: Path) -> None:
    if not folder.is_dir():
        raise UsageError(f"{named(option, given)}: the folder {_one_line(str(folder))} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{named(option, given)}: cannot write in {_one_line(str(folder))} (permission denied)")


def examine(path: Path, option: str) -> Destination:
    """How `path` will be written; a UsageError (exit 2) for what cannot or must not be: checked before any work."""
    text = os.fspath(path)
    shown = named(option, text)
    if not text:
        raise UsageError(f"{option}: give a file name")
    through, fd = _through_descriptor(text)
    if through:
        if fd is None:  # another process's descriptor: its device or pipe, written in place
            return Destination(path, "in-place", path)
        try:
            os.fstat(fd)
        except OSError:
            raise UsageError(f"{shown}: descriptor {fd} is not open") from None
        return Destination(path, "descriptor", path, descriptor=fd)
    try:
        own = os.lstat(path)
    except FileNotFoundError:
        _folder_writable(path.parent if str(path.parent) else Path("."), option, path)
        return Destination(path, "replace", path)
    except OSError as exc:
        raise UsageError(f"{shown}: {exc.strerror or exc}") from None
    link = stat.S_ISLNK(own.st_mode)
    try:
        info = os.stat(path) if link else own
    except FileNotFoundError:  # a dangling link: create the file it names, as `>` would
        target = Path(os.path.realpath(path))
        _folder_writable(target.parent, option, path)
        return Destination(path, "replace", target, link=True)
    except OSError as exc:
        raise UsageError(f"{shown}: {exc.strerror or exc}") from None
    mode = info.st_mode
    if stat.S_ISREG(mode):
        target = Path(os.path.realpath(path)) if link else path
        if not os.access(target, os.W_OK):  # a shell's `>` refuses a read-only file too
            raise UsageError(f"{shown}: permission denied")
        folder = target.parent if str(target.parent) else Path(".")
        if not os.access(folder, os.W_OK | os.X_OK):  # no temporary file can go beside it: write it as `>` does
            return Destination(path, "truncate", target, link=link)
        return Destination(path, "replace", target, link=link)
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        if not os.access(path, os.W_OK):
            raise UsageError(f"{shown}: permission denied")
        return Destination(path, "in-place", path, link=link)
    kind = "a directory" if stat.S_ISDIR(mode) else "a block device" if stat.S_ISBLK(mode) else "not a file"
    raise UsageError(f"{shown}: is {kind}; a report goes to a file, a character device (/dev/null) or a pipe")


def _umask() -> int:
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _replace(destination: Destination, data: bytes) -> None:
    """A temporary file beside the target, then an atomic rename: a failure leaves the old file as it was. The new
    file gets the old one's mode (and owner, for root), or the mode the umask gives (0644 under 022)."""
    target = destination.target
    folder = target.parent if str(target.parent) else Path(".")
    try:
        previous: os.stat_result | None = os.stat(target)
    except OSError:
        previous = None
    temporary: str | None = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fchmod(stream.fileno(), stat.S_IMODE(previous.st_mode) if previous else 0o666 & ~_umask())
            if previous is not None and os.geteuid() == 0:
                with contextlib.suppress(OSError):
                    os.fchown(stream.fileno(), previous.st_uid, previous.st_gid)
            os.fsync(stream.fileno())
        os.replace(temporary, target)
        temporary = None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _in_place(destination: Destination, data: bytes) -> None:
    """A device or a FIFO, written as `>` writes it. A FIFO nobody reads is an error, not a hang."""
    flags = os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(destination.given, flags)
    try:
        if not stat.S_ISCHR(os.fstat(fd).st_mode) and not stat.S_ISFIFO(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "no longer a device or a pipe")
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        _write_all(fd, data)
    finally:
        os.close(fd)


def write_output(destination: Destination, text: str, option: str, quiet: bool = False) -> None:
    """Write `text` where `destination` says; one UsageError line when it cannot be written."""
    data = text.encode("utf-8", errors="backslashreplace")
    shown = named(option, destination.given)
    try:
        if destination.how == "descriptor":
            assert destination.descriptor is not None
            if destination.descriptor == 1 and sys.stdout is not None:
                sys.stdout.flush()
            if destination.descriptor == 2 and sys.stderr is not None:
                sys.stderr.flush()
            _write_all(destination.descriptor, data)
        elif destination.how == "in-place":
            _in_place(destination, data)
        elif destination.how == "truncate":
            fd = os.open(destination.target, os.O_WRONLY | os.O_TRUNC | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
        else:
            _replace(destination, data)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise UsageError(f"{shown}: no process is reading this FIFO") from None
        unchanged = destination.how == "replace" and destination.target.exists()
        kept = " (the previous file is unchanged)" if unchanged else ""
        raise UsageError(f"{shown}: cannot write ({exc.strerror or exc}){kept}") from None
    if not quiet and destination.how != "descriptor" and sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            print(destination.said(), file=sys.stderr)


def write_file(path: Path, text: str, option: str) -> None:
    """Examine and write at once, for an output examined already (the examination is cheap and repeatable)."""
    write_output(examine(path, option), text, option)


# ---- an input is never an output ---------------------------------------------------------------------------


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def overwrites(destination: Destination, source: Path) -> bool:
    """Whether writing `destination` would change the file `source` (a link or another spelling of it too)."""
    if destination.how not in ("replace", "truncate"):
        return False  # a device or a pipe written in place loses nothing
    mine = _identity(destination.target)
    if mine is not None and mine == _identity(source):
        return True
    return os.path.realpath(destination.target) == os.path.realpath(source)


def refuse_inputs(outputs: Iterable[tuple[Destination | None, str]], inputs: Sequence[tuple[Path | None, str]]) -> None:
    """Exit 2 before any work when an output would replace one of the inputs, or two outputs name one file."""
    taken: list[tuple[Destination, str]] = []
    for destination, option in outputs:
        if destination is None:
            continue
        shown = named(option, destination.given)
        for source, what in inputs:
            if source is not None and str(source) != "-" and overwrites(destination, source):
                raise UsageError(f"{shown} is {what}: writing it would destroy that input; give another file")
        for other, other_option in taken:
            if overwrites(destination, other.target):
                raise UsageError(f"{shown} names the same file as {other_option}: give each its own")
        taken.append((destination, option))
