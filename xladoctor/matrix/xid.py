"""NVIDIA's Xid codes (compat_matrix/gpu/xid.json): what each means, NVIDIA's action, and whether the node is taken
out of service for it. Loaded once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

XID_CATALOG = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"


@dataclass(frozen=True)
class XidCode:
    xid: int
    name: str
    immediate_action: str  # NVIDIA's: RESET_GPU, RESTART_BM, RESTART_APP, IGNORE, CONTACT_SUPPORT, WORKFLOW_...
    condemns_node: bool  # xladoctor's reading of that action (`basis` in the file says why)
    action: str  # the operator's step: reset | reboot | drain | investigate | recovery-action | nothing
    basis: str


@lru_cache(maxsize=1)
def xid_codes() -> dict[int, XidCode]:
    text = resources.files("xladoctor.compat_matrix").joinpath("gpu", "xid.json").read_text("utf-8")
    return {
        row["xid"]: XidCode(
            row["xid"], row["name"], row["immediate_action"], bool(row["condemns_node"]), row["action"], row["basis"]
        )
        for row in json.loads(text)["codes"]
    }
