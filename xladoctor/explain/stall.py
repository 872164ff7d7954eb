"""A log that failed by stopping: when nothing in it is an error, its last words still say where the job was.

A distributed job whose log ends on its launcher's start-up lines ("Initializing distributed: GLOBAL_RANK: 0,
MEMBER: 1/2", DeepSpeed's "Initializing TorchBackend", torch's store-based barrier waiting) never got past the
rendezvous: it hangs there, and an issue pasted from it holds no error at all. So does a stack that ends inside
torch.distributed's process-group creation with no exception under it (a traceback cut there, or faulthandler's or
py-spy's dump of a hung rank). The lines are the launchers' own log calls (sources below); the verdict is a stop in
the rendezvous, with what to collect next. A log that ends on torch's own warning that it guessed the GPU of a
barrier stopped at that barrier: a hang whose first suspect is the rank-to-GPU mapping.
"""

from __future__ import annotations

import re

from xladoctor.explain.records import clean
from xladoctor.explain.verdict import Diagnosis
from xladoctor.sanitize import scrubbed_head

_PROFILE_THE_HANG = "xladoctor profile --stall-after 120 -- ...  # the stacks of every rank while it hangs"
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
    "(_store_based_barrier: 'Waiting in store based barrier'); https://docs.python.org/3/library/faulthandler.html "
    "(a hung process's stack, most recent call first)"
)


# torch.distributed's process-group creation, where ranks wait for each other
_RENDEZVOUS_FUNCTIONS = (
    r"init_process_group|new_group|_new_process_group_helper|_store_based_barrier|rendezvous|_create_c10d_store"
    r"|_env_rendezvous_handler|_tcp_rendezvous_handler|init_device_mesh"
)
# A frame there: Python's and faulthandler's ('File "...", line N[,] in f') and py-spy's ("f (file.py:N)")
_RENDEZVOUS_FRAME = re.compile(
    rf'File "[^"]*distributed[^"]*", line \d+,? in (?P<function>{_RENDEZVOUS_FUNCTIONS})\b'
    rf"|^(?P<spy>{_RENDEZVOUS_FUNCTIONS}) \([^)\n]*distributed[^)\n]*:\d+\)"
)
# faulthandler ("Thread 0x... (most recent call first):") and py-spy dump list the innermost frame first
_INNERMOST_FIRST = re.compile(r"most recent call first|^Thread 0x[0-9a-fA-F]+ \(\w+\)", re.MULTILINE)
_FRAME_LIKE = re.compile(r'^File "|^\w[\w.<>]* \([^)\n]*:\d+\)$')


def _innermost_of_a_dump(tail: str) -> tuple[int, str] | None:
    """A stack dumped innermost first, at the log's end: its first frame, with how far from the end it stands."""
    headers = list(_INNERMOST_FIRST.finditer(tail))
    if not headers:
        return None
    after = tail[headers[-1].end() :].split("\n")[1:]
    lines = [clean(text).strip() for text in after]
    for index, line in enumerate(lines):
        if _FRAME_LIKE.search(line):
            return len(lines) - 1 - index, line
    return None


def _last_lines(tail: str) -> list[tuple[int, str]]:
    """The last TAIL_LINES non-blank lines (prefixes taken off), each with how far from the end it stands."""
    found: list[tuple[int, str]] = []
    for offset, shown in enumerate(reversed(tail.splitlines())):
        line = clean(shown).strip()
        if line:
            found.append((offset, line))
            if len(found) == TAIL_LINES:
                break
    return found


def stalled_at_startup(tail: str, total_lines: int) -> Diagnosis | None:
    """The verdict for a log with no error whose last lines are a distributed launcher's start-up (or a stack in
    torch.distributed's process-group creation), else None."""
    innermost = _innermost_of_a_dump(tail)
    for offset, line in ([innermost] if innermost else []) + _last_lines(tail):
        frame = _RENDEZVOUS_FRAME.search(line)
        found = _STARTUP.search(line)
        if frame is not None:
            function = frame.group("function") or frame.group("spy")
            where = f"inside torch.distributed's {function}()"
            params = {"function": function}
            world = ""
        elif found is not None and not found.group("cdb"):  # DeepSpeed's "cdb=None" goes around its line: not alone
            world = found.group("world") or ""
            who = (
                "Lightning's process group" if found.group("lightning")
                else "DeepSpeed's process group" if found.group("deepspeed")
                else "torch's store-based barrier"
            )  # fmt: skip
            where = f"while {who} starts up"
            params = {"world_size": world, "backend": found.group("backend") or ""}
        else:
            continue
        return Diagnosis(
            "environment", "nccl-network",
            f"The log ends {where} ({scrubbed_head(line, 160)}), with no error after it: the job stopped in the "
            "rendezvous, where the ranks meet (it hangs there, or the paste was cut before the error it raised). "
            "Every rank must reach "
            "MASTER_ADDR:MASTER_PORT and every rank must start: a rank that cannot connect (a hostname that resolves "
            "to another interface or to localhost, a firewall, a port another job holds; on Windows a hostname "
            "rendezvous, use init_method='tcp://localhost:PORT' or MASTER_ADDR=localhost), or fewer processes than "
            "the world size" + (f" ({world} here)" if world else "") + ", keeps the others waiting. Set the "
            "interface (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME) and check the address and port the ranks were given.",
            0.4, max(total_lines - offset, 1), scrubbed_head(line, 500), "stall:startup", params,
            next=(
                "TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_DEBUG=INFO torchrun ...  # each rank's rendezvous and NCCL setup",
                _PROFILE_THE_HANG,
            ),
            source=SOURCES,
        )  # fmt: skip
    return None


