"""What each check reads, for the docs (`xladoctor checks ID`): built from the registry, never written twice.

    for item in check_inputs(check):  # in parameter order
        print(item.name, item.type_name, item.description, item.variables)

`INPUTS[name].type_name` and `.description` describe an input on its own; `check.requires` holds each
prerequisite's skip reason, in the order they are tested.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass

from xladoctor.diagnosis.inputs import INPUTS, type_name
from xladoctor.diagnosis.registry import Check


@dataclass(frozen=True)
class InputDoc:
    """One input of one check, as the docs show it."""

    name: str  # the parameter: distributions, env, gpus, torch, ...
    type_name: str  # as the check takes it: 'Distribution | None' where it judges the absence itself
    description: str  # one line
    variables: tuple[str, ...] = ()  # for env: the variables the check declares ('*': every one)


def check_inputs(check: Check) -> tuple[InputDoc, ...]:
    """The inputs `check` reads, in parameter order."""
    hints = typing.get_type_hints(check.function)
    return tuple(
        InputDoc(name, type_name(hints[name]), INPUTS[name].description, check.env if name == "env" else ())
        for name in check.inputs
    )
