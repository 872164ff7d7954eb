# One rank of `xladoctor collective`, run by the target's torchrun (or directly as one rank of a launcher's job).
# Stdlib and torch only, Python 3.8+ syntax; it must not import xladoctor. Everything it learns goes into
# rank-<RANK>.json in XLADOCTOR_COLLECTIVE_OUT, rewritten (atomically) after every phase, so a rank that crashes,
# hangs or is killed leaves the phase it reached and the error it met.
#
# Phases: import torch -> connect to the rendezvous store -> hello (every rank writes its host and its view of the
# world; rank 0 names the ranks that never say hello and tells the others to stop, so a missing rank is reported
# within the timeout instead of hanging init_process_group) -> init_process_group (gloo) -> the collectives on each
# backend, checked numerically and timed -> gather every rank's record and its node's facts to rank 0 through the
# process group (gather_object) -> a final barrier.
import datetime
import json
import os
import socket
import sys
import time
import traceback

# The module both workers share is copied beside this one; its folder is put first on the path because PYTHONSAFEPATH
# (Python 3.11+), which the job's environment may set, keeps the script's own folder off it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _xladoctor_collective_common import cut, op_record  # noqa: E402

OUT = os.environ.get("XLADOCTOR_COLLECTIVE_OUT", ".")
DEADLINE = float(os.environ.get("XLADOCTOR_COLLECTIVE_DEADLINE") or time.time() + 120)
JOIN_DEADLINE = float(os.environ.get("XLADOCTOR_COLLECTIVE_JOIN_DEADLINE") or DEADLINE - 10)
BACKENDS = [b for b in os.environ.get("XLADOCTOR_COLLECTIVE_BACKENDS", "gloo").split(",") if b]
ELEMENTS = int(os.environ.get("XLADOCTOR_COLLECTIVE_ELEMENTS") or (1 << 20))
ITERS = max(1, int(os.environ.get("XLADOCTOR_COLLECTIVE_ITERS") or 5))
FACTS = os.environ.get("XLADOCTOR_COLLECTIVE_FACTS")
PREFIX = "xladoctor-collective/" + os.environ.get("XLADOCTOR_COLLECTIVE_RUN", "run")
# Variables worth showing per rank; every one names a setting, none holds a credential.
ENV_NAMES = (
    "MASTER_ADDR",
    "MASTER_PORT",
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "TORCHELASTIC_RUN_ID",
    "TORCHELASTIC_USE_AGENT_STORE",
    "GLOO_SOCKET_IFNAME",
    "NCCL_SOCKET_IFNAME",
    "NCCL_IB_DISABLE",
    "NCCL_P2P_DISABLE",
    "NCCL_NET",
    "CUDA_VISIBLE_DEVICES",
    "PJRT_DEVICE",
    "CPU_NUM_DEVICES",
    "TPU_WORKER_ID",
    "TPU_WORKER_HOSTNAMES",
    "CLOUD_TPU_TASK_ID",
    "TPU_ACCELERATOR_TYPE",
    "TPU_PROCESS_BOUNDS",
    "TPU_HOST_BOUNDS",
    "TPU_CHIPS_PER_PROCESS_BOUNDS",
    "TPU_CHIPS_PER_HOST_BOUNDS",
    "TPU_SKIP_MDS_QUERY",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "SLURM_STEP_NUM_NODES",
)


def _int(name, default=None):
    value = os.environ.get(name, "")
    try:
        return int(value)
    except ValueError:
        return default


RANK = _int("RANK", 0)
WORLD = _int("WORLD_SIZE", 1)
LOCAL_RANK = _int("LOCAL_RANK", 0)
RECORD = {
    "rank": RANK,
    "world_size": WORLD,
    "local_rank": LOCAL_RANK,
    "local_world_size": _int("LOCAL_WORLD_SIZE"),
    "node_rank": _int("GROUP_RANK", _int("XLADOCTOR_COLLECTIVE_NODE")),
    "unit": _int("XLADOCTOR_COLLECTIVE_UNIT", _int("GROUP_RANK", 0)),
    "host": socket.gethostname(),
    "pid": os.getpid(),
    "master": "%s:%s" % (os.environ.get("MASTER_ADDR", ""), os.environ.get("MASTER_PORT", "")),
    "agent_store": os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True",
    "env": {n: os.environ[n] for n in ENV_NAMES if n in os.environ},
    "versions": {"python": "%d.%d.%d" % sys.version_info[:3]},
    "phase": "start",
    "phases": {},
    "error": None,
    "hello": None,
    "backends": [],
    "started_at": time.time(),
}
_STARTED = time.perf_counter()


