"""`xladoctor fleet --ray` without a cluster: the line stream it reads the driver through (proc.LineStream), the
records of a stand-in driver (each node's snapshot, failure, silence), the labels, and the one-line errors when Ray
is missing or nothing answers. tests/integration/test_fleet_ray_real.py runs it on a real two-node Ray cluster."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import FACTS_DIR, run_cli

from xladoctor.fleet.raynodes import RayFleetError, labels, ray_snapshots
from xladoctor.proc import LineStream

HEALTHY = FACTS_DIR / "gpu-h100-healthy.json"
MISMATCH = FACTS_DIR / "real-torch213-xla29.json"


def _python(tmp_path: Path, body: str) -> str:
    """A stand-in for the Ray cluster's Python: run as `PY SCRIPT MARKER ADDRESS ...`, it runs `body` instead."""
    fake = tmp_path / "python"
    fake.write_text(f"#!{sys.executable}\nimport json, sys, time\nMARKER = sys.argv[2]\n" + textwrap.dedent(body))
    fake.chmod(0o755)
    return str(fake)


def test_lines_come_while_the_child_runs(tmp_path: Path) -> None:
    code = "import sys, time; print('one', flush=True); time.sleep(3); print('two')"
    started = time.monotonic()
    seen = []
    with LineStream([sys.executable, "-c", code], 30) as child:
        for line in child.lines(100):
            seen.append((line, time.monotonic() - started))
    assert [line for line, _ in seen] == [b"one", b"two"]
    assert seen[0][1] < 2.5 <= seen[1][1]  # the first line before the child ends
    assert child.close().ok


def test_a_long_line_comes_cut_and_the_rest_is_skipped() -> None:
    code = "print('x' * 100000); print('after')"
    with LineStream([sys.executable, "-c", code], 30) as child:
        assert list(child.lines(10)) == [b"x" * 11, b"after"]


def test_a_grandchild_holding_the_pipe_does_not_hold_the_reader(tmp_path: Path) -> None:
    code = "import subprocess, sys; subprocess.Popen(['sleep', '30']); print('done', flush=True)"
    started = time.monotonic()
    with LineStream([sys.executable, "-c", code], 60) as child:
        assert list(child.lines(100)) == [b"done"]
    assert time.monotonic() - started < 10 and child.close().returncode == 0


def test_a_silent_child_is_stopped_at_its_deadline() -> None:
    started = time.monotonic()
    with LineStream([sys.executable, "-c", "import time; time.sleep(60)"], 1) as child:
        assert list(child.lines(100)) == []
    result = child.close()
    assert result.timed_out and time.monotonic() - started < 10


def test_a_child_that_cannot_start_is_a_result() -> None:
    child = LineStream(["/nonexistent/python"], 5)
    assert list(child.lines(10)) == [] and child.close().start_error is not None


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        ([{"node_id": "a" * 56, "hostname": "gpu-1"}, {"node_id": "b" * 56, "hostname": "gpu-2"}], ["gpu-1", "gpu-2"]),
        (
            [{"node_id": "a" * 56, "hostname": "vm"}, {"node_id": "b" * 56, "hostname": "vm"}],
            ["vm-aaaaaaaa", "vm-bbbbbbbb"],
        ),
        ([{"node_id": "c" * 56, "hostname": ""}, {"node_id": "d" * 56, "hostname": "a/b\n"}], ["node", "a?b?"]),
    ],
)
def test_nodes_are_named_by_host_and_by_node_id_where_hosts_repeat(
    nodes: list[dict[str, str]], expected: list[str]
) -> None:
    assert list(labels(nodes).values()) == expected


DRIVER = """
def emit(record):
    print(MARKER + json.dumps(record), flush=True)
nodes = [{"node_id": n * 56, "hostname": "host-" + n} for n in "abcdef"]
print("2026-12-03 11:00:00 INFO worker.py: Connecting to existing Ray cluster", flush=True)
emit({"kind": "nodes", "nodes": nodes})
emit({"kind": "snapshot", "node_id": "a" * 56, "ran_on": "a" * 56, "seconds": 1.5, "text": open(HEALTHY).read()})
print(MARKER + "{not json", flush=True)
emit({"kind": "failed", "node_id": "b" * 56, "error": "xladoctor is not installed on this node"})
emit({"kind": "snapshot", "node_id": "c" * 56, "ran_on": "f" * 56, "text": "{}"})
emit({"kind": "snapshot", "node_id": "d" * 56, "ran_on": "d" * 56, "text": "{\\"schema_version\\": 99}"})
emit({"kind": "snapshot", "node_id": "e" * 56, "ran_on": "e" * 56, "text": open(MISMATCH).read()})
emit({"kind": "snapshot", "node_id": "a" * 56, "ran_on": "a" * 56, "text": "{}"})
emit({"kind": "snapshot", "node_id": "z" * 56, "ran_on": "z" * 56, "text": "{}"})
"""


def _driver(tmp_path: Path) -> str:
    return _python(tmp_path, f"HEALTHY = {str(HEALTHY)!r}\nMISMATCH = {str(MISMATCH)!r}\n{DRIVER}")