# ProcessGroupNCCL's warning when a barrier (or the first collective) runs before any tensor told it which GPU this
# rank uses: it guesses rank % GPUs ("Rank 3 using best-guess GPU 3 to perform barrier as devices used by this process
# are currently unknown" in torch 2.0-2.1; "using GPU 3 to perform barrier as devices ..." from 2.2; "using GPU 3 as
# device used by this process is currently unknown" from 2.6, each followed by "This can potentially cause a hang if
# this rank to GPU mapping is incorrect"). Every rank prints it, so a log that ends on it stopped at that barrier.
_BARRIER_GUESS = re.compile(
    r"using (?:best-guess )?GPU ?(?P<gpu>\d*) (?:to perform barrier as devices used by this process are|as device used "
    r"by this process is) currently unknown"
)
BARRIER_SOURCE = (
    "https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (barrier() and "
    "guessDeviceId(): the bound device_id, else a GPU already used, else rank % GPUs; 'using GPU ... currently "
    "unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect')"
)


def stalled_at_first_barrier(tail: str, total_lines: int) -> Diagnosis | None:
    """The verdict for a log with no error whose last lines are ProcessGroupNCCL's guess of this rank's GPU for a
    barrier: the job hangs there (the guess is wrong, or a rank never reached the barrier)."""
    last = _last_lines(tail)
    if not last:
        return None
    offset, line = last[0]  # every rank prints it: the log's very last line, or the job went on past it
    found = _BARRIER_GUESS.search(line)
    if found is None:
        return None
    guess = found.group(0).removesuffix(" currently unknown")
    return Diagnosis(
        "unknown", "hang-timeout",
        f"The log ends on torch's warning that a barrier ran before this rank said which GPU it uses (\"{guess}"
        " currently unknown\"), with no error after it: the job stopped at that barrier. With no device bound to "
        "the process group and none used yet, torch guesses the rank modulo the GPUs per node, which hangs when "
        "that is not the GPU the rank uses (torch.cuda.set_device does not change the guess). Bind it: "
        "init_process_group(..., device_id=torch.device('cuda', local_rank)), or barrier(device_ids=[local_rank]). "
        "If every rank's GPU is right, a rank that never reached the barrier (or a network NCCL cannot use) keeps "
        "the others waiting: NCCL_DEBUG=INFO shows the last step each rank reached.",
        0.5, max(total_lines - offset, 1), scrubbed_head(line, 500), "stall:barrier-device-unknown",
        {"gpu": found.group("gpu") or "?", "option": "device_id", "function": "init_process_group"},
        next=(
            "NCCL_DEBUG=INFO TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun ...  # each rank's device and NCCL setup",
            _PROFILE_THE_HANG,
        ),
        source=BARRIER_SOURCE,
    )  # fmt: skip


# nccl-tests' and rccl-tests' own output (src/common.cu): a header ("# nThread 1 nGpus 1 minBytes ...", "# Using
# devices", one "#  Rank  0 ... Pid ... on HOST device 0 ..." line per rank), the table's column names, then one row
# per size and "# Avg bus bandwidth" at the end. With NCCL_DEBUG=INFO, NCCL's own "NCCL INFO" lines come between.
_TEST_HEADER = re.compile(r"^#\s*(?:nThread \d+ nGpus \d+|Using devices)|^rccl-tests: Version", re.MULTILINE)
_TEST_LINE = re.compile(
    r"^#|^rccl-tests: Version|[NR]CCL INFO|^\$ \S*(?:all_reduce|all_gather|reduce_scatter|alltoall|sendrecv|broadcast"
    r"|reduce)_perf\b"
)
_TEST_ROW = re.compile(r"^\s*\d+\s+\d+\s+\w+\s+\w+\s+-?\d+\s+[\d.]+", re.MULTILINE)
_TEST_END = re.compile(r"^# Avg bus bandwidth", re.MULTILINE)
TEST_SOURCE = "https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu (the header, the table, its rows)"


def stalled_in_collective_test(tail: str, total_lines: int) -> Diagnosis | None:
    """The verdict for an nccl-tests/rccl-tests log that ends before its first result: its ranks started and never
    finished the first collective (or NCCL's communicator never came up), with no error."""
    if not _TEST_HEADER.search(tail) or _TEST_ROW.search(tail) or _TEST_END.search(tail):
        return None
    last = _last_lines(tail)
    if not last or not all(_TEST_LINE.search(line) for _, line in last):
        return None
    offset, line = last[0]
    return Diagnosis(
        "unknown", "hang-timeout",
        "The collective test ends before its first result, with no error: its ranks started and the first "
        "collective (or NCCL's communicator creation before it) never finished: a hang between the GPUs or the "
        "nodes (peer-to-peer between GPUs the IOMMU or ACS blocks, a network NCCL picked that does not connect, a "
        "rank that never started). NCCL_DEBUG=INFO shows the last step each rank reached; NCCL_P2P_DISABLE=1 or "
        "NCCL_IB_DISABLE=1 for one run tells whether that path is the one.",
        0.4, max(total_lines - offset, 1), scrubbed_head(line, 500), "stall:collective-test", {},
        next=(
            "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,NET ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2",
            "nvidia-smi topo -m  # how the GPUs connect",
            "xladoctor collective  # the same test, run and timed by xladoctor",
        ),
        source=TEST_SOURCE,
    )  # fmt: skip
