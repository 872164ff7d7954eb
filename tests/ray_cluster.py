"""A real two-node Ray cluster on this host for the tests, run by the Ray venv's Python (tests/envs.py "ray"):
`python ray_cluster.py` starts a head and a second node with ray.cluster_utils.Cluster, prints one JSON line
{"address", "head", "worker"} (the GCS address and both node ids) and keeps them up until its stdin closes.

The second node is started with PJRT_DEVICE=CPU in its environment (its raylet, and so its workers, inherit it) and
the head without: a snapshot taken on the wrong node would show it. Everything binds to 127.0.0.1 (ray 2.60.0 on
Linux rewrites a loopback address to the outbound interface's unless RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0, set before
Ray is imported), sessions go under RAY_TMPDIR, and nothing is stopped by name (no `ray stop`: it would stop every
Ray cluster on the machine): cluster.shutdown() stops what this process started.
"""

import json
import os
import sys

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.pop("PJRT_DEVICE", None)

from ray.cluster_utils import Cluster  # noqa: E402


def main() -> int:
    common = {"node_ip_address": "127.0.0.1", "include_dashboard": False, "num_cpus": 1}
    cluster = Cluster(initialize_head=True, connect=False, head_node_args=dict(common, resources={"head": 1}))
    try:
        os.environ["PJRT_DEVICE"] = "CPU"  # the second node's environment only
        worker = cluster.add_node(resources={"worker": 1}, **common)
        del os.environ["PJRT_DEVICE"]
        cluster.wait_for_nodes()
        print(json.dumps({"address": cluster.address, "head": cluster.head_node.node_id, "worker": worker.node_id}))
        sys.stdout.flush()
        sys.stdin.read()  # until the test closes it
    finally:
        cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
