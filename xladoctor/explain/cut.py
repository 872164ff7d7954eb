"""A traceback cut before its error line: what its last frame still says.

Python prints an exception's own line after the frames; a paste that stops at the last frame (a screenshot's text,
an issue form's limit, a copy that missed the end) leaves only where the error was raised. When that is an installed
package's module running at import (`in <module>`) and its statement uses another package (`from transformers
import Cache`, `jax.core.pp_eqn_rules[...] = ...`), the error was raised while one package imported another: the
shape of code written for another release of the second one (a name or an attribute its installed release lacks).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from xladoctor.explain.records import MOVING_APIS, Frame, clean, frame_at, installed_package, is_exception_line

_LAST_LINES = 8  # the frame is among the log's last lines: the rest is its source, IPython's context, carets
# A statement that uses a package: an import, or a dotted name read or written at a line's start (only a package
# whose API moves between releases: records.MOVING_APIS, by its usual alias too). IPython's context lines carry their
# line number ("      6 import jax.core as core", "----> 25 from x import y").
_USES = re.compile(
    r"^(?:-*>\s*)?(?:\d+\s+)?(?:from\s+(?P<from>[A-Za-z_]\w*)[\w.]*\s+import\b|import\s+(?P<import>[A-Za-z_]\w*)"
    r"|(?P<dotted>[A-Za-z_]\w*)\.[A-Za-z_]\w*)"
)
# the names packages are imported as by custom (`import numpy as np`): a statement uses the package, not the alias
_ALIASES = {"np": "numpy", "tf": "tensorflow", "jnp": "jax", "pd": "pandas", "nn": "torch", "F": "torch"}
_NOT_A_PACKAGE = frozenset(sys.stdlib_module_names) | {"self", "cls", "super", "__future__", "builtins"}


@dataclass(frozen=True)
class CutAtImport:
    """A traceback cut after its last frame, which ran an installed package's module at import."""

    package: str  # the package whose module was being imported (`peft`)
    other: str  # the package its statement uses (`transformers`)
    frame: Frame
    statement: str  # the statement as the log shows it


def cut_at_import(tail: str) -> CutAtImport | None:
    """The cut traceback at the end of `tail` (the log's end), when its last frame is an installed package's module
    at import whose statement uses another package; None for any other end."""
    lines = [text for text in (clean(line).strip() for line in tail.splitlines()) if text]
    for index in range(len(lines) - 1, max(-1, len(lines) - 1 - _LAST_LINES), -1):
        frame = frame_at(lines[index])
        if frame is not None:
            break
    else:
        return None
    after = lines[index + 1 :]
    if any(is_exception_line(text) for text in after):
        return None  # the error's own line is there: not cut
    package = installed_package(frame.file)
    if frame.function != "<module>" or package is None:
        return None
    for statement in reversed(after):  # the last one shown is the nearest to the line that raised
        used = _USES.match(statement)
        if used is None:
            continue
        dotted = used.group("dotted")
        other = _ALIASES.get(dotted, dotted) if dotted else used.group("from") or used.group("import")
        if dotted and other not in MOVING_APIS:
            continue  # `logger.info(...)`, `config.x = 1`: a name of the module's own, not surely a package
        if other in _NOT_A_PACKAGE or other.lower() == package.lower():
            continue
        return CutAtImport(package, other, frame, statement)
    return None
