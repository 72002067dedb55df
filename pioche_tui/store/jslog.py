"""Table logs in a JetStream stream (``pioche coordinator --logs jetstream``, issue 18).

The records are the file log's (:mod:`.log`: the header, then actions, seats, the end), each
one msgpack value, one message each, on the subject ``pioche.log.<TABLE_ID>`` of the stream
``PIOCHE_LOGS`` (file storage; replicas from the operator's setting: 1 on one host, 3 in a
cluster). A record is durable when JetStream acknowledges it: with one replica, on the node's
disk as its ``sync_interval`` says; with three, on a majority of the nodes.

**No fork.** Every append carries ``Nats-Expected-Last-Subject-Sequence``: the stream sequence
of the last record of this table this writer knows (0 for the header: nothing on the subject
yet). If anyone else appended meanwhile — a second coordinator that took the table, or a
deposed owner's late write — the stream refuses it, and the writer raises :class:`LogTaken`
for this record and every later one: it will never write that table again. Each append also
carries a ``Nats-Msg-Id`` (this writer's random token and a counter): a probe (below) knows its
own record by it, and the stream stores no message id twice within its duplicate window.

**One writer per table, in order.** :class:`JetStreamLog` is a table's writer: ``append_*``
queue the record and return a future, resolved when JetStream acknowledged it. Records are
sent one at a time, in the order given, each once the one before it is acknowledged (its
sequence is the next one's expected sequence): a burst of records costs one round trip each.
The sending runs in a task started when the queue is no longer empty and ending when it is.

**A failed append** (no answer in ``APPEND_TIMEOUT``, the record sent again every ``ATTEMPT``
meanwhile; no stream; a lost connection) fails that
record and every record queued after it (:class:`LogUnavailable`), and the writer refuses
records until a ``probe`` succeeds. The failed record's fate is unknown: it may have been
stored and its acknowledgement lost, or it may still sit in a stalled server's socket and be
stored when the server wakes. Reading the stream cannot tell the second case from "not
there", so the probe settles it by sending the same record again, with its message id and its
expected sequence: if the first copy had landed (or lands first, being ahead on the same
connection), the stream refuses the second for its sequence (it checks the sequence before the
message id) and the subject's last record is the first copy, its message id says so; else the
second lands. Once a probe succeeds the record is in the log, whatever happened: the table
replays its log and resumes with that move in (``Table._probed``); the player who was told "not
taken" sees it taken. If another writer appended meanwhile, the probe is refused
(:class:`LogTaken`).

The reading side: :func:`read_table` (a table's whole log, as :func:`.log.read_log` gives a
file's: a thousand records a request, then the stream's leader asked for what follows),
:func:`table_ids` (every table with a log in the stream), :func:`last_record` (a log's
end and its time, for the restore and the retention), :func:`remove` (a log purged).

Retention in the stream (``Coordinator._stream_retention``): an ended table's
log is purged from the stream once its retention is over, counted from its end record's time,
as the files are; there is no compaction step (the stream's file store is the storage; gzip
copies are the file logs' way to shrink).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, ClassVar

import msgpack
import nats.errors
from nats.js import JetStreamContext
from nats.js.api import DEFAULT_PREFIX, Header, RawStreamMsg, StorageType
from nats.js.errors import APIError, NotFoundError

from ..bus import LOG_PREFIX, LOG_STREAM, log_subject
from .log import ACTION, END, SCHEMA_VERSION, SEAT, LogContents, LogError, _valid_record

log = logging.getLogger("pioche.jslog")

APPEND_TIMEOUT = 2.0
"""Seconds an append waits for JetStream's acknowledgement before it counts as failed (the
table pauses: docs/server.md, « The tables' logs in JetStream »). A cluster that loses its
stream's leader elects another in about this time."""
ATTEMPT = 0.5
"""Seconds one attempt of an append waits for its acknowledgement; then the same record is sent
again (same message id, same expected sequence: the probe's way, below), until
``APPEND_TIMEOUT`` in all. nats-py leaves a request that was in flight on a lost connection
waiting for its time-out, while the client is connected again to another node within
milliseconds: the record sent again there lands (a NATS node's death costs the table half a
second, not a pause: docs/performance.md, « A NATS node killed, as players see it »)."""
READ_TIMEOUT = 5.0  # seconds for one request of the reading side
READ_BATCH = 1000
"""Records a request of ``read_table`` asks for (a batched direct get): a game of a few
hundred moves in one request; the server caps a batch's bytes besides."""
WRONG_LAST_SEQUENCE = 10071  # JetStream's error code: the expected last sequence did not hold
NO_MESSAGE = 10037  # JetStream's error code: no message found (another NotFound: no stream)
DUPLICATE_WINDOW = 120.0  # seconds the stream remembers message ids


