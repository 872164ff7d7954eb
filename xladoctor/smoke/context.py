"""What every smoke test gets: the target, its facts, a private scratch folder, and template values."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xladoctor.facts import Facts
from xladoctor.proc import StopEvent
from xladoctor.remedy.templates import template_values
from xladoctor.smoke.child import ScriptRun, run_script
from xladoctor.smoke.classify import results_from_run
from xladoctor.smoke.model import SmokeResult


@dataclass(frozen=True)
class SmokeContext:
    name: str  # the smoke test's
    facts: Facts  # of the target: its interpreter runs the smoke scripts
    timeout_s: float
    scratch: Path  # empty, private to this test, removed afterwards
    cancel: threading.Event = field(default_factory=StopEvent)  # set: stop now, the result is moot
    runs: list[ScriptRun] = field(default_factory=list)  # every script run, for the runner to read

    def run(
        self, script: str, env: Mapping[str, str | None] | None = None, args: Mapping[str, Any] | None = None
    ) -> ScriptRun:
        run = run_script(
            self.facts.interpreter,
            script,
            self.timeout_s,
            self.scratch,
            env=env,
            args=args,
            cancel=self.cancel,
            label=f"smoke test {self.name}",
        )
        self.runs.append(run)
        return run

    def results(self, name: str, run: ScriptRun) -> list[SmokeResult]:
        return results_from_run(name, run, self.timeout_s, template_values(self.facts))
