"""DCGM's diagnostic results (`dcgmi diag -j`): read from a file an operator saved, or run at level 1 when asked.

Two JSON shapes are read (real outputs in tests/health/dcgm/): DCGM 3.x, {"DCGM GPU Diagnostic": {"test_categories":
[{"category", "tests": [{"name", "results": [{"gpu_ids": "0,1" | 0, "status": "PASS", "info"/"warnings"}]}]}]}}
(null entries between tests), and DCGM 4.x, {"DCGM Diagnostic": ...} with results per entity ("entity_group":
"GPU", "entity_id": 0, "status": "Fail", "warnings": [{"warning": "..."}]). Nothing long ever starts unasked: the
run is `dcgmi diag -r 1` (the quick deployment checks, seconds), and only with --dcgm run.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from typing import Any

from xladoctor.proc import run_command
from xladoctor.sanitize import clip

MAX_BYTES = 8 << 20
_STATUS = {"pass": "Pass", "fail": "Fail", "warn": "Warn", "warning": "Warn", "skip": "Skip", "skipped": "Skip"}


class DcgmError(ValueError):
    """Not dcgmi diag -j output."""


def _gpus(result: Mapping[str, Any]) -> list[int]:
    ids = result.get("gpu_ids", result.get("entity_id"))
    if isinstance(ids, bool):
        return []
    if isinstance(ids, int):
        return [ids]
    if isinstance(ids, str):
        return [int(part) for part in ids.split(",") if part.strip().isdigit()]
    return []


def _message(result: Mapping[str, Any]) -> str:
    parts: list[str] = []
    for key in ("warnings", "info"):
        value = result.get(key)
        items = value if isinstance(value, list) else [value] if value else []
        for item in items:
            text = item.get("warning") if isinstance(item, Mapping) else item
            if isinstance(text, str) and text.strip():
                parts.append(text.strip())
    return clip("; ".join(parts), 600)


def parse_dcgm_diag(text: str) -> dict[str, Any]:
    """DcgmFacts fields (version, results) of `dcgmi diag -j` output; DcgmError when it is not that."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise DcgmError(f"not JSON: {exc}") from None
    keys = ("DCGM GPU Diagnostic", "DCGM Diagnostic")  # DCGM 3, DCGM 4
    body = next((document[k] for k in keys if isinstance(document, dict) and k in document), None)
    if not isinstance(body, Mapping) or not isinstance(body.get("test_categories"), list):
        raise DcgmError("not `dcgmi diag -j` output (no test_categories)")
    results: list[dict[str, Any]] = []
    for category in body["test_categories"]:
        if not isinstance(category, Mapping):
            continue
        for test in category.get("tests") or ():
            if not isinstance(test, Mapping):
                continue  # DCGM 3 puts nulls between tests
            for result in test.get("results") or ():
                if not isinstance(result, Mapping):
                    continue
                status = _STATUS.get(str(result.get("status", "")).lower())
                if status is None:
                    continue
                results.append(
                    {
                        "category": clip(str(category.get("category", "")), 80),
                        "test": clip(str(test.get("name", "")), 120),
                        "status": status,
                        "gpus": _gpus(result),
                        "message": _message(result),
                    }
                )
    version = body.get("version")
    return {"version": str(version) if version is not None else None, "results": results}


def read_dcgm(asked: str, env: Mapping[str, str], timeout_s: float) -> dict[str, Any]:
    """DcgmFacts fields from a saved file, or from `dcgmi diag -r 1 -j` when `asked` is "run"."""
    if asked != "run":
        try:
            with open(asked, "rb") as handle:
                text = handle.read(MAX_BYTES).decode("utf-8", "replace")
            return {"source": asked, **parse_dcgm_diag(text)}
        except OSError as exc:
            return {"source": asked, "error": f"{asked}: {exc.strerror or exc}"}
        except DcgmError as exc:
            return {"source": asked, "error": f"{asked}: {exc}"}
    dcgmi = shutil.which("dcgmi", path=env.get("PATH"))
    source = "dcgmi diag -r 1 -j"
    if dcgmi is None:
        return {"source": source, "error": "dcgmi is not on PATH (install DCGM, or give a saved result: --dcgm FILE)"}
    result = run_command([dcgmi, "diag", "-r", "1", "-j"], timeout_s, env=env, label="dcgmi diag")
    try:
        return {"source": source, **parse_dcgm_diag(result.stdout)}  # a failed test exits non-zero, still JSON
    except DcgmError:
        output = (result.stderr or result.stdout).strip().splitlines()
        said = f": {output[0][:200]}" if output else ""
        return {"source": source, "error": f"dcgmi {result.describe_failure()}{said}"}