def test_each_node_comes_with_its_facts_or_why_it_has_none(tmp_path: Path) -> None:
    got = list(ray_snapshots("127.0.0.1:6379", _driver(tmp_path), ["xladoctor"], 60))
    assert [(n.label, n.error) for n in got] == [
        ("host-a", None),
        ("host-b", "xladoctor is not installed on this node"),
        ("host-c", "its task ran on node " + "f" * 56),
        ("host-d", got[3].error),
        ("host-e", None),
        ("host-f", "no answer: the Ray driver exited with status 0"),
    ]
    assert got[3].error is not None and got[3].error.startswith("its snapshot cannot be read: ")
    assert got[0].facts is not None and got[0].seconds == 1.5 and got[4].facts is not None
    assert [n.node_id for n in got] == [c * 56 for c in "abcdef"]  # a second answer, an unknown node: ignored


def test_the_driver_is_given_the_address_the_command_and_the_bounds(tmp_path: Path) -> None:
    python = _python(
        tmp_path, "print(MARKER + json.dumps({'kind': 'error', 'code': 'connect', 'detail': repr(sys.argv[3:])}))"
    )
    with pytest.raises(RayFleetError) as raised:
        list(ray_snapshots("ray-head:6379", python, ["/opt/x/bin/xladoctor"], 20))
    args = ["ray-head:6379", "70", "20", json.dumps(["/opt/x/bin/xladoctor"])]  # 2 x 20 s + 30 s for the nodes
    assert str(raised.value) == f"--ray ray-head:6379: cannot connect to a Ray cluster there: {args!r}"


def test_a_driver_that_never_connects_is_stopped(tmp_path: Path) -> None:
    python = _python(tmp_path, "print('connecting', file=sys.stderr, flush=True); time.sleep(60)")
    started = time.monotonic()
    with pytest.raises(RayFleetError) as raised:
        list(ray_snapshots("10.0.0.1:6379", python, ["xladoctor"], 2))
    assert time.monotonic() - started < 10
    assert str(raised.value) == (
        f"--ray 10.0.0.1:6379: the Ray driver in {python} did not connect within 2 s (is a Ray cluster's GCS at that "
        "address?): connecting"
    )


def test_the_cli_compares_the_nodes_that_answered_and_names_the_others(tmp_path: Path) -> None:
    ran = run_cli("fleet", "--ray", "127.0.0.1:6379", "--ray-python", _driver(tmp_path), "--json")
    assert ran.returncode == 1  # host-e's torch_xla mismatch is no skew; the silent nodes fail the run
    document = json.loads(ran.stdout)
    assert [w["label"] for w in document["workers"]] == ["host-a", "host-e"]
    lines = ran.stderr.splitlines()
    assert lines[:3] == [
        "xladoctor fleet: host-b: no snapshot: xladoctor is not installed on this node",
        "xladoctor fleet: host-c: no snapshot: its task ran on node " + "f" * 56,
        lines[2],
    ]
    assert lines[2].startswith("xladoctor fleet: host-d: no snapshot: its snapshot cannot be read: ")
    assert lines[3] == "xladoctor fleet: host-f: no snapshot: no answer: the Ray driver exited with status 0"
    assert lines[4].startswith("xladoctor fleet: 2 of 6 Ray nodes snapshotted in ")


def test_without_ray_the_error_is_one_line() -> None:
    ran = run_cli("fleet", "--ray", "127.0.0.1:6379", "--ray-python", sys.executable)
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr == (
        f"xladoctor: error: --ray: Ray cannot be imported in {sys.executable}: No module named 'ray'; give "
        "--ray-python the interpreter of your Ray cluster's environment (the same Ray and Python versions as the "
        "cluster)\n"
    )


def test_usage_errors_come_before_any_work() -> None:
    assert run_cli("fleet").stderr == (
        "xladoctor: error: fleet needs a cluster: xladoctor fleet --ray ADDRESS (Ray's GCS address, HOST:PORT)\n"
    )
    ran = run_cli("fleet", "--ray", "x:1", "--format", "junit")
    assert ran.stderr == "xladoctor: error: --format junit is for `check`; fleet prints text, json or html\n"


def test_one_answer_is_not_a_comparison(tmp_path: Path) -> None:
    python = _python(
        tmp_path,
        f"""
        print(MARKER + json.dumps({{"kind": "nodes", "nodes": [{{"node_id": "a" * 56, "hostname": "solo"}}]}}))
        print(MARKER + json.dumps({{"kind": "snapshot", "node_id": "a" * 56, "ran_on": "a" * 56,
                                    "text": open({str(HEALTHY)!r}).read()}}))
        """,
    )
    ran = run_cli("fleet", "--ray", "127.0.0.1:6379", "--ray-python", python)
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr == (
        "xladoctor: error: --ray 127.0.0.1:6379: 1 of 1 nodes of the cluster gave a snapshot; a comparison needs at "
        "least 2 (`xladoctor check` diagnoses one machine)\n"
    )
