"""What the package index says about wheels, read without downloading one (used by scripts/audit_matrix.py).

Standard library only. File lists come from PyPI's JSON simple API (PEP 691); a wheel's METADATA from its
PEP 658 `<url>.metadata` file, or, where the index has none, from the wheel itself by HTTP range requests:
the zip's end record, then its central directory, then the one member. A whole wheel is never fetched
(torch's are 900 MB). Every response is cached in ~/.cache/xladoctor/audit for a day, so reruns are quick.
"""

from __future__ import annotations

import email.parser
import hashlib
import json
import os
import re
import struct
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

SIMPLE = "https://pypi.org/simple/{}/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "xladoctor" / "audit"
CACHE_SECONDS = 24 * 3600
TIMEOUT = 60
# The end-of-central-directory record is 22 bytes plus a comment of at most 65535 bytes.
TAIL = 22 + 65535 + 20
_WHEEL = re.compile(
    r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-(?P<build>\d[^-]*))?-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$"
)
_VERSION = re.compile(r"^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?(?:\+.*)?$")


class IndexError_(Exception):
    """The index or the network could not answer: the audit stops with exit 2 and one line."""


@dataclass(frozen=True)
class Wheel:
    """One wheel file of the index, its name split into the parts PEP 427 gives it."""

    filename: str
    url: str
    version: str
    python: str
    abi: str
    platform: str
    yanked: bool

    def is_linux_x86_64(self) -> bool:
        return any(p.endswith("x86_64") and "linux" in p for p in self.platform.split("."))

    def cpython(self) -> str | None:
        """'3.12' for a cp312 wheel, '3.13t' for a free-threaded cp313t one, None for pure or other wheels.

        The ABI tag says it, not the interpreter tag: cp313-cp313t is free-threaded; cp37m is CPython 3.7's
        pymalloc ABI (the `m` flag was dropped in 3.8), an ordinary CPython 3.7 wheel."""
        match = re.fullmatch(r"cp3(\d+)(t?)m?u?", self.abi)
        return f"3.{match.group(1)}{match.group(2)}" if match else None


