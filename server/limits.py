"""How much one client, and all of them together, may take from the server."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SIZE = (80, 24)  # SSH says a zero dimension means "unknown"


@dataclass(frozen=True)
class Limits:
    """How much one client, and all of them, may take. Defaults suit a 2-core machine."""

    max_sessions: int = 100
    """Connections at once, logged in or not; each carries at most one session."""
    max_per_address: int = 8
    """Connections at once from one IP address."""
    login_timeout: float = 20.0
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
    otherwise multiply the rate by eight)."""
    address_cpu_burst: float = 1.5
    max_paste: int = 16 * 1024
    """Characters of one bracketed paste the app receives; the rest is dropped."""
    resize_interval: float = 0.2
    """At most one resize per this many seconds reaches the app (the latest size wins)."""
    max_startups: int = 3
    """Apps being built at once; others wait their turn."""
    write_buffer: int = 256 * 1024
    """Output bytes queued for a client before its output is paused (newest frame only)."""
    stall_timeout: float = 60.0
    """Seconds a client may read nothing while output waits before it is disconnected."""
    max_size: tuple[int, int] = (400, 200)
    """Largest terminal (columns, rows) an app is given; bigger ones are clamped."""
    shutdown_grace: float = 3.0
    """Seconds apps get to exit after ``ServerShutdown`` before they are made to."""

    def clamp_size(self, width: int, height: int) -> tuple[int, int]:
        max_width, max_height = self.max_size
        return (
            min(width, max_width) if width else DEFAULT_SIZE[0],
            min(height, max_height) if height else DEFAULT_SIZE[1],
        )
