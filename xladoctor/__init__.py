"""xladoctor: tells whether this Python environment can really run the compiled ML stack.

`import xladoctor` stays light: diagnose() and the notebook extension import the machinery when called.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xladoctor.options import describe, diagnose_signature

if TYPE_CHECKING:
    from xladoctor.api import DiagnosisReport

__version__ = "0.1.0"

__all__ = ["__version__", "diagnose", "load_ipython_extension"]

# From a source checkout (running `python -m xladoctor` in the repository root), checks/ and compat_matrix/ sit
# beside this package instead of inside it, where the wheel and an editable install put them as
# xladoctor.checks and xladoctor.compat_matrix: let those two names resolve there too.
_CHECKOUT = Path(__file__).resolve().parent.parent
if not (Path(__file__).parent / "checks").is_dir() and (_CHECKOUT / "checks" / "__init__.py").is_file():
    __path__.append(str(_CHECKOUT))


def diagnose(**options: Any) -> DiagnosisReport:
    from xladoctor.api import diagnose as run

    return run(**options)


diagnose.__signature__ = diagnose_signature(  # type: ignore[attr-defined]
    [inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=True, annotation="bool")]
)
diagnose.__doc__ = (
    "Diagnose an environment (default: this interpreter) like `xladoctor check`; in a notebook the report shows as "
    "HTML. Bad arguments raise xladoctor.api.DiagnoseError (a ValueError).\n\n" + describe() + "\n"
    "    progress=True: print one line as each smoke test starts and ends."
)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext xladoctor`: registers the `%xladoctor` line magic."""
    from xladoctor.magic import load_ipython_extension as register

    register(ipython)
