"""deploy/kubernetes/: the manifests validated against Kubernetes' own schemas (kubernetes-validate, offline, strict),
the custom plugin monitor held to the rules NPD checks at start-up, and the plugin script run as NPD runs it. No
cluster runs here: nothing in this file starts a kubelet or an NPD."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from conftest import FACTS_DIR

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Status
from xladoctor.reporters.problem_line import NPD_MAX_OUTPUT_BYTES

ROOT = Path(__file__).resolve().parents[2]
KUBE = ROOT / "deploy" / "kubernetes"
PLUGIN = KUBE / "xladoctor-npd.sh"
XLADOCTOR = Path(sys.executable).parent / "xladoctor"
HEALTHY = FACTS_DIR / "gpu-h100-healthy.json"
# the oldest Kubernetes still in wide use and the newest kubernetes-validate knows
VERSIONS = ("1.29.0", kubernetes_validate.latest_version())


def _documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(KUBE.glob("*.yaml")):
        found += [(f"{path.name}:{d['kind']}", d) for d in yaml.safe_load_all(path.read_text()) if d]
    return found


def _by_kind(kind: str) -> dict[str, Any]:
    [document] = [d for _, d in _documents() if d["kind"] == kind]
    return document


def _seconds(duration: str) -> float:
    """A Go time.Duration as NPD's config holds it ("300s", "1m30s")."""
    assert re.fullmatch(r"(?:\d+h)?(?:\d+m)?(?:\d+s)?", duration) and duration, duration
    units = {"h": 3600, "m": 60, "s": 1}
    return float(sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([hms])", duration)))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("name", "document"), _documents(), ids=[n for n, _ in _documents()])
def test_every_manifest_is_valid_for_kubernetes(name: str, document: dict[str, Any], version: str) -> None:
    assert kubernetes_validate.validate(document, version, strict=True) == version.rsplit(".", 1)[0]


def test_the_validation_is_not_vacuous() -> None:
    daemonset = _by_kind("DaemonSet")
    broken = json.loads(json.dumps(daemonset))
    broken["spec"]["template"]["spec"]["hostPID"] = "yes"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)
    unknown = json.loads(json.dumps(daemonset))
    unknown["spec"]["template"]["spec"]["containers"][0]["privilidged"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(unknown, VERSIONS[-1], strict=True)


def test_the_configmap_carries_the_files_beside_it_verbatim() -> None:
    data = _by_kind("ConfigMap")["data"]
    assert data == {name: (KUBE / name).read_text() for name in ("xladoctor-monitor.json", "xladoctor-npd.sh")}
    ran = subprocess.run([sys.executable, str(ROOT / "scripts" / "npd_configmap.py"), "--check"], capture_output=True)
    assert ran.returncode == 0, ran.stderr


def test_the_monitor_passes_npds_own_start_up_checks() -> None:
    """pkg/custompluginmonitor/types/config.go @01a6793b, Validate(): plugin "custom"; no rule timeout above the
    global one; a permanent rule's condition has a default; the rule's path exists (in the container: the
    ConfigMap's item, mounted where the DaemonSet mounts it)."""
    monitor = json.loads((KUBE / "xladoctor-monitor.json").read_text())
    config = monitor["pluginConfig"]
    assert monitor["plugin"] == "custom"
    assert config["max_output_length"] == NPD_MAX_OUTPUT_BYTES  # what `--format npd` fits its line into
    conditions = {c["type"] for c in monitor["conditions"]}
    pod = _by_kind("DaemonSet")["spec"]["template"]["spec"]
    [container] = pod["containers"]
    [config_mount] = [m for m in container["volumeMounts"] if m["name"] == "config"]
    [volume] = [v for v in pod["volumes"] if v["name"] == "config"]
    mounted = {f"{config_mount['mountPath']}/{item['path']}": item for item in volume["configMap"]["items"]}
    for rule in monitor["rules"]:
        assert _seconds(rule["timeout"]) <= _seconds(config["timeout"])
        assert rule["type"] == "permanent" and rule["condition"] in conditions
        assert rule["path"] in mounted and mounted[rule["path"]]["mode"] == 0o755
        # xladoctor's own bound on each child, with room for the whole check inside the rule's timeout
        assert rule["args"] == ["--no-smoke", "--timeout", "60"] and _seconds(rule["timeout"]) > 60
    assert _seconds(config["invoke_interval"]) >= _seconds(config["timeout"])
    assert f"--config.custom-plugin-monitor={config_mount['mountPath']}/xladoctor-monitor.json" in container["command"]
    assert volume["configMap"]["name"] == _by_kind("ConfigMap")["metadata"]["name"]
    assert pod["hostPID"] is True and container["securityContext"]["privileged"] is True  # for nsenter -t 1
    binding = _by_kind("ClusterRoleBinding")
    assert binding["roleRef"]["name"] == "system:node-problem-detector"
    assert binding["subjects"][0]["name"] == pod["serviceAccountName"] == _by_kind("ServiceAccount")["metadata"]["name"]


def _healthy_line() -> str:
    passed = run_diagnosis(facts_from_json(json.loads(HEALTHY.read_text())), select_checks()).count(Status.OK)
    return f"ok: {passed} checks passed\n"


def _plugin(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The plugin as NPD runs it (the rule's args), with xladoctor in this container rather than on a host."""
    base = {"PATH": os.environ["PATH"], "XLADOCTOR": str(XLADOCTOR), "XLADOCTOR_NPD_IN_HOST": "no"}
    return subprocess.run(
        ["bash", str(PLUGIN), "--no-smoke", "--timeout", "60", *args],
        capture_output=True,
        text=True,
        env={**base, **env},
        timeout=120,
    )


def test_the_plugin_reports_a_failing_node_as_a_problem() -> None:
    ran = _plugin("--facts", str(FACTS_DIR / "real-torch213-xla29.json"))
    assert ran.returncode == 1
    assert ran.stdout == "torch-xla-torch-mismatch: torch_xla 2.9.0 is built for torch 2.9, but torch…\n"
    assert len(ran.stdout.strip().encode()) <= NPD_MAX_OUTPUT_BYTES


def test_the_plugin_reports_a_healthy_node_as_ok() -> None:
    ran = _plugin("--facts", str(HEALTHY))
    assert (ran.returncode, ran.stdout) == (0, _healthy_line())


def test_a_check_that_cannot_run_is_unknown_with_its_reason() -> None:
    ran = _plugin("--facts", "/nonexistent/facts.json")
    assert ran.returncode == 2
    assert ran.stdout == (
        "xladoctor could not check this node (exit 2): xladoctor: error: --facts /nonexistent/facts.json: cannot read "
        "it (FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/facts.json')\n"
    )
    missing = _plugin(XLADOCTOR="/nonexistent/xladoctor")
    assert (missing.returncode, missing.stdout) == (
        2,
        "xladoctor is not installed on this node at /nonexistent/xladoctor\n",
    )


def test_the_plugin_runs_xladoctor_in_the_hosts_namespaces(tmp_path: Path) -> None:
    """nsenter into PID 1's namespaces (a stand-in nsenter here: this sandbox may not enter PID 1's)."""
    calls = tmp_path / "nsenter.calls"
    fake = tmp_path / "nsenter"
    fake.write_text(f'#!/bin/bash\necho "$*" >> {calls}\nwhile [[ "$1" != "--" ]]; do shift; done\nshift\nexec "$@"\n')
    fake.chmod(0o755)
    env = {"PATH": f"{tmp_path}:{os.environ['PATH']}", "XLADOCTOR_NPD_IN_HOST": "yes"}
    ran = _plugin("--facts", str(HEALTHY), **env)
    assert (ran.returncode, ran.stdout) == (0, _healthy_line())
    prefix = "--target 1 --mount --uts --ipc --net --pid --"
    assert calls.read_text().splitlines() == [
        f"{prefix} true",
        f"{prefix} test -x {XLADOCTOR}",
        f"{prefix} {XLADOCTOR} check --format npd --no-smoke --timeout 60 --facts {HEALTHY}",
    ]
    fake.write_text("#!/bin/bash\nexit 1\n")  # no hostPID, or not privileged
    ran = _plugin(**env)
    assert (ran.returncode, ran.stdout) == (
        2,
        "cannot enter the node's namespaces: the pod needs hostPID: true and privileged\n",
    )
