"""Several coordinators on one bus (issue 18): their leases and the tables' owners, in two
JetStream key-value buckets.

- ``pioche_leases`` (``bus.LEASES_BUCKET``): key a coordinator's id (its boot id), value its
  ``wire.Lease``, put every ``LEASE_EVERY``; the bucket's max age is ``LEASE_MAX_AGE``, so a
  coordinator that stops putting it (dead, paused, cut off) loses it within that time.
- ``pioche_owners`` (``bus.OWNERS_BUCKET``): key a table id, value the ``wire.Owner`` serving
  it. Made with ``create`` (a key that cannot exist yet: two coordinators drawing the same id
  cannot both own it), changed only by ``update(…, last=revision)``: a claim is a
  compare-and-set, one winner among coordinators claiming the same dead owner's table.

The coordinators write both (``coordinator/owners.py``); a front reads them (the owner of the
table a session of a dead coordinator sat at: ``coordinator/remote.py``).

- ``pioche_keys`` (``bus.KEYS_BUCKET``): the secrets the coordinators share, which no front may
  read (``bus/roles.py``): key ``guests``, the guests' secret (``share_guest_secret``).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from nats.aio.client import Client
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import (
    BadRequestError,
    BucketNotFoundError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NoKeysError,
)
from nats.js.kv import KeyValue

from .. import wire
from . import KEYS_BUCKET, LEASES_BUCKET, OWNERS_BUCKET, REQUEST_TIMEOUT
from .directory import make_bucket, through_elections

log = logging.getLogger(__name__)

LEASE_EVERY = 1.0  # seconds between two puts of a coordinator's lease
LEASE_MAX_AGE = 3.0  # seconds a lease lives without a put: a dead coordinator's is gone then
LOST_RACE = frozenset({10071, 10164})
"""JetStream's error codes for a write whose expected last sequence does not hold: it came
second (10071), or, on a replicated stream, while another write of that key was in process
(10164). Either way another write won."""
GUEST_SECRET = "guests"  # the guests' secret's key in pioche_keys


@dataclass(frozen=True)
class OwnerBuckets:
    """The two buckets on one connection (and the coordinators' secrets: not a front's)."""

    owners: KeyValue
    leases: KeyValue
    keys: KeyValue | None = None


async def open_owner_buckets(nc: Client, replicas: int = 1) -> OwnerBuckets:
    """The buckets, created if missing (file storage, ``replicas`` copies); a bucket that
    exists with another configuration is used as it is (as ``directory.open_buckets``)."""

    js = nc.jetstream(timeout=REQUEST_TIMEOUT)
    owners = await make_bucket(js, KeyValueConfig(
        bucket=OWNERS_BUCKET, description="Pioche: which coordinator serves each table",
        history=1, replicas=replicas, storage=StorageType.FILE))
    leases = await make_bucket(js, KeyValueConfig(
        bucket=LEASES_BUCKET, description="Pioche: the coordinators alive", history=1,
        ttl=LEASE_MAX_AGE, replicas=replicas, storage=StorageType.FILE))
    keys = await make_bucket(js, KeyValueConfig(
        bucket=KEYS_BUCKET, description="Pioche: the coordinators' shared secrets", history=1,
        replicas=replicas, storage=StorageType.FILE))
    return OwnerBuckets(owners, leases, keys)


async def share_guest_secret(keys: KeyValue, mine: bytes) -> bytes:
    """The guests' secret of every coordinator of the bus: ``mine`` if this one is the first to
    offer its own (``create``: one winner), else the one there. Asked again while the bucket's
    stream elects a leader (a coordinator starting beside another, on a loaded machine, found
    the bucket just made still without one: NoStreamResponseError, CI)."""
    return await through_elections("the keys' bucket", lambda: _share_guest_secret(keys, mine))


async def _share_guest_secret(keys: KeyValue, mine: bytes) -> bytes:
    try:
        await keys.create(GUEST_SECRET, wire.encode(wire.GuestSecret(mine.hex())))
        return mine
    except KeyWrongLastSequenceError:
        pass
    entry = await keys.get(GUEST_SECRET)
    return bytes.fromhex(wire.decode(entry.value or b"", expect=wire.GuestSecret).secret)


async def bind_owner_buckets(nc: Client) -> OwnerBuckets | None:
    """The buckets if a coordinator of several made them (a front's: its role may not create
    them), else None: the bus has one coordinator (``pioche serve --workers``)."""
    js = nc.jetstream(timeout=REQUEST_TIMEOUT)
    try:
        return OwnerBuckets(await js.key_value(OWNERS_BUCKET), await js.key_value(LEASES_BUCKET))
    except BucketNotFoundError:
        return None


async def alive(buckets: OwnerBuckets) -> set[str]:
    """The ids of the coordinators whose lease is there."""
    try:
        return set(await buckets.leases.keys())
    except NoKeysError:
        return set()


async def lease_gone(buckets: OwnerBuckets, cid: str) -> bool:
    """The lease of ``cid`` is not in the bucket, read by its key (a listing, ``alive``, may
    come back short while the bucket's stream changes leader; a claim wants the key's own
    answer). Errors other than « not found » are raised: unknown is not gone."""
    try:
        await buckets.leases.get(cid)
    except KeyNotFoundError:  # (KeyDeletedError too: a clean stop's delete)
        return True
    return False


async def owner_of(buckets: OwnerBuckets, table_id: str) -> tuple[str, int] | None:
    """The table's owner and the revision of its key, or None (no owner)."""
    try:
        entry = await buckets.owners.get(table_id)
    except KeyNotFoundError:
        return None
    if entry.value is None or entry.revision is None:
        return None
    try:
        return wire.decode(entry.value, expect=wire.Owner).cid, entry.revision
    except wire.WireError as error:
        log.warning("bad owner of %s dropped: %s", table_id, error)
        return None


