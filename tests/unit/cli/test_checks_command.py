"""`xladoctor checks [ID]`: built from the registry and each check's code, for every registered check."""

from __future__ import annotations

import json

from conftest import run_cli

from xladoctor.diagnosis.describe import describe
from xladoctor.diagnosis.registry import all_checks


def test_the_listing_names_every_check_once_with_its_title() -> None:
    ran = run_cli("checks")
    assert ran.returncode == 0, ran.stderr
    for check in all_checks():
        assert ran.stdout.count(f"  {check.id} ") == 1, check.id
    assert ran.stdout.rstrip().endswith(f"{len(all_checks())} checks; `xladoctor checks ID` explains one.")


def test_one_check_is_explained_from_its_code() -> None:
    ran = run_cli("checks", "pjrt-device")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines[0] == "pjrt-device: PJRT_DEVICE for torch_xla"
    assert "Can give: ok, warn, fail, skip" in lines
    assert "  export PJRT_DEVICE=…" in lines and "  pip install torch_xla[tpu]…" in lines
    assert "  https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/runtime.py" in lines


def test_json_describes_every_check() -> None:
    document = json.loads(run_cli("checks", "--json").stdout)
    assert [d["id"] for d in document] == [c.id for c in all_checks()]
    assert all(d["statuses"] and d["why"] and d["reads"] is not None for d in document)


def test_an_area_lists_its_checks() -> None:
    document = json.loads(run_cli("checks", "xla-config", "--json").stdout)
    assert {d["area"] for d in document} == {"xla-config"} and len(document) > 1


def test_an_unknown_name_gets_a_did_you_mean_hint() -> None:
    ran = run_cli("checks", "pjrt-devcie")
    assert ran.returncode == 2
    assert ran.stderr == "xladoctor: error: unknown check or area 'pjrt-devcie'\nhint: did you mean 'pjrt-device'?\n"
    only = run_cli("check", "--only", "nosuch")
    assert only.returncode == 2
    assert only.stderr == "xladoctor: error: unknown check or area 'nosuch'\nhint: `xladoctor checks` lists them\n"


def test_every_check_can_say_ok_and_explains_why() -> None:
    for check in all_checks():
        description = describe(check)
        assert "ok" in description.statuses, check.id
        assert description.why.strip(), check.id


def test_every_source_is_a_url_with_a_host() -> None:
    """A literal "https://" in a check's code (`source.startswith("https://")`) is a test, not a source."""
    from urllib.parse import urlparse

    for check in all_checks():
        assert all(urlparse(s).netloc for s in describe(check).sources), check.id


def test_a_source_kept_beside_its_data_is_named_too() -> None:
    """gpu-xid cites NVIDIA's Xid catalog by the constant kept with the catalog's loader (matrix/xid.py)."""
    from xladoctor.matrix.xid import XID_CATALOG

    xid = next(c for c in all_checks() if c.id == "gpu-xid")
    assert XID_CATALOG in describe(xid).sources
