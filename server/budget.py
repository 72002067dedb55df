"""What a connection may cost the server: its CPU time, measured, against a budget.

Every app runs on the one event loop the whole server shares, so a connection's cost is the CPU
time of the loop callbacks that run on its behalf: the SSH layer's work on what it sends, and
its session's app's tasks (parsing its input, handling each key, mouse report or resize, laying
out and painting each frame, writing the frame to the channel). Counting events instead would
be a guess: a key costs 1 ms or 500 ms depending on the screen it opens, a focus report
restyled the whole screen, a resize at 400 × 200 costs a hundred keys.

``Meter`` adds that time up, one per connection (which carries at most one session). It is set
in a context variable (``METER``) of the session's app task, so every task and callback the app
starts inherits it; a hook on asyncio's ``Handle._run`` (the one place every callback and task
step of the loop passes through) times each callback whose context carries a meter, with the
thread's CPU clock. Before any app, the SSH layer's own work on what the client sends
(decrypting, window changes, any packet) is timed where the connection receives its bytes
(``meter_reading``), and the connection stops reading while it is in debt; what asyncssh starts
from those reads (a login's checks, the session's start, building its app) runs in the meter's
context too. The time goes into
token buckets (``Bucket``): one per connection, one per client address (shared by that
address's connections). The terminal gives input to the app only while none of its buckets is
in debt (``server.driver.Terminal``).

What a session's buckets are charged for is its own doing: everything that runs from what the
client sends (its socket's reads and what they start, the parsing of its input: ``CLIENT``),
and what its app does while it starts and while it handles the session's input, until it is
quiet again (``Meter.own``, set by the terminal): the keys' handling, the screens they open,
the frames that follow, the coordinator's work done within its requests. What the app does
otherwise — the frames another player's move makes it paint, its timers — is counted in the
meter (``Meter.spent``) but not taken from the buckets: a player cannot slow it down, and on a
busy server a player in the lobby would otherwise spend an address's share on the lobby's
repaints alone, and her keys would wait for good. Nor is, of what the app spends while it
handles her input, what it would have spent anyway in that time (its background rate, measured
between her inputs, ``Meter.give_back``): the lobby's repaints that run while she types.
Garbage collections are charged to whichever callback they interrupt. Timing costs about 2 µs
per metered callback (a key is some 20 callbacks and 1 to 10 ms).

An address's rate follows the load (``AddressBuckets``): while the other addresses spend little,
an address gets its full rate; while they are busy, it gets what an average other address
spends (at least a floor), so that eight sessions of one address cost the others no more than a
household's worth. The rates are set twice a second, not per event: what a callback costs the
meter is one addition more per bucket.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

READ_SIZE = 4 * 1024
"""Bytes a connection's socket is read at a time (see ``meter_reading``): a read is one piece of
work that nobody else's can interrupt; 16 KiB of SSH_MSG_IGNORE packets took 10 to 50 ms of
CPU, 4 KiB take under 5."""
BUDGET = "budget"
"""Why a connection's reading is held while its meter is in debt (``Reading``)."""

SHARE_TICK = 0.5
"""Seconds between two looks at what each address spends."""
SMOOTHING = 0.3
"""Weight of the newest look in the running rates (about two seconds' memory)."""
ACTIVE = 0.001
"""CPU seconds a second above which an address counts among those sharing the server (a player
idle in the lobby costs less)."""

log = logging.getLogger("pioche.server")

METER: contextvars.ContextVar[Meter | None] = contextvars.ContextVar("pioche_meter", default=None)
"""The meter of the connection whose app (or input) the running callback works for."""
CLIENT: contextvars.ContextVar[bool] = contextvars.ContextVar("pioche_client", default=False)
"""The running callback works on what the client sent (its socket's reads and what they start,
the parsing of its input): always taken from its meter's buckets (``Meter.charge``)."""