async def owners(buckets: OwnerBuckets) -> dict[str, tuple[str, int]]:
    """Every table's owner and its key's revision (one read per table: the bucket holds the
    tables in play and waiting, a few hundred on a busy server)."""
    try:
        keys = await buckets.owners.keys()
    except NoKeysError:
        return {}
    found = await asyncio.gather(*(owner_of(buckets, key) for key in keys))
    return {key: owner for key, owner in zip(keys, found, strict=True) if owner is not None}


async def create(buckets: OwnerBuckets, table_id: str, cid: str) -> int | None:
    """``cid`` owns the new table ``table_id``: the key's revision, or None when the key
    exists (another coordinator owns a table of that id)."""
    for _ in range(3):
        try:
            return int(await buckets.owners.create(table_id, wire.encode(wire.Owner(cid))))
        except KeyNotFoundError:  # (nats-py's create, refused while another create of the
            # key is in process on a replicated bucket, looks for a deleted key to write over,
            # and finds none yet: asked again, it finds the other's)
            await asyncio.sleep(0.05)
        except (KeyWrongLastSequenceError, BadRequestError) as error:
            _lost(error)
            return None
    return None


async def claim(buckets: OwnerBuckets, table_id: str, cid: str, revision: int) -> int | None:
    """``cid`` takes the table over if its key is still at ``revision`` (compare-and-set): the
    new revision, or None when another changed it first (another claim won)."""
    try:
        return int(await buckets.owners.update(table_id, wire.encode(wire.Owner(cid)),
                                               last=revision))
    except (KeyWrongLastSequenceError, BadRequestError) as error:
        _lost(error)
        return None


async def release(buckets: OwnerBuckets, table_id: str, revision: int) -> None:
    """Forget the table's owner (the table ended or closed), if the key is still at
    ``revision`` (a deposed owner never deletes its successor's)."""
    try:
        await buckets.owners.delete(table_id, last=revision)
    except KeyNotFoundError:
        pass
    except (KeyWrongLastSequenceError, BadRequestError) as error:  # (a delete's wrong
        _lost(error)  # revision comes back as a BadRequestError)


def _lost(error: Exception) -> None:
    """Nothing for a write that lost a race (``LOST_RACE``: nats-py names only 10071 so, and
    only for a create or an update); any other error raised."""
    if not isinstance(error, KeyWrongLastSequenceError) and not (
            isinstance(error, BadRequestError) and error.err_code in LOST_RACE):
        raise error
