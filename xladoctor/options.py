"""The options of a diagnosis, declared once.

`xladoctor check` / `gate` (cli/options.py makes typer parameters of them), `%xladoctor` (magic.py makes an
argparse parser) and `xladoctor.diagnose()` (its keywords and signature) all derive from OPTIONS, and all turn
the values into one Request with diagnosis.pipeline.make_request. Importing this module stays light: it is
what `import xladoctor` reads to give diagnose() its signature.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# One bound for every child process; a hang costs at most this long. A first torch.compile with empty caches
# took about 15 s on this project's 2-core machine but 55-80 s for the CPU half of the compile smoke test on a
# real H200 host (scripts/gpu_smoke.sh, three runs): 300 s keeps a slow compiler from reading as a hang.
DEFAULT_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Option:
    """One option of a diagnosis: its keyword, its command-line flag, and what it means."""

    name: str  # the keyword of diagnose() and the field of the request
    flag: str  # the command-line flag
    kind: str  # interpreter | smoke | names | seconds | switch
    default: Any
    help: str
    annotation: Any  # the type diagnose() accepts

    @property
    def parameter(self) -> inspect.Parameter:
        """This option as a keyword parameter of diagnose()."""
        return inspect.Parameter(
            self.name, inspect.Parameter.KEYWORD_ONLY, default=self.default, annotation=self.annotation
        )


NAMES = "str | Sequence[str] | None"
OPTIONS: tuple[Option, ...] = (
    Option(
        "python",
        "--python",
        "interpreter",
        None,
        "Interpreter to diagnose (a venv's or conda env's python); default: the one running xladoctor.",
        "str | None",
    ),
    Option(
        "smoke",
        "--smoke",
        "smoke",
        True,
        "Smoke tests to run (repeat or comma-separate); --no-smoke runs none (static checks only: read metadata, "
        "import no framework).",
        "bool | str | Sequence[str]",
    ),
    Option("only", "--only", "names", None, "Run only these check ids or areas (repeat or comma-separate).", NAMES),
    Option("skip", "--skip", "names", None, "Skip these check ids or areas (repeat or comma-separate).", NAMES),
    Option(
        "timeout",
        "--timeout",
        "seconds",
        DEFAULT_TIMEOUT_S,
        "Seconds each child process (probe or smoke test) may run before its process group is killed.",
        "float",
    ),
    Option("strict", "--strict", "switch", False, "Count warnings as failures (exit 1).", "bool"),
    Option(
        "expect_gpus",
        "--expect-gpus",
        "count",
        None,
        "GPUs this node must show (fewer is a failure); default: $XLADOCTOR_EXPECT_GPUS, else not judged.",
        "int | None",
    ),
    Option(
        "expect_mig",
        "--expect-mig",
        "choice",
        None,
        "MIG mode the job needs on every GPU: on or off; default: $XLADOCTOR_EXPECT_MIG, else not judged.",
        "str | None",
    ),
    Option(
        "kernel_log",
        "--kernel-log",
        "path",
        None,
        "Read Xid lines from this file (a collected dmesg or journal) instead of this host's kernel ring buffer.",
        "str | None",
    ),
    Option(
        "dcgm",
        "--dcgm",
        "path",
        None,
        "Judge DCGM's diagnostic: a saved `dcgmi diag -j` file, or `run` for `dcgmi diag -r 1` (seconds).",
        "str | None",
    ),
)
BY_NAME = {o.name: o for o in OPTIONS}


def diagnose_signature(extra: Sequence[inspect.Parameter] = ()) -> inspect.Signature:
    """The signature of diagnose(): every option as a keyword, then `extra`."""
    return inspect.Signature([o.parameter for o in OPTIONS] + list(extra), return_annotation="DiagnosisReport")


def describe() -> str:
    """The options as the docstring of diagnose() lists them."""
    return "\n".join(f"    {o.name}={o.default!r}: {o.help}" for o in OPTIONS)


@dataclass(frozen=True)
class HealthRequest:
    """What the operator asked of the node check (--expect-gpus, --expect-mig, --kernel-log, --dcgm), validated by
    the pipeline and recorded in the facts (expected_*), so a replayed snapshot is judged against what was asked when
    it was taken. A contract, not a fact: the probes read it, and a live diagnosis makes it before its probe child
    starts, so it lives here, where importing it costs nothing."""

    expect_gpus: int | None = None
    expect_mig: str | None = None  # Enabled | Disabled
    kernel_log: str | None = None  # a file; None: the ring buffer
    dcgm: str | None = None  # a saved `dcgmi diag -j` file, or "run"; None: not asked
