# Prepended to every smoke script. Stdlib only, Python 3.8+ syntax: it runs inside the target interpreter.
# Each record is one line, "<marker> <json>", printed and flushed at once, so the records written before a
# crash (a segfault in the GPU half, say) survive it.
import faulthandler
import json
import os
import sys
import time
import traceback

MARKER = sys.argv[1]
ARGS = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
if ARGS.get("hang_dump_s"):  # a hang is reported with the Python line it hangs on, just before the kill
    faulthandler.dump_traceback_later(ARGS["hang_dump_s"], exit=False)


_last = [time.perf_counter()]


def emit(**record):
    # elapsed_s: since the previous record (the first one includes the framework import, as a user pays it)
    now = time.perf_counter()
    record.setdefault("elapsed_s", round(now - _last[0], 3))
    _last[0] = now
    sys.stdout.write("\n%s %s\n" % (MARKER, json.dumps(record, default=str)))
    sys.stdout.flush()


def failure(exc):
    """The error line and the last traceback lines of an exception, for the classifier."""
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {"error": ("%s: %s" % (type(exc).__name__, exc))[:2000], "traceback": "".join(lines)[-3000:]}


def torch_devices(torch):
    """'cpu' and every visible CUDA device (torch numbers them after CUDA_VISIBLE_DEVICES)."""
    devices = ["cpu"]
    try:
        if torch.cuda.is_available():
            devices.extend("cuda:%d" % i for i in range(torch.cuda.device_count()))
    except Exception as exc:  # a broken driver: report it, keep the CPU result
        emit(kind="note", level="warn", text="torch.cuda.is_available() raised " + failure(exc)["error"])
    return devices


def device_label(torch, device):
    if device.startswith("cuda"):
        return "%s (%s)" % (device, torch.cuda.get_device_name(device))
    return device