@dataclass
class Bucket:
    """Seconds of CPU: refilled at ``rate`` per second up to ``burst``; spending may take it
    below zero (the cost of work is known only once it is done), and then it is in debt."""

    rate: float
    burst: float
    level: float = field(init=False)
    spent: float = field(init=False, default=0.0)
    """Seconds taken so far, less those given back."""
    owed: bool = field(init=False, default=False)
    """It has been in debt since this was last set to False (``AddressBuckets``)."""
    _at: float = field(init=False)

    def __post_init__(self) -> None:
        self.level = self.burst
        self._at = time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.burst, self.level + (now - self._at) * self.rate)
        self._at = now

    def spend(self, seconds: float) -> None:
        """Take ``seconds`` (or give them back, if negative)."""
        self._refill()
        self.level = min(self.burst, self.level - seconds)
        self.spent += seconds
        if self.level < 0:
            self.owed = True

    def set_rate(self, rate: float) -> None:
        """Refill at ``rate`` from now on (what came before, at the old one)."""
        self._refill()
        self.rate = rate

    def wait(self) -> float:
        """Seconds until the bucket is out of debt; 0 if it is not in debt."""
        self._refill()
        return -self.level / self.rate if self.level < 0 else 0.0

    @property
    def full(self) -> bool:
        self._refill()
        return self.level >= self.burst


class Meter:
    """The CPU time spent on behalf of one connection, spent from its buckets."""

    def __init__(self, *buckets: Bucket) -> None:
        self.buckets = buckets
        self.spent = 0.0
        """Seconds of CPU charged so far."""
        self.active_at = 0.0
        """When the last charge came (the loop's clock, ``time.monotonic``)."""
        self.own = True
        """Whether what its app does now is the connection's own doing (its app starting, or
        handling its input: ``server.driver.Terminal`` says), taken from the buckets; or not
        (the frames another player's move causes, the app's timers), only counted."""
        self.owned = 0.0
        """Seconds its app spent while ``own`` (less what was given back as the app's
        background, ``give_back``)."""
        self.others = 0.0
        """Seconds its app spent while not ``own``: not charged (others' doing)."""
        self.on_held: Callable[[bool], None] | None = None
        """Told when the connection's reading is held for its budget (True) and let go
        (False): its terminal paints nothing meanwhile (``server.driver.Terminal``)."""

    def charge(self, seconds: float, client: bool = True) -> None:
        """Count ``seconds`` spent for this connection, and take them from the buckets when
        they were its own doing: on what the client sent (``client``), or by its app while
        ``own``."""
        self.spent += seconds
        self.active_at = time.monotonic()
        if client:
            self.reserve(seconds)
        elif self.own:
            self.owned += seconds
            self.reserve(seconds)
        else:
            self.others += seconds

    def give_back(self, seconds: float) -> None:
        """What its app spent while ``own`` was, for ``seconds`` of it, the app's background
        (what it spends anyway, on others' doing): given back to the buckets, counted as
        others'."""
        self.owned -= seconds
        self.others += seconds
        self.reserve(-seconds)

    def reserve(self, seconds: float) -> None:
        """Take ``seconds`` from the buckets ahead of the measure (negative: give them back)."""
        for bucket in self.buckets:
            bucket.spend(seconds)

    def wait(self) -> float:
        """Seconds until none of the buckets is in debt."""
        return max(bucket.wait() for bucket in self.buckets)


@dataclass
class _Address:
    """One address's bucket, and what the share keeps of it."""

    bucket: Bucket
    users: int = 0
    spent: float = 0.0  # the bucket's ``spent`` at the last look
    rate: float = 0.0  # what it spends, CPU seconds a second, smoothed
    busy_since: float | None = None  # since when it gets a share, not its full rate
    told: bool = False  # the log said its share holds it back (it spent more than it allows)
    used_while_busy: float = 0.0  # CPU seconds it spent since then
    allowed_while_busy: float = 0.0  # CPU seconds its share allowed since then
    saved: float = 0.0  # what its bucket held when its share began


def _free(known: _Address) -> bool:
    """The address spends, and its bucket has not been in debt since the last look: what it
    spends is what it wants (an address held back by its budget says nothing of that)."""
    return known.rate > ACTIVE and not known.bucket.owed