def remaining(deadline=None):
    return max(1.0, (deadline or DEADLINE) - time.time())


def save(phase=None):
    if phase is not None:
        RECORD["phase"] = phase
        RECORD["phases"][phase] = round(time.perf_counter() - _STARTED, 3)
    path = os.path.join(OUT, "rank-%d.json" % RANK)
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(RECORD, handle, default=str)
    os.replace(tmp, path)


def error_of(exc):
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {"type": type(exc).__name__, "message": cut(str(exc), 4000), "traceback": cut("".join(lines), 4000, True)}


def fail(phase, exc, code=1):
    RECORD["error"] = dict(error_of(exc), phase=phase)
    save("failed")
    sys.exit(code)


# ---- the collectives: values chosen so that a wrong, missing or misplaced element is seen ----------------------


def pattern(torch, n, device, scale, period, offset=0.0):
    index = (torch.arange(n, dtype=torch.int64, device=device) % period).to(torch.float32)
    return (index + 1) * scale + offset


def contribution(rank):
    """What rank `rank` adds in all_reduce (times 1 + i % 7): 1 to 8, so that a missing or doubled rank shows, and
    the sum stays an integer float32 holds exactly (below 2**24) up to ~530,000 ranks; with rank + 1 the sum,
    W(W+1)/2 * 7, passes 2**24 at ~2,190 ranks and a correct result would be reported wrong."""
    return float(rank % 8 + 1)


def reduced(world):
    """The sum of every rank's contribution in a world of `world` ranks."""
    full, rest = divmod(world, 8)
    return 36.0 * full + rest * (rest + 1) / 2.0


def compare(torch, got, expected):
    """(ok, max_abs_err, first bad index, expected there, got there): exact, the values are small integers."""
    diff = (got.double() - expected.double()).abs()
    worst = float(diff.max().item()) if diff.numel() else 0.0
    if worst == 0.0:
        return True, 0.0, None, None, None
    bad = int(torch.nonzero(diff > 0)[0].item())
    return False, worst, bad, float(expected[bad].item()), float(got[bad].item())


def timed(fn, sync):
    sync()
    start = time.perf_counter()
    fn()
    sync()
    return time.perf_counter() - start


