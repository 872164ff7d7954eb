"""JAX on the CPU across two processes (gloo collectives), as a launcher runs them: `launch PORT` starts process 0
and 1 with RANK set (srun and torchrun set theirs); process 1 skips the fourth all-gather and sleeps."""

import os
import subprocess
import sys
import time


def launch(port):
    env = dict(os.environ, WORLD_SIZE="2", JAX_PLATFORMS="cpu")
    children = [
        subprocess.Popen([sys.executable, __file__, "run", port], env=dict(env, RANK=str(rank))) for rank in (0, 1)
    ]
    sys.exit(max(child.wait() for child in children))


def run(port):
    rank = int(os.environ["RANK"])
    import jax
    import jax.numpy as jnp
    from jax.experimental import multihost_utils

    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=rank)
    for step in range(1, 5):
        if step == 4 and rank == 1:
            while True:
                time.sleep(0.5)  # <- sleep: process 1 never reaches the all-gather
        gathered = multihost_utils.process_allgather(jnp.ones(4) * rank)  # <- allgather
        print(f"process {rank} step {step}: {gathered.shape}", flush=True)


if __name__ == "__main__":
    launch(sys.argv[2]) if sys.argv[1] == "launch" else run(sys.argv[2])
