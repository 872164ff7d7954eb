# What both workers of `xladoctor collective` share (the torch ranks' and JAX's processes): copied beside them into
# the run's private folder and imported from there. Stdlib only, Python 3.8+ syntax; it must not import xladoctor.


def cut(text, limit, tail=False):
    """At most `limit` characters, cut at white space: a token cut in two would escape the redaction later."""
    if len(text) <= limit:
        return text
    part = text[-limit:] if tail else text[:limit]
    edge = (
        min((i for i in (part.find(" "), part.find("\n")) if i >= 0), default=-1)
        if tail
        else max(part.rfind(" "), part.rfind("\n"))
    )
    return ("..." + part[edge + 1 :] if edge >= 0 else "...") if tail else (part[:edge] + "..." if edge > 0 else "...")


def median(values):
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def op_record(name, size_bytes, times, factor, check, world):
    """One collective's result: `check` is (ok, max_abs_err, first bad index, expected there, got there), `times`
    the timed iterations. nccl-tests doc/PERFORMANCE.md: algbw = S/t; busbw = algbw * 2(n-1)/n for AllReduce,
    (n-1)/n for AllGather (S the size of the whole gathered array), 1 for Broadcast."""
    t = median(times) if times else None
    algbw = size_bytes / t / 1e9 if t else None
    ok, worst, bad, want, got = check
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
        "max_abs_err": worst,
        "first_bad_index": bad,
        "expected": want,
        "got": got,
        "world_size": world,
    }
