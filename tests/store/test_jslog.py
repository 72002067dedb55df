"""Table logs in a JetStream stream (pioche_tui/store/jslog.py), against a real nats-server
with JetStream: records in order and durable once acknowledged, read back as the file log's,
and no fork: a second writer's append is refused."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from pioche_tui import bus
from pioche_tui.bus.natsd import NatsServer
from pioche_tui.store import jslog
from pioche_tui.store.jslog import JetStreamLog, LogTaken, LogUnavailable
from pioche_tui.store.log import LogError
from tests.stall import stalled

pytestmark = pytest.mark.asyncio(loop_scope="module")

HEADER = {"table": "", "game": "defausse", "options": {}, "seed": 7, "seats": []}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def js(jetstream_server: NatsServer) -> AsyncIterator[JetStreamContext]:
    client: Client = await bus.connect(jetstream_server.url, "test-jslog")
    context = client.jetstream()
    await jslog.ensure_stream(context, replicas=1)
    try:
        yield context
    finally:
        await client.close()


def header(table_id: str) -> dict[str, object]:
    return {**HEADER, "table": table_id}


async def test_records_are_read_back_in_order(js: JetStreamContext) -> None:
    writer, written = JetStreamLog.create(js, "ORDER", header("ORDER"))
    moves = [writer.append_action(i % 4, ["play", i], stand_in=i == 3) for i in range(5)]
    seat = writer.append_seat(2, {"kind": "bot", "name": "Ambre"})
    end = writer.end("finished")
    await asyncio.gather(written, *moves, seat, end)
    contents = await jslog.read_table(js, "ORDER")
    assert contents.header["seed"] == 7 and contents.ended
    assert contents.records == [*(["a", i % 4, ["play", i]] for i in range(3)),
                                ["a", 3, ["play", 3], 1], ["a", 0, ["play", 4]],
                                ["s", 2, {"kind": "bot", "name": "Ambre"}], ["end", "finished"]]
    assert contents.last_seq == writer.last_seq
    assert writer.read_back() == contents.records
    assert "ORDER" in await jslog.table_ids(js)
    record, when = await jslog.last_record(js, "ORDER")
    assert record == ["end", "finished"] and when > 0


async def test_a_second_writer_is_refused_and_the_log_does_not_fork(js: JetStreamContext
                                                                    ) -> None:
    first, written = JetStreamLog.create(js, "FORK", header("FORK"))
    await written
    await first.append_action(0, ["play", 1])
    # A second coordinator takes the table (it read the log as it stands now).
    second = JetStreamLog.reopen(js, await jslog.read_table(js, "FORK"))
    await second.append_action(1, ["play", 2])
    # The first one, deposed, writes late: refused, and so is everything after.
    late = first.append_action(1, ["late", 1])
    after = first.append_action(2, ["late", 2])
    with pytest.raises(LogTaken):
        await late
    with pytest.raises(LogTaken):
        await after
    with pytest.raises(LogTaken):
        await first.append_seat(0, {"kind": "bot"})
    with pytest.raises(LogTaken):
        await first.probe()
    await second.append_action(2, ["play", 3])
    contents = await jslog.read_table(js, "FORK")
    assert [r[2] for r in contents.records] == [["play", 1], ["play", 2], ["play", 3]]


async def test_a_table_id_is_never_reused(js: JetStreamContext) -> None:
    _writer, written = JetStreamLog.create(js, "ONCE", header("ONCE"))
    await written
    _again, rewritten = JetStreamLog.create(js, "ONCE", header("ONCE"))
    with pytest.raises(LogTaken):
        await rewritten
    assert (await jslog.read_table(js, "ONCE")).records == []


async def test_a_stream_that_is_gone_fails_appends_until_a_probe_finds_it(
    js: JetStreamContext,
) -> None:
    writer, written = JetStreamLog.create(js, "GONE", header("GONE"))
    await written
    await writer.append_action(0, ["play", 1])
    await js.delete_stream(bus.LOG_STREAM)  # (the operator's mistake; every table loses)
    try:
        with pytest.raises(LogUnavailable):
            await writer.append_action(1, ["play", 2])
        with pytest.raises(LogUnavailable):  # refused at once until a probe succeeds
            await writer.append_action(1, ["play", 2])
        with pytest.raises(LogUnavailable):
            await writer.probe()
    finally:
        await jslog.ensure_stream(js, replicas=1)
    # An empty stream holds nothing of this table any more: not the writer's log, refused.
    with pytest.raises(LogTaken):
        await writer.probe()
    with pytest.raises(LogTaken):
        await writer.append_action(1, ["play", 2])


async def test_a_failed_append_is_settled_by_the_probe(js: JetStreamContext,
                                                       jetstream_server: NatsServer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An append not answered in time (the server stalled: SIGSTOP) may land later, when the
    server wakes: after the probe, it is in the log once, whatever happened."""
    monkeypatch.setattr(jslog, "APPEND_TIMEOUT", 0.2)
    writer, written = JetStreamLog.create(js, "LANDED", header("LANDED"))
    await written
    with stalled(jetstream_server), pytest.raises(LogUnavailable):
        await writer.append_action(0, ["play", 1])
    assert await writer.probe() == 1
    assert writer.read_back() == [["a", 0, ["play", 1]]]
    await writer.append_action(1, ["play", 2])
    contents = await jslog.read_table(js, "LANDED")
    assert [r[2] for r in contents.records] == [["play", 1], ["play", 2]]


