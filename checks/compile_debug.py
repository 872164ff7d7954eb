"""Area `compile`: torch.compile, Triton and CUDA debug switches left on.

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
CUDA Programming Guide, environment variables: CUDA_LAUNCH_BLOCKING takes "0 or 1 (default is 0)" and, set to 1,
disables asynchronous kernel launches; its section on asynchronous execution says so "for debugging purposes only".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import CudaRuntime, series_by_owner
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
CUDA_ENV_VARS = "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html"
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
    """torch.compile and Triton debug switches left on slow every step: `TORCH_COMPILE_DEBUG`, `TRITON_INTERPRET` on a
    GPU machine, a `TORCH_LOGS` that logs every backward pass (`+autograd`, `+all`, `+torch`)."""
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


@check("cuda-launch-blocking", "CUDA_LAUNCH_BLOCKING (synchronous kernel launches)", env=("CUDA_LAUNCH_BLOCKING",))
def cuda_launch_blocking(
    env: Mapping[str, str], gpus: tuple[Gpu, ...], cuda_runtimes: tuple[CudaRuntime, ...]
) -> Iterator[Outcome]:
    """CUDA_LAUNCH_BLOCKING=1 makes every kernel launch wait for the kernel to finish: a debugging switch that
    serialises the CPU and the GPU and slows training, wherever an NVIDIA GPU or a CUDA build would launch kernels."""
    value = env.get("CUDA_LAUNCH_BLOCKING")
    evidence = {"CUDA_LAUNCH_BLOCKING": value, "gpus": len(gpus), "cuda_runtimes": series_by_owner(cuda_runtimes)}
    if value is None or value == "0":
        state = "not set" if value is None else "0"
        yield Outcome(
            Status.OK, f"CUDA_LAUNCH_BLOCKING is {state}: kernel launches are asynchronous", evidence=evidence
        )
        return
    if not gpus and not cuda_runtimes:
        yield Outcome(
            Status.OK,
            f"CUDA_LAUNCH_BLOCKING={value} is set, but no NVIDIA GPU or CUDA build is here to launch kernels",
            evidence=evidence,
        )
        return
    where = f"{len(gpus)} NVIDIA GPU(s)" if gpus else "a CUDA build (" + ", ".join(series_by_owner(cuda_runtimes)) + ")"
    if value == "1":
        title = "CUDA_LAUNCH_BLOCKING=1 makes every CUDA kernel launch synchronous"
        what = (
            "each kernel launch waits until the kernel has finished, so the CPU can no longer queue work ahead of "
            "the GPU, and training slows down"
        )
    else:  # NVIDIA documents 0 and 1 only: what CUDA does with another value is not said
        title = f"CUDA_LAUNCH_BLOCKING={value} is not a value CUDA documents (0 or 1)"
        what = "it is unknown whether kernel launches are synchronous (with 1 each waits for its kernel to finish)"
    yield Outcome(
        Status.WARN,
        title,
        detail=f"With {where} here, {what}. CUDA provides this switch for debugging only. Unset it where it is set "
        "(the shell, a job script, or os.environ in a notebook or script) and restart the process that uses CUDA.",
        evidence=evidence,
        fix=unset("CUDA_LAUNCH_BLOCKING"),
        refs=(CUDA_ENV_VARS,),
    )
