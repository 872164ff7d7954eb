"""system-headers.json: who installs a header a build includes; each row with its package's page."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from xladoctor.matrix.failures import header_provider


def test_every_row_names_its_package_and_the_page_of_that_package() -> None:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "system-headers.json").read_text("utf-8")
    rows = json.loads(text)["rows"]
    assert rows
    for row in rows:
        assert row["source"] == f"https://packages.debian.org/bookworm/{row['apt']}", row
        assert row["header"].endswith(("/", ".h")), row  # a folder, or one header file


@pytest.mark.parametrize(
    ("header", "apt"),
    [
        ("glm/gtx/pca.hpp", "libglm-dev"), ("glm/glm.hpp", "libglm-dev"), ("zlib.h", "zlib1g-dev"),
        ("unsupported/Eigen/CXX11/Tensor", "libeigen3-dev"), ("GL/glew.h", "libglew-dev"),
        ("zlib.hpp", None), ("glmx/a.h", None), ("GL/gl.h", None),
    ],
)  # fmt: skip
def test_a_header_or_a_folder_above_it_is_looked_up(header: str, apt: str | None) -> None:
    found = header_provider(header)
    assert (found.apt if found else None) == apt
