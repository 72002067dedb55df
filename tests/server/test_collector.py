"""The garbage collector's schedule: what survives a full collection is frozen; a sweep frees
the cycles that ended sessions leave among frozen objects."""

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
    made = Collector(min_ended=3)
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
    del held  # an app that ended: cycles the frozen generation keeps
    assert gc.collect() == 0  # a full collection does not see them
    collector.session_ended(live=10)
    collector.session_ended(live=10)
    assert collector.sweeps == 0
    frozen = gc.get_freeze_count()
    collector.session_ended(live=4)  # the third one: swept
    assert collector.sweeps == 1 and collector.ended == 0
    assert gc.get_freeze_count() <= frozen - 2000


def test_many_live_sessions_wait_for_more_to_end(collector: Collector) -> None:
    for _ in range(9):
        collector.session_ended(live=20)
    assert collector.sweeps == 0
    collector.session_ended(live=20)  # half as many as are live
    assert collector.sweeps == 1


def test_stop_thaws_everything() -> None:
    collector = Collector()
    collector.start()
    collector.stop()
    assert gc.get_freeze_count() == 0
    assert collector._after_collection not in gc.callbacks
