"""Reporters only render a Report; the format is picked from an exhaustive enum."""

from __future__ import annotations

from enum import Enum


class OutputFormat(str, Enum):
    TEXT = "text"
    JSON = "json"
    JUNIT = "junit"  # check only: one test case per check and smoke test, for CI dashboards
    HTML = "html"  # one self-contained page (reporters/pages/): check, compare, explain, profile
    PROMETHEUS = "prometheus"  # check only: gauges for node_exporter's textfile collector (reporters/prometheus.py)
    NPD = "npd"  # check only: a Node Problem Detector custom plugin's one line (reporters/problem_line.py)
