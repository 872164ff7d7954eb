"""A program no ptrace may read: it makes itself non-dumpable (prctl PR_SET_DUMPABLE 0), which refuses ptrace to
anyone without CAP_SYS_PTRACE, as a container started without that capability refuses it. Then it stops moving:
`sleep` waits in time.sleep (the GIL is free: the hook's thread answers); `regex` runs a backtracking regular
expression, C code that holds the GIL (only faulthandler, from a signal handler, can say where)."""

import ctypes
import re
import sys
import time

PR_SET_DUMPABLE = 4  # linux/prctl.h
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
print("not dumpable", flush=True)
if sys.argv[1] == "sleep":
    while True:
        time.sleep(0.5)  # <- sleep
else:
    re.match(r"(a+)+$", "a" * 64 + "b")  # <- regex: exponential backtracking, the GIL held throughout
