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


def _cut(text, limit, tail=False):
    """At most `limit` characters, cut at white space: a token cut in two would escape the redaction later."""
    if len(text) <= limit:
        return text
    part = text[-limit:] if tail else text[:limit]
    edge = min((i for i in (part.find(" "), part.find("\n")) if i >= 0), default=-1) if tail else max(
        part.rfind(" "), part.rfind("\n"))
    return ("..." + part[edge + 1:] if edge >= 0 else "...") if tail else (part[:edge] + "..." if edge > 0 else "...")


def fail(phase, exc, code=1):
    RECORD["error"] = {
        "phase": phase,
        "type": type(exc).__name__,
        "message": _cut(str(exc), 4000),
        "traceback": _cut("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), 4000, True),
    }
    save("failed")
    sys.exit(code)


def median(values):
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def op_record(name, size_bytes, times, factor, got, want):
    # nccl-tests doc/PERFORMANCE.md: busbw = algbw * 2(n-1)/n (AllReduce), (n-1)/n (AllGather), 1 (Broadcast)
    import numpy as np

    t = median(times) if times else None
    algbw = size_bytes / t / 1e9 if t else None
    ok = want is None or (got.shape == want.shape and bool(np.array_equal(got, want)))
    bad = None
    if not ok and got.shape == want.shape:
        bad = (
            int(np.argwhere(got != want)[0][0]) if got.ndim == 1 else int(np.argwhere((got != want).reshape(-1))[0][0])
        )
    flat_got, flat_want = (got.reshape(-1), want.reshape(-1)) if want is not None else (None, None)
    return {
        "op": name,
        "ok": ok,
        "bytes": size_bytes,
        "iters": len(times),
        "median_s": t,
        "times_s": [round(x, 6) for x in times],
        "algbw_gbps": algbw,
        "busbw_gbps": algbw * factor if algbw is not None else None,
        "busbw_factor": factor,
        "first_bad_index": bad,
        "expected": float(flat_want[bad]) if bad is not None else None,
        "got": float(flat_got[bad]) if bad is not None else None,
        "max_abs_err": float(abs(got.astype("float64") - want.astype("float64")).max())
        if ok is False and got.shape == want.shape
        else (0.0 if ok else None),
        "world_size": COUNT,
    }


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
        RECORD["ops"].append(op_record("all_reduce", n * 4, times[1:], 2.0 * (world - 1) / world, result, want))
        m = max(1, n // COUNT)
        send = (np.arange(m) % 8 + PID * 8).astype(np.float32)
        times = [timed(lambda: multihost_utils.process_allgather(send)) for _ in range(ITERS + 1)]
        got = np.asarray(multihost_utils.process_allgather(send))
        want = np.stack([(np.arange(m) % 8 + k * 8).astype(np.float32) for k in range(COUNT)])
        RECORD["ops"].append(op_record("all_gather", m * 4 * COUNT, times[1:], (COUNT - 1) / COUNT, got, want))
        source = (np.arange(n) % 11 + 1000).astype(np.float32)
        value = source if PID == 0 else np.full(n, -1.0, dtype=np.float32)
        times = [timed(lambda: multihost_utils.broadcast_one_to_all(value)) for _ in range(ITERS + 1)]
        got = np.asarray(multihost_utils.broadcast_one_to_all(value))
        RECORD["ops"].append(op_record("broadcast", n * 4, times[1:], 1.0, got, source))
        times = [timed(lambda: multihost_utils.sync_global_devices("xladoctor")) for _ in range(ITERS + 1)]
        RECORD["ops"].append(op_record("barrier", 0, times[1:], 0.0, np.zeros(1), None))
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
