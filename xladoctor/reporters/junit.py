"""JUnit XML, the report CI dashboards ingest: one test case per check finding and per smoke test.

The layout follows the de-facto schema read by Jenkins, GitLab and the GitHub test-report actions:
<testsuites><testsuite name tests failures errors skipped time><testcase classname name time>
with a <failure>, <error> or <skipped> child. A warning passes unless --strict, where it fails.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

from xladoctor.diagnosis.report import Report
from xladoctor.findings import Finding, Status
from xladoctor.sanitize import xml_text


def _body(finding: Finding) -> str:
    lines = [finding.title]
    if finding.detail:
        lines += ["", finding.detail]
    if finding.remediation:
        lines += ["", "Fix:", *(f"  $ {c}" for c in finding.remediation)]
    if finding.refs:
        lines += ["", "See: " + " ".join(finding.refs)]
    return "\n".join(lines)


def _seconds(finding: Finding, report: Report) -> float:
    if finding.area != "smoke":
        return 0.0
    name = finding.id.removeprefix("smoke-")
    return round(sum(r.duration_s for r in report.smoke if r.name == name), 3)


def _scrub(root: ET.Element) -> None:
    """Every text and attribute of the document passes here before it is written: scrubbed and legal XML 1.0
    (xladoctor.sanitize.xml_text), whichever element put it there."""
    for element in root.iter():
        element.text = xml_text(element.text) if element.text else element.text
        element.tail = xml_text(element.tail) if element.tail else element.tail
        for name, value in element.attrib.items():
            element.set(name, xml_text(value))


def render_junit(report: Report, strict: bool = False) -> str:
    suite = ET.Element("testsuite", name="xladoctor")
    seen: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    total = 0.0
    for finding in report.findings:
        seen[finding.id] += 1
        name = finding.id if seen[finding.id] == 1 else f"{finding.id} ({seen[finding.id]})"
        seconds = _seconds(finding, report)
        total += seconds
        case = ET.SubElement(suite, "testcase", classname=f"xladoctor.{finding.area}", name=name, time=f"{seconds:.3f}")
        message = finding.title
        if finding.status is Status.FAIL or (strict and finding.status is Status.WARN):
            ET.SubElement(case, "failure", message=message, type=finding.status.value).text = _body(finding)
            counts["failures"] += 1
        elif finding.status is Status.ERROR:
            ET.SubElement(case, "error", message=message, type="error").text = _body(finding)
            counts["errors"] += 1
        elif finding.status is Status.SKIP:
            ET.SubElement(case, "skipped", message=message)
            counts["skipped"] += 1
        else:
            ET.SubElement(case, "system-out").text = _body(finding)
    suite.set("tests", str(len(report.findings)))
    for key in ("failures", "errors", "skipped"):
        suite.set(key, str(counts[key]))
    suite.set("time", f"{total:.3f}")
    root = ET.Element("testsuites", name="xladoctor", tests=suite.get("tests", "0"))
    for key in ("failures", "errors", "skipped", "time"):
        root.set(key, suite.get(key, "0"))
    root.append(suite)
    _scrub(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