class LogTaken(Exception):
    """Another writer appended to this table's log: this one must stop writing it."""


class LogUnavailable(Exception):
    """An append failed or was not answered: its record may or may not be in the stream
    (``JetStreamLog.probe`` finds out)."""


@dataclass
class StreamContents(LogContents):
    """A table's log read from the stream, with the sequence of its last record."""

    last_seq: int = 0


async def ensure_stream(js: JetStreamContext, replicas: int) -> None:
    """Create the stream of the tables' logs if it is not there (file storage, ``replicas``).
    An existing stream is kept as it is; a different replica count is logged, not changed
    (changing it is the operator's act: ``nats stream edit``)."""
    try:
        info = await js.stream_info(LOG_STREAM)
    except NotFoundError:
        await js.add_stream(name=LOG_STREAM, subjects=[LOG_PREFIX + ">"],
                            storage=StorageType.FILE, num_replicas=replicas,
                            duplicate_window=DUPLICATE_WINDOW, allow_direct=True)
        log.info("stream %s created (%d replicas)", LOG_STREAM, replicas)
        return
    if info.config.num_replicas != replicas:
        log.warning("stream %s has %s replicas, not %d as asked: kept as it is", LOG_STREAM,
                    info.config.num_replicas, replicas)


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)


class JetStreamLog:
    """One table's writer in the stream (see the module's doc). Satisfies ``log.TableLog``:
    each ``append_*`` returns a future resolved once the record is durable."""

    immediate: ClassVar[bool] = False

    def __init__(self, js: JetStreamContext, table_id: str, last_seq: int,
                 records: list[list[Any]]) -> None:
        self.js = js
        self.table_id = table_id
        self.subject = log_subject(table_id)
        self.last_seq = last_seq  # the stream sequence of the last durable record
        self._records = records  # the durable records after the header (read_back)
        self._token = secrets.token_hex(6)  # this writer's, in each record's message id
        self._count = 0
        self._queue: deque[tuple[bytes, Any, asyncio.Future[None]]] = deque()
        self._sender: asyncio.Task[None] | None = None
        self._failed: BaseException | None = None  # refusing records until a probe clears it
        self._unsure: _Sent | None = None  # the record whose append failed (see _probe)
        self._closed = False

    @classmethod
    def create(cls, js: JetStreamContext, table_id: str, header: dict[str, Any]
               ) -> tuple[JetStreamLog, asyncio.Future[None]]:
        """A new table's log: the writer and the future of its header (appended only if the
        subject is empty: a table id is never reused)."""
        writer = cls(js, table_id, 0, [])
        return writer, writer._append({"type": "header", "v": SCHEMA_VERSION, **header})

    @classmethod
    def reopen(cls, js: JetStreamContext, contents: StreamContents) -> JetStreamLog:
        """Append to a log read with :func:`read_table`."""
        return cls(js, str(contents.header["table"]), contents.last_seq,
                   list(contents.records))

    # --- log.TableLog ---------------------------------------------------------------------

    def append_action(self, seat: int, action_wire: Any, stand_in: bool = False
                      ) -> asyncio.Future[None]:
        return self._append([ACTION, seat, action_wire, 1] if stand_in
                            else [ACTION, seat, action_wire])

    def append_seat(self, seat: int, info: dict[str, Any]) -> asyncio.Future[None]:
        return self._append([SEAT, seat, info])

    def end(self, reason: str) -> asyncio.Future[None]:
        return self._append([END, reason])

    def read_back(self) -> list[list[Any]]:
        """The records the stream acknowledged (no read: this writer is the only one)."""
        return list(self._records)

    def probe(self) -> asyncio.Future[int]:
        """After a failure: whether the stream takes records again (the module's doc).
        Resolves to the number of records it settled into the log (0 or 1: ``read_back`` has
        it); raises LogTaken if another writer appended, LogUnavailable if the stream still
        does not answer."""
        return asyncio.ensure_future(self._probe())

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Take no more records; those queued are still sent."""
        self._closed = True

    async def discard(self) -> None:
        """Close, let the records queued go, then purge the log from the stream (a table
        closed before any player moved leaves no log, as a file log is removed)."""
        self.close()
        while self._sender is not None:
            await asyncio.wait((self._sender,))
        await remove(self.js, self.table_id)

    # --- the writing ----------------------------------------------------------------------

    def _append(self, value: Any) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._closed:
            future.set_exception(LogUnavailable(f"log of {self.table_id} is closed"))
        elif self._failed is not None:
            future.set_exception(self._failed)
        else:
            self._queue.append((_pack(value), value, future))
            if self._sender is None:
                self._sender = asyncio.create_task(self._send(), name=f"log {self.table_id}")
        return future

    async def _send(self) -> None:
        try:
            while self._queue:
                data, value, future = self._queue[0]
                self._count += 1
                unsure = _Sent(data, value, f"{self._token}-{self._count}", self.last_seq)
                try:
                    await self._attempts(unsure)
                except (LogTaken, LogUnavailable) as error:
                    self._unsure = unsure if isinstance(error, LogUnavailable) else None
                    self._fail(error)
                    return
                self._queue.popleft()
                if not future.done():
                    future.set_result(None)
        finally:
            self._sender = None

    async def _attempts(self, sent: _Sent) -> None:
        """Append one record, sent again each ``ATTEMPT`` seconds without an acknowledgement
        (or at once refused as unavailable: a stream electing its leader), ``APPEND_TIMEOUT``
        in all; LogUnavailable past it. A copy sent again that is refused for its sequence
        may be refused because an earlier copy landed: that one is adopted (``_landed``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + APPEND_TIMEOUT
        again = False
        while True:
            start = loop.time()
            try:
                try:
                    await self._publish(sent, max(0.01, min(ATTEMPT, deadline - start)))
                    return
                except LogTaken:
                    if again and await self._landed(sent):
                        return
                    raise
            except LogUnavailable:
                if loop.time() >= deadline - 0.01:
                    raise
            again = True
            await asyncio.sleep(max(0.0, min(start + ATTEMPT, deadline) - loop.time()))

    async def _publish(self, sent: _Sent, timeout: float | None = None) -> None:
        """Append one record, expecting ``sent.after`` as the subject's last sequence
        (``timeout``: ``APPEND_TIMEOUT`` if None)."""
        headers: dict[str, Any] = {Header.EXPECTED_LAST_SUBJECT_SEQUENCE: str(sent.after),
                                   Header.MSG_ID: sent.msg_id}
        try:
            ack = await self.js.publish(self.subject, sent.data, headers=headers,
                                        timeout=APPEND_TIMEOUT if timeout is None else timeout)
        except APIError as e:
            if e.err_code == WRONG_LAST_SEQUENCE:
                raise LogTaken(f"{self.subject}: another writer appended (expected last "
                               f"sequence {sent.after})") from e
            raise LogUnavailable(f"{self.subject}: {e}") from e
        except (TimeoutError, nats.errors.Error, OSError) as e:
            raise LogUnavailable(f"{self.subject}: {type(e).__name__} {e}") from e
        self.last_seq = ack.seq
        if not isinstance(sent.value, dict):  # (the header is not a record)
            self._records.append(sent.value)

    def _fail(self, error: BaseException) -> None:
        """This record and every one after it fail; the writer refuses records until a probe
        (or for good: LogTaken)."""
        log.error("table %s: append failed: %s", self.table_id, error)
        self._failed = error
        while self._queue:
            _data, _value, future = self._queue.popleft()
            if not future.done():
                future.set_exception(error)

    async def _probe(self) -> int:
        """The record whose append failed may be in the stream or not, or still on its way
        there (a stalled server stores it when it wakes): its fate is settled by sending it
        again, with the same message id and expected sequence (the module's doc): once the
        probe succeeds, the record is in the log, adopted."""
        if isinstance(self._failed, LogTaken):
            raise self._failed
        adopted = 0
        if self._unsure is not None:
            try:
                await self._publish(self._unsure)
            except LogTaken as error:
                if not await self._landed(self._unsure):
                    self._failed = error
                    raise
            self._unsure = None
            adopted = 1
        self._failed = None
        return adopted

    async def _landed(self, sent: _Sent) -> bool:
        """Whether the subject's last record is ``sent`` (by its message id): then it is
        adopted. (The stream checks the expected sequence before the duplicate: a copy that
        landed makes the second one's sequence wrong, not a duplicate.)"""
        try:
            msg = await self.js.get_last_msg(LOG_STREAM, self.subject)
        except NotFoundError as e:
            if e.err_code == NO_MESSAGE:
                return False
            raise LogUnavailable(f"{self.subject}: {e}") from e
        except (TimeoutError, APIError, nats.errors.Error, OSError) as e:
            raise LogUnavailable(f"{self.subject}: {type(e).__name__} {e}") from e
        if msg.seq is None or (msg.headers or {}).get(Header.MSG_ID) != sent.msg_id:
            return False
        self.last_seq = msg.seq
        if not isinstance(sent.value, dict):
            self._records.append(sent.value)
        return True


@dataclass(frozen=True, slots=True)
class _Sent:
    """A record as sent: what a probe sends again when its fate is unknown."""

    data: bytes
    value: Any
    msg_id: str
    after: int  # the subject's last sequence it was sent to follow


# --- the reading side ---------------------------------------------------------------------


async def _next(js: JetStreamContext, subject: str, seq: int) -> RawStreamMsg | None:
    """The first message of ``subject`` after sequence ``seq``, read from the stream's leader;
    None when there is none (NotFoundError when the stream itself is not there)."""
    try:
        return await js.get_msg(LOG_STREAM, seq=seq + 1, subject=subject, next=True)
    except NotFoundError as e:
        if e.err_code == NO_MESSAGE:
            return None
        raise


async def _batch(js: JetStreamContext, subject: str, seq: int
                 ) -> tuple[list[tuple[int, bytes]], int] | None:
    """Up to ``READ_BATCH`` messages of ``subject`` after sequence ``seq`` in one request
    (JetStream's batched direct get, nats-server 2.11 and later: the messages, then an « end
    of batch » status telling how many are left), with that count; None when the stream
    answers no direct get (no stream, or one made without ``allow_direct``). Raises
    nats.errors.TimeoutError when a reply is ``READ_TIMEOUT`` late, APIError on an error
    status. nats-py has no call for it (its ``get_msg`` takes one message), so the request is
    made here: one inbox, the request's replies on it."""
    nc = js._nc  # (nats-py's JetStreamContext keeps its client private; Pioche's contexts all
    # use the default API prefix, as bus/roles.py's permissions do)
    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox)
    try:
        request = {"seq": seq + 1, "next_by_subj": subject, "batch": READ_BATCH}
        await nc.publish(f"{DEFAULT_PREFIX}.DIRECT.GET.{LOG_STREAM}", json.dumps(request).encode(),
                         reply=inbox)
        found: list[tuple[int, bytes]] = []
        while True:
            msg = await sub.next_msg(timeout=READ_TIMEOUT)
            headers = msg.headers or {}
            status = headers.get(Header.STATUS)
            if status is None:
                found.append((int(headers["Nats-Sequence"]), msg.data))
            elif status == "204":  # (the end of the batch)
                return found, int(headers.get("Nats-Num-Pending", "0"))
            elif status == "404":  # (nothing after seq)
                return found, 0
            elif status == "503":  # (no responders)
                return None
            else:
                raise APIError.from_msg(msg)
    finally:
        with contextlib.suppress(nats.errors.Error):
            await sub.unsubscribe()


