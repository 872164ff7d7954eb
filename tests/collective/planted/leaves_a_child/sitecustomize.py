# Planted fault (tests only): rank 0 of an xladoctor collective run starts a process that leaves its session and
# forgets the run's variables (as a worker's data loader or a compile server may), then carries on normally. Its pid
# goes to LEFTOVER_PID_FILE.
import os
import subprocess
import sys

if os.environ.get("RANK") == "0" and os.environ.get("XLADOCTOR_COLLECTIVE_OUT") and os.environ.get("LEFTOVER_PID_FILE"):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XLADOCTOR_", "RANK", "LEFTOVER_"))}
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(300)"], env=env, start_new_session=True, close_fds=True
    )
    with open(os.environ["LEFTOVER_PID_FILE"], "w") as handle:
        handle.write(str(child.pid))