def version_key(version: str) -> tuple[tuple[int, ...], int, int, int, int]:
    """A sort key for the PEP 440 versions these projects publish (releases, a/b/rc, .post, .dev)."""
    match = _VERSION.match(version)
    if match is None:
        return ((0,), 0, 0, 0, 0)
    release = tuple(int(x) for x in match.group(1).split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    pre = {"a": 1, "b": 2, "rc": 3}.get(match.group(2) or "", 4 if match.group(5) is None else 0)
    post = int(match.group(4)) if match.group(4) else -1
    dev = int(match.group(5)) if match.group(5) is not None else 1 << 30
    return (release, pre, int(match.group(3) or 0), post, dev)


def is_final(version: str) -> bool:
    """A release, not an alpha/beta/rc or a dev build."""
    match = _VERSION.match(version)
    return bool(match) and match is not None and match.group(2) is None and match.group(5) is None


def series(version: str) -> str:
    """'2.9.1' -> '2.9', '13.0.96' -> '13.0'."""
    release = re.findall(r"\d+", version.split("+")[0])[:2]
    return f"{int(release[0])}.{int(release[1]) if len(release) > 1 else 0}"


class Index:
    """The package index, through a one-day cache of every response."""

    def __init__(self, cache_dir: Path = CACHE_DIR, refresh: bool = False) -> None:
        self.cache_dir = cache_dir
        self.refresh = refresh

    def _cached(self, key: str) -> tuple[int, dict[str, str], bytes] | None:
        meta, body = self.cache_dir / f"{key}.json", self.cache_dir / f"{key}.body"
        if self.refresh or not meta.exists() or time.time() - meta.stat().st_mtime > CACHE_SECONDS:
            return None
        info = json.loads(meta.read_text())
        return int(info["status"]), dict(info["headers"]), body.read_bytes() if body.exists() else b""

    def _store(self, key: str, status: int, headers: dict[str, str], body: bytes) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        (self.cache_dir / f"{key}.body").write_bytes(body)
        (self.cache_dir / f"{key}.json").write_text(json.dumps({"status": status, "headers": headers}))

    def get(
        self, url: str, accept: str | None = None, byte_range: str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """(status, the headers we use, body); a 404 is an answer, any other failure raises IndexError_."""
        key = hashlib.sha256(f"{url}|{accept}|{byte_range}".encode()).hexdigest()
        hit = self._cached(key)
        if hit is not None:
            return hit
        request = urllib.request.Request(url, headers={"User-Agent": "xladoctor-audit/1"})
        if accept:
            request.add_header("Accept", accept)
        if byte_range:
            request.add_header("Range", f"bytes={byte_range}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                status, body = response.status, response.read()
                headers = {k: response.headers.get(k, "") for k in ("Content-Range", "Content-Type")}
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise IndexError_(f"{url}: HTTP {exc.code} {exc.reason}") from None
            status, headers, body = 404, {}, b""
        except (urllib.error.URLError, OSError) as exc:
            raise IndexError_(f"{url}: {getattr(exc, 'reason', exc)}") from None
        if byte_range and status != 206:
            raise IndexError_(f"{url}: the server ignored the range request (HTTP {status})")
        self._store(key, status, headers, body)
        return status, headers, body

    def wheels(self, project: str) -> list[Wheel]:
        """Every wheel of a project, from the JSON simple API; [] when the index has no such project."""
        status, _, body = self.get(SIMPLE.format(project), accept=SIMPLE_JSON)
        if status == 404:
            return []
        found = []
        for entry in json.loads(body)["files"]:
            match = _WHEEL.match(entry["filename"])
            if match is None:
                continue
            found.append(
                Wheel(
                    entry["filename"],
                    entry["url"],
                    match["version"],
                    match["py"],
                    match["abi"],
                    match["plat"],
                    bool(entry.get("yanked")),
                )
            )
        return found

    def metadata(self, wheel: Wheel) -> Message:
        """The wheel's METADATA: the PEP 658 file when the index serves one, else the member read by ranges."""
        status, _, body = self.get(wheel.url + ".metadata")
        if status != 200:
            body = self.member(wheel, lambda n: re.fullmatch(r"[^/]+\.dist-info/METADATA", n) is not None)
        return email.parser.BytesParser().parsebytes(body)

    def names(self, wheel: Wheel) -> list[str]:
        """Every member name in the wheel's central directory."""
        return [entry.name for entry in self._directory(wheel)]

    def member(self, wheel: Wheel, wanted: Callable[[str], bool]) -> bytes:
        entry = next((e for e in self._directory(wheel) if wanted(e.name)), None)
        if entry is None:
            raise IndexError_(f"{wheel.filename}: no such member in its central directory")
        _, _, head = self.get(wheel.url, byte_range=f"{entry.offset}-{entry.offset + 29}")
        if head[:4] != b"PK\x03\x04":
            raise IndexError_(f"{wheel.filename}: bad local header for {entry.name}")
        name_len, extra_len = struct.unpack("<HH", head[26:30])
        start = entry.offset + 30 + name_len + extra_len
        _, _, data = self.get(wheel.url, byte_range=f"{start}-{start + entry.compressed - 1}")
        if entry.method == 0:
            return data
        if entry.method == 8:
            return zlib.decompress(data, -15)
        raise IndexError_(f"{wheel.filename}: {entry.name} uses zip method {entry.method}")

    def _directory(self, wheel: Wheel) -> list[_Entry]:
        _, headers, tail = self.get(wheel.url, byte_range=f"-{TAIL}")
        total = int(headers.get("Content-Range", "/0").rsplit("/", 1)[1])
        cd_offset, cd_size = _central_directory_span(tail, total, wheel.filename)
        _, _, directory = self.get(wheel.url, byte_range=f"{cd_offset}-{cd_offset + cd_size - 1}")
        return list(_entries(directory, wheel.filename))


@dataclass(frozen=True)
class _Entry:
    name: str
    method: int
    compressed: int
    offset: int


def _central_directory_span(tail: bytes, total: int, what: str) -> tuple[int, int]:
    """(offset, size) of the central directory, from the end record (ZIP64 when the plain one overflows)."""
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        raise IndexError_(f"{what}: no zip end record in its last {len(tail)} bytes")
    cd_size, cd_offset = struct.unpack("<II", tail[at + 12 : at + 20])
    if cd_offset != 0xFFFFFFFF and cd_size != 0xFFFFFFFF:
        return cd_offset, cd_size
    locator = tail.rfind(b"PK\x06\x07", 0, at)
    if locator < 0:
        raise IndexError_(f"{what}: ZIP64 end record expected but not found")
    (record_offset,) = struct.unpack("<Q", tail[locator + 8 : locator + 16])
    record = tail[record_offset - (total - len(tail)) :]
    if record[:4] != b"PK\x06\x06":
        raise IndexError_(f"{what}: ZIP64 end record is outside the bytes read")
    cd_size, cd_offset = struct.unpack("<QQ", record[40:56])
    return cd_offset, cd_size


def _entries(directory: bytes, what: str) -> Iterable[_Entry]:
    at = 0
    while directory[at : at + 4] == b"PK\x01\x02":
        (method,) = struct.unpack("<H", directory[at + 10 : at + 12])
        compressed, size = struct.unpack("<II", directory[at + 20 : at + 28])
        name_len, extra_len, comment_len = struct.unpack("<HHH", directory[at + 28 : at + 34])
        (offset,) = struct.unpack("<I", directory[at + 42 : at + 46])
        name = directory[at + 46 : at + 46 + name_len].decode("utf-8", "replace")
        extra = directory[at + 46 + name_len : at + 46 + name_len + extra_len]
        compressed, offset = _zip64_fields(extra, size, compressed, offset)
        yield _Entry(name, method, compressed, offset)
        at += 46 + name_len + extra_len + comment_len
    if at == 0:
        raise IndexError_(f"{what}: the central directory does not start where the end record says")


def _zip64_fields(extra: bytes, size: int, compressed: int, offset: int) -> tuple[int, int]:
    """Sizes and offsets that overflow 32 bits live in the ZIP64 extra field, in a fixed order."""
    at = 0
    while at + 4 <= len(extra):
        tag, length = struct.unpack("<HH", extra[at : at + 4])
        if tag == 0x0001:
            values = extra[at + 4 : at + 4 + length]
            pos = 0
            for field in ("size", "compressed", "offset"):
                current = {"size": size, "compressed": compressed, "offset": offset}[field]
                if current == 0xFFFFFFFF:
                    (value,) = struct.unpack("<Q", values[pos : pos + 8])
                    pos += 8
                    if field == "compressed":
                        compressed = value
                    elif field == "offset":
                        offset = value
                    else:
                        size = value
        at += 4 + length
    return compressed, offset