class AddressBuckets:
    """One bucket per client address, shared by all its connections. A bucket outlives them
    until it is full again: reconnecting does not wipe what was spent.

    Its rate follows the load, looked at every ``SHARE_TICK`` seconds (``watch``): what each
    address spent since the last look. The addresses that spend freely (more than ``ACTIVE``,
    and their bucket not in debt since the last look) are the measure: what they spend is what
    an address wants. While the other free addresses together spend less than ``calm_load``
    (CPU seconds a second), an address gets ``rate``: nobody is waiting behind its work.
    Otherwise it gets their average spending, at least ``busy_rate`` and at most ``rate``: under
    contention, one address costs the others about what one of them costs. An address's own
    spending never decides its own share, so the share does not swing when it is cut; and
    addresses held back by their budget are no measure: an attacker does not make the players
    it slows count as contending with it, and several heavy addresses do not pull each other
    down to the floor (with nobody else there, they keep their full rate). The server's
    own work charged to nobody (timers, the coordinator's own) is left out: a player alone with
    her bots contends with nobody. Each change between the two is logged, with what the address
    spent while it got a share and what its share allowed, for the addresses the share held
    back (most spend less than it)."""

    def __init__(self, rate: float, burst: float, *, busy_rate: float | None = None,
                 calm_load: float = 0.05) -> None:
        self._rate = rate
        self._burst = burst
        self._busy_rate = min(rate, busy_rate if busy_rate is not None else rate)
        self._calm_load = calm_load
        self._addresses: dict[str, _Address] = {}
        self._looked = 0.0  # time.monotonic() at the last look
        self._timer: asyncio.TimerHandle | None = None

    def take(self, address: str) -> Bucket:
        """The address's bucket, for one more connection (give it back with ``give_back``)."""
        for idle in [a for a, known in self._addresses.items()
                     if not known.users and known.bucket.full]:
            del self._addresses[idle]
        known = self._addresses.get(address)
        if known is None:
            known = self._addresses[address] = _Address(Bucket(self._rate, self._burst))
        known.users += 1
        return known.bucket

    def give_back(self, address: str) -> None:
        self._addresses[address].users -= 1

    def __len__(self) -> int:
        return len(self._addresses)

    def watch(self) -> None:
        """Look at what each address spends every ``SHARE_TICK`` seconds from now on, until
        ``stop`` (on the running event loop)."""
        self._looked = time.monotonic()
        self._timer = asyncio.get_running_loop().call_later(
            SHARE_TICK, self._look, context=contextvars.Context())  # (charged to nobody)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _look(self) -> None:
        now = time.monotonic()
        elapsed, self._looked = now - self._looked, now
        if elapsed > 0:
            self.share_out(elapsed, now)
        self._timer = asyncio.get_running_loop().call_later(
            SHARE_TICK, self._look, context=contextvars.Context())

    def share_out(self, elapsed: float, now: float) -> None:
        """Set every address's rate from what each spent over the last ``elapsed`` seconds
        (``now``: ``time.monotonic()``, for the log)."""
        for known in self._addresses.values():
            spent = known.bucket.spent - known.spent
            known.spent = known.bucket.spent
            known.rate += SMOOTHING * (spent / elapsed - known.rate)
            if known.busy_since is not None:
                known.used_while_busy += spent
                known.allowed_while_busy += known.bucket.rate * elapsed
        free = [known.rate for known in self._addresses.values() if _free(known)]
        total = sum(free)
        for address, known in self._addresses.items():
            self._share(address, known, total, len(free), now)
            known.bucket.owed = known.bucket.level < 0

    def _share(self, address: str, known: _Address, free: float, frees: int, now: float
               ) -> None:
        """Set ``known``'s rate from what the others spend (``free``: what the ``frees``
        addresses spending freely spend together, ``known`` among them if it is one)."""
        if _free(known):
            free, frees = free - known.rate, frees - 1
        if free < self._calm_load:
            if known.busy_since is not None:
                if known.told:
                    log.info(
                        "address %s: the server is calm again, its CPU budget is %g s a second "
                        "(over %.1f s it spent %.3f s; its share allowed %.3f, and it had "
                        "%.3f saved)", address, self._rate, now - known.busy_since,
                        known.used_while_busy, known.allowed_while_busy, known.saved)
                known.busy_since, known.told = None, False
            known.bucket.set_rate(self._rate)
            return
        share = min(self._rate, max(self._busy_rate, free / frees))
        if known.busy_since is None:
            known.busy_since = now
            known.used_while_busy = known.allowed_while_busy = 0.0
            known.saved = max(0.0, known.bucket.level)
        if not known.told and known.users and known.rate > share and known.bucket.owed:
            # (said once, when the share holds it back: its bucket went into debt. Most
            # addresses spend less than it; one that spent more from what it had saved, a
            # player's reconnection, was held back by nothing)
            log.info(
                "address %s: the server is busy (others spend %.3f CPU s a second), its CPU budget "
                "is %.3f s a second, the average other address's (it spent %.3f)",
                address, free, share, known.rate)
            known.told = True
        known.bucket.set_rate(share)


