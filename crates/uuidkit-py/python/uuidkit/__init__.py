"""uuidkit: RFC 9562 UUIDs, a drop-in for the standard ``uuid`` module.

Every function returns a plain :class:`uuid.UUID`, so ``isinstance``,
comparison, hashing, ``copy`` and ``pickle`` behave exactly as the standard
module's, and a pickle loads where uuidkit is not installed::

    import uuid, uuidkit
    key = uuidkit.uuid7()              # time-ordered, monotonic across threads and fork()
    assert isinstance(key, uuid.UUID)
    uuidkit.timestamp(key)             # datetime.datetime(..., tzinfo=datetime.timezone.utc)
    uuidkit.parse("not-a-uuid")        # ParseError (a ValueError), with .position
    uuidkit.to_typeid(key, "user")     # 'user_01m8…', and back with from_typeid

Beyond the standard module: :func:`uuid7_at`, :func:`v7_min` / :func:`v7_max`
(times as aware ``datetime`` or ``unix_ms=``), :func:`timestamp`,
:class:`V7Generator` (RFC 9562 section 6.2 method), :class:`State` (the
section 6.3 state file shared by processes), :func:`uuid8_name` (SHA-2/SHA-3
names), :func:`parse` / :func:`parse_strict`, the short encodings and TypeID
(:func:`to_base32` / :func:`from_base32`, and so on for ``base32hex``,
``base58``, ``base64url``, ``ulid`` and ``typeid``; errors are
:class:`DecodeError`, a ``ValueError`` with ``.position``), and batches
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
    DecodeError,
    ParseError,
    State,
    V7Generator,
    from_base32,
    from_base32hex,
    from_base58,
    from_base64url,
    from_bytes,
    from_typeid,
    from_ulid,
    parse,
    parse_strict,
    timestamp,
    to_base32,
    to_base32hex,
    to_base58,
    to_base64url,
    to_typeid,
    to_ulid,
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
    "DecodeError",
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
    "from_base32",
    "from_base32hex",
    "from_base58",
    "from_base64url",
    "from_bytes",
    "from_typeid",
    "from_ulid",
    "getnode",
    "parse",
    "parse_strict",
    "timestamp",
    "to_base32",
    "to_base32hex",
    "to_base58",
    "to_base64url",
    "to_typeid",
    "to_ulid",
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