async def test_reading_a_log_that_is_not_there(js: JetStreamContext) -> None:
    with pytest.raises(LogError):
        await jslog.read_table(js, "NOWHERE")
    with pytest.raises(LogError):
        await jslog.last_record(js, "NOWHERE")


async def _one_a_request(js: JetStreamContext, subject: str, seq: int) -> None:
    """No batched direct get: ``read_table`` reads one record a request from the stream's
    leader, as it did before the batches."""
    return None


async def test_a_long_log_is_read_in_batches_as_one_record_a_request_reads_it(
    js: JetStreamContext, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """500 records among another table's, a malformed one near the end (it and those after
    it dropped): the batched read gives what one record a request gives (header, records,
    dropped bytes, the last sequence the next append expects) in a handful of requests; so
    does a batched read from a replica a few records behind the leader."""
    monkeypatch.setattr(jslog, "READ_BATCH", 64)
    writer, written = JetStreamLog.create(js, "LONG", header("LONG"))
    other, other_written = JetStreamLog.create(js, "OTHER", header("OTHER"))
    await asyncio.gather(written, other_written)
    moves = []
    for i in range(500):
        moves.append(writer.append_action(i % 4, ["play", i], stand_in=i % 7 == 0))
        if i % 3 == 0:
            moves.append(other.append_action(0, ["play", i]))
    await asyncio.gather(*moves)
    await js.publish(writer.subject, b"\xc1 not msgpack")
    await js.publish(writer.subject, jslog._pack(["a", 0, ["play", 500]]))
    client = js._nc
    sent = client.stats["out_msgs"]
    batched = await jslog.read_table(js, "LONG")
    requests = client.stats["out_msgs"] - sent
    assert len(batched.records) == 500 and batched.dropped_bytes > 0
    assert batched.last_seq == writer.last_seq  # (the malformed record is not the last)
    assert requests <= 500 // 64 + 3  # (the batches, the leader's last word)

    real_batch = jslog._batch

    async def behind(js: JetStreamContext, subject: str, seq: int
                     ) -> tuple[list[tuple[int, bytes]], int] | None:
        found = await real_batch(js, subject, seq)
        if found is not None and not found[1]:  # (the last batch: three records short)
            return found[0][:-3], 0
        return found

    monkeypatch.setattr(jslog, "_batch", behind)
    lagging = await jslog.read_table(js, "LONG")
    monkeypatch.setattr(jslog, "_batch", _one_a_request)
    sent = client.stats["out_msgs"]
    one_by_one = await jslog.read_table(js, "LONG")
    assert client.stats["out_msgs"] - sent >= 500
    for contents in (batched, lagging):
        assert contents.header == one_by_one.header
        assert contents.records == one_by_one.records
        assert contents.dropped_bytes == one_by_one.dropped_bytes
        assert contents.last_seq == one_by_one.last_seq


async def test_an_empty_subject_or_no_stream_reads_as_before(
    js: JetStreamContext, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No log (an empty subject, a purged one) is a LogError, batched or not; no stream at
    all is the stream's NotFoundError, as one record a request found it."""
    _writer, written = JetStreamLog.create(js, "PURGED", header("PURGED"))
    await written
    await jslog.remove(js, "PURGED")
    for read in ("batched", "one a request"):
        if read != "batched":
            monkeypatch.setattr(jslog, "_batch", _one_a_request)
        for table_id in ("EMPTY", "PURGED"):
            with pytest.raises(LogError, match="no log"):
                await jslog.read_table(js, table_id)
    monkeypatch.undo()
    await js.delete_stream(bus.LOG_STREAM)
    try:
        for read in ("batched", "one a request"):
            if read != "batched":
                monkeypatch.setattr(jslog, "_batch", _one_a_request)
            with pytest.raises(NotFoundError) as raised:
                await jslog.read_table(js, "EMPTY")
            assert raised.value.err_code != jslog.NO_MESSAGE
    finally:
        await jslog.ensure_stream(js, replicas=1)
