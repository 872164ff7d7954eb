"""Area `compile`: torch.compile and Triton debug switches left on.

torch/_inductor/config.py (class trace): `enabled = os.environ.get("TORCH_COMPILE_DEBUG", "0") == "1"`,
the "master switch" that writes "a directory containing lots of debug information" for every compile.
triton/knobs.py: `interpret: env_bool = env_bool("TRITON_INTERPRET")` runs kernels in Triton's
interpreter on the CPU instead of compiling them for the GPU.
"""

from __future__ import annotations

from collections.abc import Iterator

from xladoctor.facts import Facts
from xladoctor.findings import Fix, Outcome, Status
from xladoctor.matrix import Matrix
from xladoctor.registry import any_installed, check

INDUCTOR_CONFIG = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/_inductor/config.py"
TRITON_KNOBS = "https://github.com/triton-lang/triton/blob/main/python/triton/knobs.py"
_TRUE = ("1", "true", "True", "yes", "on")


@check(
    "compile-debug-switches",
    area="compile",
    title="torch.compile and Triton debug switches",
    requires=(any_installed("torch", "triton"),),
)
def compile_debug_switches(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    gpus = facts.system.gpus if facts.system else ()
    notes, unset = [], []
    if facts.installed("torch") and facts.env.get("TORCH_COMPILE_DEBUG") == "1":
        notes.append(
            "TORCH_COMPILE_DEBUG=1 writes a torch_compile_debug directory of graphs, IR and generated code "
            "for every compilation (slower compiles, growing disk use)"
        )
        unset.append("TORCH_COMPILE_DEBUG")
    if facts.installed("triton") and facts.env.get("TRITON_INTERPRET") in _TRUE and gpus:
        notes.append(
            "TRITON_INTERPRET runs every Triton kernel in the interpreter on the CPU although a GPU is "
            "present (orders of magnitude slower)"
        )
        unset.append("TRITON_INTERPRET")
    evidence = {v: facts.env.get(v) for v in ("TORCH_COMPILE_DEBUG", "TRITON_INTERPRET")} | {"gpus": len(gpus)}
    if notes:
        yield Outcome(
            Status.WARN,
            "Compiler debug switches are on: " + ", ".join(unset),
            detail="; ".join(notes) + ".",
            evidence=evidence,
            fix=Fix(commands=tuple(f"unset {v}" for v in unset)),
            refs=(INDUCTOR_CONFIG, TRITON_KNOBS),
        )
        return
    yield Outcome(Status.OK, "No torch.compile or Triton debug switch is on", evidence=evidence)
