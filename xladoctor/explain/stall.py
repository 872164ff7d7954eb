"""A log that failed by stopping: when nothing in it is an error, its last words still say where the job was.

A distributed job whose log ends on its launcher's start-up lines ("Initializing distributed: GLOBAL_RANK: 0,
MEMBER: 1/2", DeepSpeed's "Initializing TorchBackend", torch's store-based barrier waiting) never got past the
rendezvous: it hangs there, and an issue pasted from it holds no error at all. The lines are the launchers' own
log calls (sources below); the verdict is a hang at the rendezvous, with what to collect next.
"""

from __future__ import annotations

import re

from xladoctor.explain.records import clean
from xladoctor.explain.verdict import Diagnosis

TAIL_LINES = 4  # how close to the end the start-up line must be: a log that goes on past it did not stop there

# Each launcher's start-up line, as its source logs it
_STARTUP = re.compile(
    r"(?P<lightning>[Ii]nitializing distributed: GLOBAL_RANK: (?P<rank>\d+), MEMBER: \d+/(?P<world>\d+))"
    r"|(?P<deepspeed>Initializing TorchBackend in DeepSpeed with backend (?P<backend>\w+))"
    r"|(?P<barrier>Waiting in store based barrier to initialize process group for rank: (?P<brank>\d+))"
    r"|(?P<cdb>\[comm\.py:\d+:init_distributed\] cdb=None)"
)
SOURCES = (
    "https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/fabric/utilities/distributed.py "
    "(_init_dist_connection: 'Initializing distributed: GLOBAL_RANK'); "
    "https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/comm/comm.py (init_distributed: 'Initializing "
    "TorchBackend in DeepSpeed'); https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py "
    "(_store_based_barrier: 'Waiting in store based barrier')"
)


def stalled_at_startup(tail: str, total_lines: int) -> Diagnosis | None:
    """The verdict for a log with no error whose last lines are a distributed launcher's start-up, else None."""
    raw = tail.splitlines()
    seen = 0
    for offset, shown in enumerate(reversed(raw)):
        line = clean(shown).strip()
        if not line:
            continue
        seen += 1
        if seen > TAIL_LINES:
            return None
        found = _STARTUP.search(line)
        if found is None or found.group("cdb"):
            continue  # DeepSpeed's "cdb=None" comes before and after its start-up line: never alone
        world = found.group("world")
        who = (
            "Lightning's process group" if found.group("lightning")
            else "DeepSpeed's process group" if found.group("deepspeed")
            else "torch's store-based barrier"
        )  # fmt: skip
        return Diagnosis(
            "environment", "nccl-network",
            f"The log ends while {who} starts up ({line[:160]}): nothing failed, the job stopped there, which is a "
            "hang in the rendezvous. Every rank must reach MASTER_ADDR:MASTER_PORT and every rank must start: a "
            "rank that cannot connect (a hostname that resolves to another interface, a firewall, a port another job "
            "holds; on Windows a hostname rendezvous, use init_method='tcp://localhost:PORT' or MASTER_ADDR=localhost"
            "), or fewer processes than the world size"
            + (f" ({world} here)" if world else "")
            + ", keeps the others waiting. Set the interface (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME) and check "
            "the address and port the ranks were given.",
            0.4, max(total_lines - offset, 1), line[:500], "stall:startup",
            {"world_size": world or "", "backend": found.group("backend") or ""},
            next=(
                "TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_DEBUG=INFO torchrun ...  # each rank's rendezvous and NCCL setup",
                "xladoctor profile --stall-after 120 -- ...  # the stacks of every rank while it hangs",
            ),
            source=SOURCES,
        )  # fmt: skip
    return None
