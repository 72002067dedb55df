"""The garbage collector's schedule: what survives a full collection is frozen; a sweep frees
the cycles left among frozen objects, but only when it fits in its pause budget."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from server.collector import Collector


class Node:
    """Half of a reference cycle, as a widget and its parent make."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> Node:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a


@pytest.fixture
def collector() -> Iterator[Collector]:
    made = Collector(min_ended=3, pause=60.0)  # any sweep fits: the schedule alone decides
    made.start()
    yield made
    made.stop()


def test_survivors_of_a_full_collection_are_frozen(collector: Collector) -> None:
    assert gc.get_freeze_count() > 0  # what the process held at start
    kept = cycle()
    assert gc.is_tracked(kept)
    frozen = gc.get_freeze_count()
    gc.collect()
    assert gc.get_freeze_count() > frozen  # kept (alive) is frozen now
    assert not any(obj is kept for obj in gc.get_objects())  # the collector no longer sees it


def test_a_sweep_frees_cycles_among_frozen_objects(collector: Collector) -> None:
    held = [cycle() for _ in range(1000)]
    gc.collect()  # frozen with the rest
    del held  # cycles nobody broke: the frozen generation keeps them
    assert gc.collect() == 0  # a full collection does not see them
    collector.session_ended(live=10)
    collector.session_ended(live=10)
    assert collector.sweeps == 0
    frozen = gc.get_freeze_count()
    collector.session_ended(live=4)  # the third one: swept
    assert collector.sweeps == 1 and collector.ended == 0
    assert gc.get_freeze_count() <= frozen - 2000


def test_a_sweep_too_long_for_its_budget_waits(collector: Collector) -> None:
    assert collector.seconds_per_object > 0  # measured at start
    collector.pause = collector.sweep_estimate() / 2  # the process is too big for a sweep now
    for _ in range(10):
        collector.session_ended(live=50)
    assert collector.sweeps == 0 and collector.ended == 10
    collector.pause = collector.sweep_estimate() * 2  # quieter: it fits
    collector.session_ended(live=1)
    assert collector.sweeps == 1 and collector.ended == 0


def test_stop_thaws_everything() -> None:
    collector = Collector()
    collector.start()
    collector.stop()
    assert gc.get_freeze_count() == 0
    assert collector._after_collection not in gc.callbacks
