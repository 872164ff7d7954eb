"""Write deploy/kubernetes/configmap.yaml from the two files it carries, so the ConfigMap never drifts from them.

python3 scripts/npd_configmap.py          # rewrite deploy/kubernetes/configmap.yaml
python3 scripts/npd_configmap.py --check  # exit 1 when it differs (tests/unit/test_deploy_kubernetes.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "deploy" / "kubernetes"
CARRIED = ("xladoctor-monitor.json", "xladoctor-npd.sh")
HEADER = """\
# The Node Problem Detector's configuration for xladoctor: the custom plugin monitor and its plugin. Both are the
# files beside this one, verbatim: edit them, then `python3 scripts/npd_configmap.py` writes this one.
apiVersion: v1
kind: ConfigMap
metadata:
  name: xladoctor-npd-config
  namespace: kube-system
  labels:
    app: xladoctor-npd
data:
"""


def _block(text: str) -> str:
    """A YAML literal block (`|`) holding `text` exactly: every line indented, empty lines left empty."""
    return "".join(f"    {line}" if line.strip() else "\n" for line in text.splitlines(keepends=True))


def configmap() -> str:
    return HEADER + "".join(f"  {name}: |\n{_block((HERE / name).read_text())}" for name in CARRIED)


def main(argv: list[str]) -> int:
    path = HERE / "configmap.yaml"
    if argv == ["--check"]:
        if path.read_text() != configmap():
            print(f"{path} differs from {', '.join(CARRIED)}: run python3 scripts/npd_configmap.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(configmap())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
