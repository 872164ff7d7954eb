# One process of `xladoctor collective`'s JAX phase (stdlib, numpy and jax only; Python 3.8+ syntax; it must not
# import xladoctor). jax.distributed.initialize with the coordinator on node 0, then a sum, an all-gather, a
# broadcast from process 0 and a barrier across every process, each checked numerically and timed. On CPU, JAX
# uses gloo for cross-process collectives (jax/_src/config.py, jax 0.10.2: jax_cpu_collectives_implementation
# defaults to "gloo"). Its record goes to jax-<ID>.json in XLADOCTOR_COLLECTIVE_OUT, rewritten after each phase.
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
ELEMENTS = int(os.environ.get("XLADOCTOR_COLLECTIVE_ELEMENTS") or (1 << 20))
ITERS = max(1, int(os.environ.get("XLADOCTOR_COLLECTIVE_ITERS") or 5))
PID = int(os.environ["XLADOCTOR_JAX_PROCESS_ID"])
COUNT = int(os.environ["XLADOCTOR_JAX_PROCESS_COUNT"])
COORDINATOR = os.environ["XLADOCTOR_JAX_COORDINATOR"]
RECORD = {
    "process_id": PID,
    "process_count": COUNT,
    "coordinator": COORDINATOR,
    "host": socket.gethostname(),
    "pid": os.getpid(),
    "unit": int(os.environ.get("XLADOCTOR_COLLECTIVE_UNIT") or 0),
    "phase": "start",
    "phases": {},
    "error": None,
    "versions": {"python": "%d.%d.%d" % sys.version_info[:3]},
    "ops": [],
}
_STARTED = time.perf_counter()


def save(phase=None):
    if phase is not None:
        RECORD["phase"] = phase
        RECORD["phases"][phase] = round(time.perf_counter() - _STARTED, 3)
    path = os.path.join(OUT, "jax-%d.json" % PID)
    with open(path + ".tmp", "w") as handle:
        json.dump(RECORD, handle, default=str)
    os.replace(path + ".tmp", path)


def fail(phase, exc, code=1):
    RECORD["error"] = {
        "phase": phase,
        "type": type(exc).__name__,
        "message": cut(str(exc), 4000),
        "traceback": cut("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), 4000, True),
    }
    save("failed")
    sys.exit(code)


def compare(got, want):
    """(ok, max_abs_err, first bad index, expected there, got there), as the torch worker's compare() gives them;
    `want` None: nothing to compare (the barrier). Arrays of another shape are wrong, with no index to name."""
    import numpy as np

    if want is None:
        return True, 0.0, None, None, None
    if got.shape != want.shape:
        return False, None, None, None, None
    if np.array_equal(got, want):
        return True, 0.0, None, None, None
    flat_got, flat_want = got.reshape(-1), want.reshape(-1)
    bad = int(np.argwhere(flat_got != flat_want)[0][0])
    worst = float(abs(got.astype("float64") - want.astype("float64")).max())
    return False, worst, bad, float(flat_want[bad]), float(flat_got[bad])


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    save("import")
    try:
        import jax
        import numpy as np
        from jax.experimental import multihost_utils
    except BaseException as exc:
        fail("import", exc, 3)
    RECORD["versions"].update(jax=jax.__version__, jaxlib=getattr(__import__("jaxlib"), "__version__", None))
    save("init")
    try:
        started = time.perf_counter()
        jax.distributed.initialize(
            COORDINATOR,
            num_processes=COUNT,
            process_id=PID,
            initialization_timeout=max(5, int(DEADLINE - time.time() - 5)),
        )
        RECORD["init_s"] = round(time.perf_counter() - started, 4)
        RECORD["backend"] = jax.default_backend()
        RECORD["device_count"] = jax.device_count()
        RECORD["local_device_count"] = jax.local_device_count()
        RECORD["jax_process_count"] = jax.process_count()
    except Exception as exc:
        fail("init", exc)
    save("collectives")
    try:
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        n = ELEMENTS
        local = jax.local_device_count()
        pattern7 = (np.arange(n) % 7 + 1).astype(np.float32)
        # process p adds (p % 8 + 1): the sum stays exact in float32 for any job (the torch worker's contribution())
        mine = np.stack([pattern7 * (PID % 8 + 1)] * local)
        mesh = Mesh(np.array(jax.devices()), ("i",))
        sharded = jax.make_array_from_process_local_data(NamedSharding(mesh, PartitionSpec("i")), mine)
        total = jax.jit(lambda a: a.sum(axis=0), out_shardings=NamedSharding(mesh, PartitionSpec()))
        result = None
        times = []
        for _ in range(ITERS + 1):
            times.append(timed(lambda: total(sharded).block_until_ready()))
        result = np.asarray(total(sharded).addressable_data(0))
        full, rest = divmod(COUNT, 8)
        want = pattern7 * (local * (36.0 * full + rest * (rest + 1) / 2.0))
        world = jax.device_count()
        factor = 2.0 * (world - 1) / world
        RECORD["ops"].append(op_record("all_reduce", n * 4, times[1:], factor, compare(result, want), COUNT))
        m = max(1, n // COUNT)
        send = (np.arange(m) % 8 + PID * 8).astype(np.float32)
        times = [timed(lambda: multihost_utils.process_allgather(send)) for _ in range(ITERS + 1)]
        got = np.asarray(multihost_utils.process_allgather(send))
        want = np.stack([(np.arange(m) % 8 + k * 8).astype(np.float32) for k in range(COUNT)])
        factor = (COUNT - 1) / COUNT
        RECORD["ops"].append(op_record("all_gather", m * 4 * COUNT, times[1:], factor, compare(got, want), COUNT))
        source = (np.arange(n) % 11 + 1000).astype(np.float32)
        value = source if PID == 0 else np.full(n, -1.0, dtype=np.float32)
        times = [timed(lambda: multihost_utils.broadcast_one_to_all(value)) for _ in range(ITERS + 1)]
        got = np.asarray(multihost_utils.broadcast_one_to_all(value))
        RECORD["ops"].append(op_record("broadcast", n * 4, times[1:], 1.0, compare(got, source), COUNT))
        times = [timed(lambda: multihost_utils.sync_global_devices("xladoctor")) for _ in range(ITERS + 1)]
        RECORD["ops"].append(op_record("barrier", 0, times[1:], 0.0, compare(np.zeros(1), None), COUNT))
    except Exception as exc:
        fail("collectives", exc)
    save("done")
    try:
        jax.distributed.shutdown()
    except Exception:
        pass
    sys.exit(0 if all(op["ok"] for op in RECORD["ops"]) else 1)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException as exc:
        fail(RECORD.get("phase", "start"), exc, 3)
