"""Area `compile`: torch.compile and Triton debug switches left on.

torch/_inductor/config.py (class trace): `enabled = os.environ.get("TORCH_COMPILE_DEBUG", "0") == "1"`,
the "master switch" that writes "a directory containing lots of debug information" for every compile.
triton/knobs.py: `interpret: env_bool = env_bool("TRITON_INTERPRET")` runs kernels in Triton's
interpreter on the CPU instead of compiling them for the GPU.
torch/_logging/_internal.py `_parse_log_settings` reads TORCH_LOGS when torch is imported: "+name" sets a
log to DEBUG, "all" means the `torch` log, and an empty value or one that is not a comma-separated list of
names makes `import torch` raise (AttributeError for "", ValueError otherwise; seen with torch 2.9.0 and
2.13.0). Most TORCH_LOGS output is written while compiling; torch/autograd/graph.py `_engine_run_backward`
is the exception: with the `torch.autograd` log at DEBUG it hooks every node of every backward pass and
logs "Executing: <node> with grad_outputs: ...".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution
from xladoctor.facts.prerequisites import any_installed, env_present
from xladoctor.facts.system import Gpu
from xladoctor.findings import Outcome, Status
from xladoctor.fix import Fix, export, unset

check = area("compile")

INDUCTOR_CONFIG = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/_inductor/config.py"
TRITON_KNOBS = "https://github.com/triton-lang/triton/blob/main/python/triton/knobs.py"
TORCH_LOGGING = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/_logging/_internal.py"
AUTOGRAD_GRAPH = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/autograd/graph.py"
_TRUE = ("1", "true", "True", "yes", "on")
# torch/_logging/_internal.py _gen_settings_regex, matched against the whole value
_SETTINGS = re.compile(r"((\+|-)?[\w\.]+,\s*)*(\+|-)?[\w\.]+?")
# Names whose DEBUG level reaches the torch.autograd.graph logger: the `autograd` and `all` aliases,
# and the module names above it (_registrations.py: register_log("autograd", "torch.autograd")).
_AUTOGRAD_NAMES = ("all", "autograd", "torch", "torch.autograd", "torch.autograd.graph")


def per_step_torch_logs(value: str) -> list[str]:
    """The TORCH_LOGS entries that log on every backward pass (DEBUG on torch.autograd)."""
    return [t.strip() for t in value.split(",") if t.strip().startswith("+") and t.strip()[1:] in _AUTOGRAD_NAMES]


def _torch_logs_without(value: str, drop: list[str]) -> Fix:
    kept = [t.strip() for t in value.split(",") if t.strip() and t.strip() not in drop]
    return export("TORCH_LOGS", ",".join(kept)) if kept else unset("TORCH_LOGS")


@check(
    "compile-debug-switches",
    "torch.compile and Triton debug switches",
    requires=(any_installed("torch", "triton"),),
    env=("TORCH_COMPILE_DEBUG", "TRITON_INTERPRET", "TORCH_LOGS"),
)
def compile_debug_switches(
    env: Mapping[str, str], gpus: tuple[Gpu, ...], torch: Distribution | None, triton: Distribution | None
) -> Iterator[Outcome]:
    names: list[str] = []
    notes: list[str] = []
    if torch and env.get("TORCH_COMPILE_DEBUG") == "1":
        notes.append(
            "TORCH_COMPILE_DEBUG=1 writes a torch_compile_debug directory of graphs, IR and generated code "
            "for every compilation (slower compiles, growing disk use)"
        )
        names.append("TORCH_COMPILE_DEBUG")
    if triton and env.get("TRITON_INTERPRET") in _TRUE and gpus:
        notes.append(
            "TRITON_INTERPRET runs every Triton kernel in the interpreter on the CPU although a GPU is "
            "present (orders of magnitude slower)"
        )
        names.append("TRITON_INTERPRET")
    fix = unset(*names)
    logs = env.get("TORCH_LOGS", "")
    verbose = per_step_torch_logs(logs) if torch else []
    if verbose:
        notes.append(
            f"TORCH_LOGS={logs} sets the torch.autograd log to DEBUG ({', '.join(verbose)}): torch hooks every "
            "node of every backward pass and logs a line for each ('Executing: <node> with grad_outputs: ...')"
        )
        names.append("TORCH_LOGS")
        fix += _torch_logs_without(logs, verbose)
    evidence: dict[str, str | int | None] = {"gpus": len(gpus)}
    evidence.update({v: env.get(v) for v in ("TORCH_COMPILE_DEBUG", "TRITON_INTERPRET", "TORCH_LOGS")})
    if notes:
        yield Outcome(
            Status.WARN,
            "Compiler debug switches are on: " + ", ".join(names),
            detail="; ".join(notes) + ".",
            evidence=evidence,
            fix=fix,
            refs=(INDUCTOR_CONFIG, TRITON_KNOBS) + ((TORCH_LOGGING, AUTOGRAD_GRAPH) if verbose else ()),
        )
        return
    yield Outcome(Status.OK, "No torch.compile or Triton debug switch is on", evidence=evidence)


@check(
    "torch-logs-invalid",
    "TORCH_LOGS that torch can parse",
    requires=(needs("torch"), env_present("TORCH_LOGS")),
    env=("TORCH_LOGS",),
)
def torch_logs_invalid(env: Mapping[str, str]) -> Iterator[Outcome]:
    """torch parses TORCH_LOGS at import; a value it cannot parse makes `import torch` itself fail."""
    value = env["TORCH_LOGS"]
    evidence = {"TORCH_LOGS": value}
    if value not in ("help", "+help") and _SETTINGS.fullmatch(value):
        yield Outcome(Status.OK, f"TORCH_LOGS={value} is a list of log names torch can parse", evidence=evidence)
        return
    if not value:
        why, error = " is set but empty", "AttributeError: 'dict' object has no attribute 'get_log_level_pairs'"
    elif value in ("help", "+help"):
        why, error = f"={value} asks for the list of log names", "ValueError: <the list of log names>"
    else:
        why, error = " is not a comma-separated list of log names", "ValueError: Invalid log settings: ..."
    yield Outcome(
        Status.FAIL,
        f"TORCH_LOGS{why}: `import torch` fails",
        detail=f'torch reads TORCH_LOGS at import and ends it with "{error}". Unset the variable, or give '
        "log names, e.g. TORCH_LOGS=recompiles.",
        evidence=evidence,
        fix=unset("TORCH_LOGS"),
        refs=(TORCH_LOGGING,),
    )