async def _messages(js: JetStreamContext, subject: str) -> AsyncIterator[tuple[int, bytes]]:
    """Every message of ``subject`` in order, with its sequence: in batches (``_batch``) from
    whichever replica answers, then checked against the stream's leader, which has the last
    word (a follower answering a direct get may be a few records behind it): what the leader
    has after the batches' end is read from it, one message a request (none, unless a
    follower lagged). Without direct gets, all from the leader that way."""
    seq = 0
    while True:
        batch = await _batch(js, subject, seq)
        if batch is None:
            break
        found, pending = batch
        for seq, data in found:
            yield seq, data
        if not found or not pending:
            break
    while (msg := await _next(js, subject, seq)) is not None:
        assert msg.seq is not None
        seq = msg.seq
        yield seq, msg.data or b""


async def read_table(js: JetStreamContext, table_id: str) -> StreamContents:
    """A table's whole log from the stream, as ``read_log`` reads a file: the header, the
    well-formed records after it (a malformed one ends the log, logged), and the sequence of
    the last one. Raises LogError when there is no log or no valid header."""
    subject = log_subject(table_id)
    header: dict[str, Any] | None = None
    records: list[list[Any]] = []
    last = 0
    dropped = 0
    async for seq, data in _messages(js, subject):
        try:
            value = _unpack(data)
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
            value = None
        if header is None:
            if not (isinstance(value, dict) and value.get("type") == "header"):
                raise LogError(f"{subject}: no header")
            if value.get("v") != SCHEMA_VERSION:
                raise LogError(f"{subject}: schema {value.get('v')!r}, not {SCHEMA_VERSION}")
            header = value
        elif dropped or not _valid_record(value) or (records and records[-1][0] == END):
            dropped += len(data)
            continue
        else:
            records.append(value)
        last = seq
    if header is None:
        raise LogError(f"{subject}: no log")
    if dropped:
        log.warning("%s: %d bytes of malformed records dropped", subject, dropped)
    return StreamContents(header, records, 0, dropped, last)


async def table_ids(js: JetStreamContext) -> list[str]:
    """Every table with a log in the stream."""
    info = await js.stream_info(LOG_STREAM, subjects_filter=LOG_PREFIX + ">")
    subjects = info.state.subjects or {}
    return sorted(s[len(LOG_PREFIX):] for s in subjects)


async def last_record(js: JetStreamContext, table_id: str) -> tuple[Any, float]:
    """A log's last record (the header if it has none) and its wall-clock time; LogError if
    there is no log."""
    try:
        msg = await js.get_last_msg(LOG_STREAM, log_subject(table_id))
    except NotFoundError as e:
        raise LogError(f"{table_id}: no log") from e
    when = msg.time.timestamp() if msg.time is not None else 0.0
    try:
        return _unpack(msg.data or b""), when
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        return None, when


async def remove(js: JetStreamContext, table_id: str) -> None:
    """Purge a table's log from the stream (retention, or a table closed before any move)."""
    with contextlib.suppress(NotFoundError):
        await js.purge_stream(LOG_STREAM, subject=log_subject(table_id))
