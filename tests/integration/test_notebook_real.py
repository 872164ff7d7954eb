"""examples/quickstart.ipynb on a real Jupyter kernel (ipykernel) running this project's interpreter."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
jupyter_client = pytest.importorskip("jupyter_client")

pytestmark = pytest.mark.integration

NOTEBOOK = Path(__file__).parents[2] / "examples" / "quickstart.ipynb"


def _kernel(tmp_path: Path) -> Any:
    """A KernelManager for a kernelspec, written to a temporary folder, whose interpreter is sys.executable."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    spec = tmp_path / "kernels" / "xladoctor-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "xladoctor test", "language": "python"})
    )
    specs = KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")])
    return KernelManager(kernel_name="xladoctor-test", kernel_spec_manager=specs)


def _outputs(cell: Any, kind: str) -> list[Any]:
    return [o for o in cell.outputs if o.output_type == kind]


def _streams(cell: Any, name: str) -> str:
    return "".join(o.text for o in _outputs(cell, "stream") if o.name == name)


def _cell(nb: Any, source: str) -> Any:
    return next(c for c in nb.cells if c.cell_type == "code" and c.source == source)


def test_quickstart_notebook_runs_on_a_real_kernel(tmp_path: Path) -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("%xladoctor --bogus"))
    client = nbclient.NotebookClient(nb, km=_kernel(tmp_path), timeout=300, resources={"metadata": {"path": tmp_path}})
    client.execute()

    errors = [o for c in nb.cells if c.cell_type == "code" for o in _outputs(c, "error")]
    assert errors == []

    [shown] = _outputs(_cell(nb, "report"), "execute_result")
    assert '<table class="xladoctor-findings">' in shown.data["text/html"]
    assert f"<code>{sys.executable}</code> (Jupyter, CPU)" in shown.data["text/html"]
    assert shown.data["text/plain"].startswith(f"xladoctor diagnosing {sys.executable}\n")

    printed = _streams(_cell(nb, "print(report)"), "stdout")
    assert printed.startswith(f"xladoctor diagnosing {sys.executable}\n")
    assert "\nenvironment\n" in printed and "\nSummary: " in printed

    about = _streams(next(c for c in nb.cells if c.source.startswith("print(report.exit_code")), "stdout").splitlines()
    assert about[1] == "Jupyter, CPU"  # the kernel diagnosed its own interpreter

    [magic] = _outputs(_cell(nb, "%xladoctor --no-smoke"), "execute_result")
    assert '<table class="xladoctor-findings">' in magic.data["text/html"]
    assert magic.data["text/plain"].startswith(f"xladoctor diagnosing {sys.executable}\n")

    bad = _cell(nb, "%xladoctor --bogus")
    assert bad.outputs[0].output_type == "stream"
    assert _streams(bad, "stderr") == "%xladoctor: error: unrecognized arguments: --bogus\n"
    assert _outputs(bad, "execute_result") == []
