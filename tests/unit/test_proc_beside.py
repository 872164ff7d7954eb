"""proc.py's Beside: a call run beside the caller hands over its result or its exception; several run at once."""

from __future__ import annotations

import threading

import pytest

from xladoctor.proc import Beside, each_beside


def test_the_result_is_handed_over() -> None:
    assert Beside(lambda a, b: a + b, 2, 3).result() == 5


def test_the_exception_is_raised_in_the_caller() -> None:
    def fails() -> None:
        raise KeyError("inside")

    running = Beside(fails)
    with pytest.raises(KeyError, match="inside"):
        running.result()


def test_each_runs_at_once_and_keeps_the_order() -> None:
    # each call waits for the other to have started: run one after the other, they would never both return True
    started = [threading.Event(), threading.Event()]

    def meet(me: int, other: int) -> tuple[int, bool]:
        started[me].set()
        return me, started[other].wait(timeout=30)

    assert each_beside(meet, [(0, 1), (1, 0)]) == [(0, True), (1, True)]
