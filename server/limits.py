"""How much one client, and all of them together, may take from the server."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SIZE = (80, 24)  # SSH says a zero dimension means "unknown"
BUSY_FRACTION = 1 / 5
"""The least of its budget an address keeps while the server is busy, unless told: 0.03 s a
second of the default 0.15, a few players' worth (a player typing in a busy lobby is charged
6 to 9 ms a second, one at a table less: only their own doing is charged)."""


@dataclass(frozen=True)
class Limits:
    """How much one client, and all of them, may take. Defaults suit a 2-core machine."""

    max_sessions: int = 100
    """Players at once: connections whose app runs (or is starting). Past it a newcomer is
    refused once logged in; a returning player (a key with a seat at a table in play or waiting)
    still gets in."""
    max_pending: int = 100
    """Connections at once that run no app: key exchange, login, opening a session, or their
    session over. When a new one comes and this many are pending, the oldest pending connection
    of the address with the most is closed to make room, if that address has more than the
    newcomer's; otherwise the newcomer is refused. As many as players, so that a full server's
    worth can log in at once (after a restart)."""
    max_per_address: int = 8
    """Connections at once from one IP address, pending or playing."""
    login_timeout: float = 20.0
    """Seconds a connection has to log in (key exchange and authentication); then as long again
    to start its session (open it, ask for a pty and a shell), and again once it is over."""
    max_key_attempts: int = 6
    """Public-key requests (offers and signed attempts) one connection may make; an honest client
    needs two (offer, then sign). Past it, the client is disconnected: otherwise it could offer
    keys forever, each signed attempt costing the server a signature check."""
    keepalive_interval: float = 30.0
    keepalive_count_max: int = 3
    cpu_rate: float = 0.08
    """CPU seconds per second a connection may cost the server, sustained, measured
    (``server/budget.py``): the SSH layer's work on what it sends, the parsing of its input and
    all its app's work (handling keys, mouse reports and resizes, painting frames, writing them).
    While it is over, the server gives its app no input and stops reading it; SSH and TCP flow
    control then hold the client back. An honest player costs a few milliseconds a second (a
    key 1 to 10 ms, a frame a few)."""
    cpu_burst: float = 1.0
    """CPU seconds a connection may spend at once before the rate applies."""
    address_cpu_rate: float = 0.15
    """The same, for all the connections from one IP address together (eight connections would
    otherwise multiply the rate by eight), while the rest of the server is calm."""
    address_cpu_burst: float = 1.5
    address_cpu_busy_rate: float | None = None
    """While the other addresses are busy (``calm_load``), an address gets the average other
    address's spending, at least this much, at most ``address_cpu_rate``
    (``server.budget.AddressBuckets``). None: ``BUSY_FRACTION`` of ``address_cpu_rate``, 0.03 s
    a second by default (a few busy players' worth); a server that raises the address's budget
    raises this with it."""
    calm_load: float = 0.05
    """CPU seconds a second the other addresses together may spend before an address counts
    as contending with them."""
    max_paste: int = 16 * 1024
    """Characters of one bracketed paste the app receives; the rest is dropped."""
    resize_interval: float = 0.2
    """At most one resize per this many seconds reaches the app (the latest size wins)."""
    max_startups: int = 3
    """Apps being built at once; others wait their turn."""
    write_buffer: int = 256 * 1024
    """Output bytes a client may leave untaken (in its SSH channel or its socket's transport)
    before its frames are dropped; the app repaints once it has taken three quarters of them.
    Held for one client: this plus at most one frame. Past this many in the socket's transport
    alone, the server also stops reading the client (so it cannot make it write more)."""
    stall_timeout: float = 60.0
    """Seconds a client's output may stay held back before it is disconnected."""
    max_size: tuple[int, int] = (400, 200)
    """Largest terminal (columns, rows) an app is given; bigger ones are clamped."""
    shutdown_grace: float = 3.0
    """Seconds apps get to exit after ``ServerShutdown`` before they are made to."""
    failure_log_burst: int = 10
    failure_log_window: float = 60.0
    """Failed connection attempts (key exchange, authentication, refusals) are logged one line
    each, at most ``failure_log_burst`` per ``failure_log_window`` seconds for each reason; the
    rest are counted, and the count is logged once the window is over."""

    @property
    def address_busy_rate(self) -> float:
        """``address_cpu_busy_rate``, or its default."""
        if self.address_cpu_busy_rate is not None:
            return self.address_cpu_busy_rate
        return self.address_cpu_rate * BUSY_FRACTION

    def clamp_size(self, width: int, height: int) -> tuple[int, int]:
        max_width, max_height = self.max_size
        return (
            min(width, max_width) if width else DEFAULT_SIZE[0],
            min(height, max_height) if height else DEFAULT_SIZE[1],
        )