class Reading:
    """A connection's socket reading: timed and charged to its meter (``meter_reading``), and
    paused while any reason holds it: the meter's debt (``BUDGET``), or another (the client not
    taking what it is sent, ``server.ssh``)."""

    def __init__(self, protocol: asyncio.Protocol, transport: asyncio.Transport, meter: Meter
                 ) -> None:
        self._protocol = protocol
        self._data_received = protocol.data_received
        self._transport = transport
        self._budget_timer: asyncio.TimerHandle | None = None
        self._meter = meter
        # Where reads run: what asyncssh starts from them (a login's checks, the session's
        # start and its app's building) inherits the meter and is charged by ``_metered_run``.
        self._context = contextvars.copy_context()
        self._context.run(METER.set, meter)
        self._context.run(CLIENT.set, True)
        self._loop = asyncio.get_running_loop()
        self._holds: set[str] = set()
        self._last_read = 0.0  # CPU seconds the last read cost
        self._reserved = 0.0  # held from the budget when reading resumed: a read's probable cost

    def hold(self, reason: str) -> None:
        if not self._holds:
            self._transport.pause_reading()
        self._holds.add(reason)
        if reason == BUDGET and self._meter.on_held is not None:
            self._meter.on_held(True)

    def release(self, reason: str) -> None:
        if reason not in self._holds:
            return
        self._holds.remove(reason)
        if reason == BUDGET and self._meter.on_held is not None:
            self._meter.on_held(False)
        if not self._holds and not self._transport.is_closing():
            self._transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        self._meter.reserve(-self._reserved)
        self._reserved = 0.0
        started = _clock()
        try:
            self._context.run(self._data_received, data)
        finally:
            self._last_read = _clock() - started
            self._meter.charge(self._last_read)
        if BUDGET not in self._holds and self._meter.wait() > 0:
            self.hold(BUDGET)
            self._budget_timer = self._loop.call_later(self._meter.wait(), self._check_budget)

    def close(self) -> None:
        """The connection is over: no more budget checks, the read it held back from its
        buckets given back (the address's bucket outlives it), and the protocol's own
        ``data_received`` back (this object held the connection through it)."""
        if self._budget_timer is not None:
            self._budget_timer.cancel()
            self._budget_timer = None
        self._meter.reserve(-self._reserved)
        self._reserved = 0.0
        vars(self._protocol).pop("data_received", None)

    def _check_budget(self) -> None:
        wait = self._meter.wait()
        if wait > 0:
            self._budget_timer = self._loop.call_later(wait, self._check_budget)
            return
        self._budget_timer = None
        # The next read's probable cost is held at once: the address's other connections, due
        # to resume at the same moment, wait for it instead of all reading together.
        self._reserved = self._last_read
        self._meter.reserve(self._reserved)
        self.release(BUDGET)


def meter_reading(protocol: asyncio.Protocol, transport: asyncio.Transport, meter: Meter
                  ) -> Reading:
    """Charge ``meter`` for what ``protocol`` does with each read of ``transport``, and stop
    reading while the meter is in debt (TCP flow control then holds the client back). Call it
    before the first read: the transport calls the protocol's ``data_received`` attribute."""
    reading = Reading(protocol, transport, meter)
    protocol.data_received = reading.data_received  # type: ignore[method-assign]
    # asyncio's socket transports read up to max_size bytes at a time (256 KiB), all handled in
    # one callback: 256 KiB of small SSH packets took 0.17 s of CPU, and the budget is checked
    # between reads.
    transport.max_size = READ_SIZE  # type: ignore[attr-defined]
    return reading


# The loop hook -----------------------------------------------------------------------------

_handle_run = asyncio.events.Handle._run
_clock = time.thread_time


def _metered_run(self: asyncio.Handle) -> None:
    meter = self._context.get(METER)  # type: ignore[attr-defined]
    if meter is None:
        _handle_run(self)
        return
    started = _clock()
    try:
        _handle_run(self)
    finally:
        meter.charge(_clock() - started, self._context.get(CLIENT))  # type: ignore[attr-defined]


def install() -> None:
    """Time every loop callback run in a meter's context (idempotent; process-wide)."""
    asyncio.events.Handle._run = _metered_run  # type: ignore[method-assign]
