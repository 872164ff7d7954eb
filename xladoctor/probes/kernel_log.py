"""Xid and SXid lines of the kernel log since the last boot: /dev/kmsg, else `dmesg`, else `journalctl -k -b 0`, or a
file an operator collected (--kernel-log FILE).

Line shapes (NVIDIA's driver; real examples in tests/health/kernel/):
    NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.
    NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, errorString CTX SWITCH TIMEOUT
    NVRM: Xid (0000:01:00): 3, ...                                    (very old drivers: no "PCI:")
    nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Data {0x000001c0, ...}
The ring buffer (kmsg, dmesg) holds this boot only; journalctl is asked for this boot (-b 0); a file may hold
several boots, so only the lines after its last boot marker count. A log that cannot be read is said so (a
container without CAP_SYSLOG, kernel.dmesg_restrict=1): never read as "no Xid".
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from collections.abc import Mapping
from typing import Any

from xladoctor.proc import run_command
from xladoctor.sanitize import clip

KMSG = "/dev/kmsg"
MAX_EVENTS = 200  # kept; the rest are counted
MAX_BYTES = 16 << 20  # of a log read (the ring buffer is 16 KiB to a few MiB; a collected file may be large)
_LINE_CHARS = 400
_XID = re.compile(
    r"(?P<text>(?:NVRM: Xid|(?P<switch>nvidia-nvswitch\d*): SXid) \((?:PCI:)?(?P<pci>[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:"
    r"[0-9A-Fa-f]{2}(?:\.[0-7])?)\): (?P<code>\d{1,5}),(?P<rest>.*))"
)
_PID = re.compile(r"\bpid='?(?P<pid><unknown>|\d+)'?,(?: name=(?P<name>[^,]{1,64}),)?")
# the kernel's first line at boot ("Linux version 6.8.0-...") and journalctl's separators between boots
_BOOT = re.compile(r"\] Linux version \d|kernel: Linux version \d|^-- Boot [0-9a-f]{32} --|^-- Reboot --")


def parse_xid_lines(text: str) -> dict[str, Any]:
    """The Xid/SXid events of `text` after its last boot marker, as KernelLog fields (events, more, boots)."""
    lines = text.splitlines()
    boots = [i for i, line in enumerate(lines) if _BOOT.search(line)]
    start = boots[-1] + 1 if boots else 0
    events: list[dict[str, Any]] = []
    more = 0
    for number, line in enumerate(lines[start:], start + 1):
        found = _XID.search(line)
        if found is None:
            continue
        if len(events) >= MAX_EVENTS:
            more += 1
            continue
        who = _PID.search(found.group("rest"))
        events.append(
            {
                "kind": "SXid" if found.group("switch") else "Xid",
                "code": int(found.group("code")),
                "pci": found.group("pci").lower(),
                "line": number,
                "text": clip(found.group("text").strip(), _LINE_CHARS),
                "pid": who.group("pid") if who else None,
                "process": who.group("name").strip() if who and who.group("name") else None,
            }
        )
    earlier = (len(boots) - 1 + (1 if boots[0] > 0 else 0)) if boots else 0  # boots whose lines came before
    return {"events": events, "more_events": more, "boots_skipped": earlier}


def _read_kmsg(path: str = KMSG) -> str:
    """Every record now in the ring buffer: /dev/kmsg gives one record per read and EAGAIN at its end when opened
    non-blocking (Documentation/ABI/testing/dev-kmsg)."""
    records: list[str] = []
    size = 0
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        while size < MAX_BYTES:
            try:
                record = os.read(fd, 8192)
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    break
                if exc.errno == errno.EPIPE:  # overwritten while reading: go on from the next one
                    continue
                raise
            if not record:
                break
            size += len(record)
            # "6,339,5140900,-;NVRM: Xid ..." -> the message after the first ';'
            records.append(record.decode("utf-8", "replace").split(";", 1)[-1].split("\n", 1)[0])
    finally:
        os.close(fd)
    return "\n".join(records)


def _from_file(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        return {"source": path, "readable": False, "error": f"{path}: {exc.strerror or exc}"}
    text = data[:MAX_BYTES].decode("utf-8", "replace")
    return {"source": path, "readable": True, **parse_xid_lines(text)}


def read_kernel_log(env: Mapping[str, str], timeout_s: float, path: str | None = None) -> dict[str, Any]:
    """KernelLog fields: from `path` when given, else the first of kmsg, dmesg, journalctl that can be read."""
    if path is not None:
        return _from_file(path)
    errors: list[str] = []
    try:
        text = _read_kmsg()
        return {"source": KMSG, "readable": True, **parse_xid_lines(text)}
    except OSError as exc:
        errors.append(f"{KMSG}: {exc.strerror or exc}")
    for name, argv in (("dmesg", ["dmesg"]), ("journalctl", ["journalctl", "-k", "-b", "0", "--no-pager", "-q"])):
        found = shutil.which(name, path=env.get("PATH"))
        if found is None:
            errors.append(f"{name} is not on PATH")
            continue
        result = run_command([found, *argv[1:]], timeout_s, env=env, label=name)
        if result.ok:
            return {"source": name, "readable": True, **parse_xid_lines(result.stdout)}
        output = (result.stderr or result.stdout).strip().splitlines()
        errors.append(f"{name} {result.describe_failure()}" + (f": {output[0][:160]}" if output else ""))
    return {"source": None, "readable": False, "error": "; ".join(errors)}
