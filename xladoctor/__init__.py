"""xladoctor: tells whether this Python environment can really run the compiled ML stack.

`import xladoctor` stays light: diagnose() and the notebook extension import the machinery when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xladoctor.api import DiagnosisReport

__version__ = "0.1.0"

__all__ = ["__version__", "diagnose", "load_ipython_extension"]


def diagnose(
    python: str | None = None,
    smoke: bool | str | Sequence[str] = True,
    only: str | Sequence[str] | None = None,
    skip: str | Sequence[str] | None = None,
    timeout: float = 300.0,  # xladoctor.proc.DEFAULT_TIMEOUT_S (not imported: `import xladoctor` stays light)
    strict: bool = False,
    progress: bool = True,
) -> DiagnosisReport:
    """Diagnose `python` (default: this interpreter) like `xladoctor check`; the report shows as HTML in a notebook.

    smoke: True runs every smoke test, False none, or names ("compile,xla" or a list); only/skip: check ids or
    areas; timeout: seconds per child process. Bad arguments raise xladoctor.api.DiagnoseError (a ValueError)."""
    from xladoctor.api import diagnose as run

    return run(python=python, smoke=smoke, only=only, skip=skip, timeout=timeout, strict=strict, progress=progress)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext xladoctor`: registers the `%xladoctor` line magic."""
    from xladoctor.magic import load_ipython_extension as register

    register(ipython)