def run_suite(torch, dist, backend, device, group, world, sync, job_world):
    """all_reduce, all_gather, broadcast and barrier on one group; each checked against the job's world size."""
    rank = dist.get_rank(group)
    n = ELEMENTS
    ops = []
    # all_reduce: rank r holds contribution(r) * (1 + i % 7), so the sum is reduced(W) * (1 + i % 7) for the job's W.
    mine = pattern(torch, n, device, contribution(rank), 7)
    expected = pattern(torch, n, device, reduced(job_world), 7)
    times = []
    for _ in range(ITERS + 1):
        buf = mine.clone()  # a fresh tensor each time: torch_xla may donate the buffer of an in-place op
        times.append(timed(lambda: dist.all_reduce(buf, group=group), sync))
    ops.append(
        op_record(
            "all_reduce",
            n * 4,
            times[1:],
            2.0 * (world - 1) / world if world else 0,
            compare(torch, buf, expected),
            world,
        )
    )
    # all_gather: rank r sends r * 8 + (i % 8); slot k must hold k * 8 + (i % 8). Per-rank size n // W keeps the
    # gathered array at about n elements, whatever the world size.
    m = max(1, n // max(1, job_world))
    send = pattern(torch, m, device, 1.0, 8, offset=rank * 8.0 - 1.0)
    slots = [torch.zeros(m, dtype=torch.float32, device=device) for _ in range(world)]
    times = [timed(lambda: dist.all_gather(slots, send, group=group), sync) for _ in range(ITERS + 1)]
    gathered = torch.cat(slots) if slots else torch.zeros(0)
    want = torch.cat([pattern(torch, m, device, 1.0, 8, offset=k * 8.0 - 1.0) for k in range(job_world)])
    # a group smaller than the job (torch_xla on one process) gathers fewer slots: the sizes say it
    check = (
        compare(torch, gathered, want)
        if gathered.numel() == want.numel()
        else (False, None, None, float(want.numel()), float(gathered.numel()))
    )
    ops.append(op_record("all_gather", m * 4 * world, times[1:], (world - 1) / world if world else 0, check, world))
    # broadcast from rank 0: 1000 + (i % 11) everywhere afterwards.
    source = pattern(torch, n, device, 1.0, 11, offset=999.0)
    times = []
    for _ in range(ITERS + 1):
        buf = source.clone() if rank == 0 else torch.full((n,), -1.0, dtype=torch.float32, device=device)
        times.append(timed(lambda: dist.broadcast(buf, src=0, group=group), sync))
    ops.append(op_record("broadcast", n * 4, times[1:], 1.0, compare(torch, buf, source), world))
    # barrier: timed only
    kwargs = {"device_ids": [device.index]} if backend == "nccl" and device.index is not None else {}
    times = [timed(lambda: dist.barrier(group=group, **kwargs), sync) for _ in range(ITERS + 1)]
    ops.append(op_record("barrier", 0, times[1:], 0.0, (True, 0.0, None, None, None), world))
    return ops


def backend_entry(backend, device):
    entry = {
        "backend": backend,
        "device": str(device),
        "world_size": None,
        "rank": None,
        "init_s": None,
        "ops": [],
        "error": None,
    }
    RECORD["backends"].append(entry)
    return entry


def run_backend(torch, dist, backend, job_world):
    """The suite on gloo (the default group) or NCCL (a new group over it); errors are recorded, not raised."""
    device = torch.device("cpu")
    if backend == "nccl":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        device = torch.device("cuda", LOCAL_RANK % count) if count else torch.device("cpu")
    entry = backend_entry(backend, device)
    save("backend-" + backend)
    try:
        started = time.perf_counter()
        if backend == "gloo":
            group = None
            sync = lambda: None  # noqa: E731
        else:
            if device.type != "cuda":
                raise RuntimeError("NCCL needs a CUDA device, and torch.cuda sees none on this rank")
            torch.cuda.set_device(device)
            entry["device_name"] = torch.cuda.get_device_name(device)
            group = dist.new_group(backend="nccl", timeout=datetime.timedelta(seconds=remaining()))
            sync = lambda: torch.cuda.synchronize(device)  # noqa: E731
            dist.barrier(group=group, device_ids=[device.index])  # NCCL creates its communicator lazily
        entry["init_s"] = round(time.perf_counter() - started, 4)
        entry["world_size"] = dist.get_world_size(group)
        entry["rank"] = dist.get_rank(group)
        entry["ops"] = run_suite(torch, dist, backend, device, group, entry["world_size"], sync, job_world)
    except Exception as exc:  # recorded per backend: gloo may pass where NCCL fails
        entry["error"] = error_of(exc)
    save()


def xla_step(torch_xla):
    """What each timing waits on: the pending graph launched and finished. torch_xla.sync() only launches it
    (torch_xla.py v2.9.0: wait=False by default), and on PJRT CPU even sync(wait=True) came back before the execution
    ended (measured: 0.6 ms, then 280 ms in xm.wait_device_ops() for a graph of six 2000x2000 matmuls)."""
    xm = __import__("torch_xla.core.xla_model", fromlist=["x"])
    launch = getattr(torch_xla, "sync", None) or xm.mark_step

    def step():
        launch()
        xm.wait_device_ops()

    return step


def run_xla(torch, dist, job_world):
    """torch_xla's own process group (init_method xla://), as a torch_xla user starts it under torchrun."""
    entry = backend_entry("xla", "xla")
    save("backend-xla")
    try:
        started = time.perf_counter()
        import torch_xla
        import torch_xla.distributed.xla_backend  # noqa: F401  (registers the "xla" backend)

        RECORD["versions"]["torch_xla"] = getattr(torch_xla, "__version__", None)
        entry["pjrt_device"] = os.environ.get("PJRT_DEVICE")
        dist.init_process_group("xla", init_method="xla://", timeout=datetime.timedelta(seconds=remaining()))
        device = (
            torch_xla.device()
            if hasattr(torch_xla, "device")
            else __import__("torch_xla.core.xla_model", fromlist=["x"]).xla_device()
        )
        entry["device"] = str(device)
        entry["init_s"] = round(time.perf_counter() - started, 4)
        entry["world_size"] = dist.get_world_size()
        entry["rank"] = dist.get_rank()
        entry["ops"] = run_suite(torch, dist, "xla", device, None, entry["world_size"], xla_step(torch_xla), job_world)
    except Exception as exc:
        entry["error"] = error_of(exc)
    finally:
        try:
            dist.destroy_process_group()
        except Exception:
            pass
    save()


# ---- the rendezvous store and the hello ----------------------------------------------------------------------


def connect(dist):
    """The store every phase uses: torchrun's agent store (as a client), or rank 0's own TCPStore."""
    host, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    timeout = datetime.timedelta(seconds=remaining())
    if RECORD["agent_store"]:
        store = dist.TCPStore(host, port, None, False, timeout)
    else:
        store = dist.TCPStore(host, port, WORLD, RANK == 0, timeout, wait_for_workers=False)
    return dist.PrefixStore(PREFIX, store)


def hello(store):
    """Every rank says who it is; rank 0 waits for all until the join deadline and gives the verdict."""
    mine = {
        "rank": RANK,
        "host": RECORD["host"],
        "pid": RECORD["pid"],
        "node_rank": RECORD["node_rank"],
        "world_size": WORLD,
        "local_rank": LOCAL_RANK,
        "at": time.time(),
    }
    store.set("hello/%d" % RANK, json.dumps(mine))
    store.add("hello-count", 1)
    if RANK != 0:
        store.wait(["verdict"], datetime.timedelta(seconds=remaining()))
        verdict = json.loads(store.get("verdict").decode())
        RECORD["hello"] = {"verdict": verdict}
        return verdict
    started = time.time()
    while store.add("hello-count", 0) < WORLD and time.time() < JOIN_DEADLINE:
        time.sleep(0.1)
    seen = {}
    missing = []
    for rank in range(WORLD):
        key = "hello/%d" % rank
        if store.check([key]):
            seen[rank] = json.loads(store.get(key).decode())
        else:
            missing.append(rank)
    verdict = {
        "go": not missing,
        "missing": missing,
        "waited_s": round(time.time() - started, 3),
        "waited_on": RECORD["host"],
    }
    RECORD["hello"] = {"verdict": verdict, "seen": seen}
    store.set("verdict", json.dumps(verdict))
    return verdict


def versions(torch):
    found = RECORD["versions"]
    found["torch"] = torch.__version__
    found["cuda"] = getattr(torch.version, "cuda", None)
    try:
        nccl = torch.cuda.nccl.version() if torch.cuda.is_available() else None
        found["nccl"] = ".".join(str(x) for x in nccl) if isinstance(nccl, tuple) else nccl
    except Exception:
        found["nccl"] = None
    found["cuda_devices"] = torch.cuda.device_count() if torch.cuda.is_available() else 0


def read_facts():
    """This node's snapshot, sent by its local rank 0 only (one per node is enough, and it is the large part)."""
    if not FACTS or LOCAL_RANK != 0:
        return None
    try:
        with open(FACTS) as handle:
            return handle.read()
    except OSError as exc:
        RECORD["facts_error"] = str(exc)
        return None


def main():
    save("import")
    try:
        import torch
        import torch.distributed as dist
    except BaseException as exc:
        fail("import", exc, 3)
    versions(torch)
    save("store")
    try:
        store = connect(dist)
    except Exception as exc:
        fail("store", exc)
    save("hello")
    try:
        verdict = hello(store)
    except Exception as exc:
        fail("hello", exc)
    if not verdict.get("go"):
        save("stopped")
        sys.exit(1)
    save("init")
    try:
        started = time.perf_counter()
        dist.init_process_group(
            "gloo",
            store=dist.PrefixStore("pg", store),
            rank=RANK,
            world_size=WORLD,
            timeout=datetime.timedelta(seconds=remaining()),
        )
        RECORD["init_s"] = round(time.perf_counter() - started, 4)
    except Exception as exc:
        fail("init", exc)
    for backend in BACKENDS:
        if backend in ("gloo", "nccl"):
            run_backend(torch, dist, backend, WORLD)
    if "xla" in BACKENDS:
        # torch_xla's group is a default group of its own: the gloo one goes first, and comes back for the gather
        dist.destroy_process_group()
        run_xla(torch, dist, WORLD)
        dist.init_process_group(
            "gloo",
            store=dist.PrefixStore("pg-final", store),
            rank=RANK,
            world_size=WORLD,
            timeout=datetime.timedelta(seconds=remaining()),
        )
    save("gather")
    try:
        payload = {"record": {k: v for k, v in RECORD.items() if k != "gathered"}, "facts": read_facts()}
        everyone = [None] * WORLD if RANK == 0 else None
        started = time.perf_counter()
        dist.gather_object(payload, everyone, dst=0)
        RECORD["gather_s"] = round(time.perf_counter() - started, 4)
        if RANK == 0:
            RECORD["gathered"] = everyone
        dist.barrier()
        dist.destroy_process_group()
    except Exception as exc:
        fail("gather", exc)
    save("done")
    failed = any(b["error"] or not all(op["ok"] for op in b["ops"]) for b in RECORD["backends"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException as exc:  # a bug of this script: recorded as such
        fail(RECORD.get("phase", "start"), exc, 3)
