"""uuidkit: RFC 9562 UUIDs, a drop-in for the standard ``uuid`` module.

Every function returns a plain :class:`uuid.UUID`, so ``isinstance``,
comparison, hashing, ``copy`` and ``pickle`` behave exactly as the standard
module's, and a pickle loads where uuidkit is not installed::

    import uuid, uuidkit
    key = uuidkit.uuid7()              # time-ordered, monotonic across threads and fork()
    assert isinstance(key, uuid.UUID)
    uuidkit.timestamp(key)             # datetime.datetime(..., tzinfo=datetime.timezone.utc)
    uuidkit.parse("not-a-uuid")        # ParseError (a ValueError), with .position

Beyond the standard module: :func:`uuid7_at`, :func:`v7_min` / :func:`v7_max`
(times as aware ``datetime`` or ``unix_ms=``), :func:`timestamp`,
:class:`V7Generator` (RFC 9562 section 6.2 method), :class:`State` (the
section 6.3 state file shared by processes), :func:`uuid8_name` (SHA-2/SHA-3
names), :func:`parse` / :func:`parse_strict`, and batches
(:func:`uuid7_batch`, :func:`uuid7_batch_bytes`, :func:`uuid4_batch`).
"""

from uuid import (
    NAMESPACE_DNS,
    NAMESPACE_OID,
    NAMESPACE_URL,
    NAMESPACE_X500,
    UUID,
    SafeUUID,
    getnode,
)

from uuidkit._uuidkit import (
    ParseError,
    State,
    V7Generator,
    from_bytes,
    parse,
    parse_strict,
    timestamp,
    unix_ms,
    uuid1,
    uuid3,
    uuid4,
    uuid4_batch,
    uuid5,
    uuid6,
    uuid7,
    uuid7_at,
    uuid7_batch,
    uuid7_batch_bytes,
    uuid8,
    uuid8_name,
    v7_max,
    v7_min,
)

#: The Nil UUID (RFC 9562 section 5.9), all 128 bits 0; as CPython 3.14's ``uuid.NIL``.
NIL = UUID(int=0)
#: The Max UUID (RFC 9562 section 5.10), all 128 bits 1; as CPython 3.14's ``uuid.MAX``.
MAX = UUID(int=(1 << 128) - 1)

__all__ = [
    "MAX",
    "NAMESPACE_DNS",
    "NAMESPACE_OID",
    "NAMESPACE_URL",
    "NAMESPACE_X500",
    "NIL",
    "ParseError",
    "SafeUUID",
    "State",
    "UUID",
    "V7Generator",
    "from_bytes",
    "getnode",
    "parse",
    "parse_strict",
    "timestamp",
    "unix_ms",
    "uuid1",
    "uuid3",
    "uuid4",
    "uuid4_batch",
    "uuid5",
    "uuid6",
    "uuid7",
    "uuid7_at",
    "uuid7_batch",
    "uuid7_batch_bytes",
    "uuid8",
    "uuid8_name",
    "v7_max",
    "v7_min",
]
