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

Differences from the standard module: :func:`uuid1` uses a random multicast
node (chosen once per process) unless ``node`` is given; :func:`uuid1` and
:func:`uuid6` read the coarse real-time clock (a few milliseconds'
resolution, the 100-ns field counted on between calls), so a ``uuid1()`` made
after a ``uuid7()`` may carry an earlier time; :func:`uuid6` holds above its
last timestamp when the clock steps back, as 3.14's does; ``is_safe`` is
always ``SafeUUID.unknown``.
"""

from uuid import (
    NAMESPACE_DNS,
    NAMESPACE_OID,
    NAMESPACE_URL,
    NAMESPACE_X500,
    RESERVED_FUTURE,
    RESERVED_MICROSOFT,
    RESERVED_NCS,
    RFC_4122,
    UUID,
    SafeUUID,
    bytes_,
    getnode,
    int_,
)

from uuidkit._uuidkit import (
    DecodeError,
    ParseError,
    Snowflake,
    State,
    V7Generator,
    facade_decode,
    facade_encode,
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


def main():
    """Run the uuid command line interface (``python -m uuidkit``), as the
    standard module's ``main`` (CPython 3.12 and later; 3.14's ``uuid6``,
    ``uuid7``, ``uuid8`` and ``-C`` too), with uuidkit's generators."""
    import argparse

    funcs = {
        "uuid1": uuid1,
        "uuid3": uuid3,
        "uuid4": uuid4,
        "uuid5": uuid5,
        "uuid6": uuid6,
        "uuid7": uuid7,
        "uuid8": uuid8,
    }
    named = ("uuid3", "uuid5")
    namespaces = {"@dns": NAMESPACE_DNS, "@url": NAMESPACE_URL, "@oid": NAMESPACE_OID, "@x500": NAMESPACE_X500}
    parser = argparse.ArgumentParser(
        prog="python -m uuidkit", description="Generate UUIDs using the selected UUID function."
    )
    parser.add_argument(
        "-u",
        "--uuid",
        choices=funcs.keys(),
        default="uuid4",
        help="The function to use to generate the UUID. By default uuid4 is used.",
    )
    parser.add_argument(
        "-n",
        "--namespace",
        help="The namespace is a UUID, or '@ns' where 'ns' is a well-known predefined "
        "UUID addressed by namespace name: @dns, @url, @oid or @x500. "
        "Only required for uuid3/uuid5.",
    )
    parser.add_argument(
        "-N", "--name", help="The name used as part of generating the UUID. Only required for uuid3/uuid5."
    )
    parser.add_argument("-C", "--count", metavar="NUM", type=int, default=1, help="Generate NUM fresh UUIDs.")
    args = parser.parse_args()
    func = funcs[args.uuid]
    if args.uuid in named:
        if not args.namespace or not args.name:
            parser.error(
                f"Incorrect number of arguments. {args.uuid} requires a namespace and a name. "
                "Run 'python -m uuidkit -h' for more information."
            )
        namespace = namespaces.get(args.namespace) or UUID(args.namespace)
        for _ in range(args.count):
            print(func(namespace, args.name))
    else:
        for _ in range(args.count):
            print(func())


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
    "RESERVED_FUTURE",
    "RESERVED_MICROSOFT",
    "RESERVED_NCS",
    "RFC_4122",
    "SafeUUID",
    "Snowflake",
    "State",
    "UUID",
    "V7Generator",
    "bytes_",
    "facade_decode",
    "facade_encode",
    "from_base32",
    "from_base32hex",
    "from_base58",
    "from_base64url",
    "from_bytes",
    "from_typeid",
    "from_ulid",
    "getnode",
    "int_",
    "main",
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
