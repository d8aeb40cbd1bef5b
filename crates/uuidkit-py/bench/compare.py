"""uuidkit against the standard module and uuid-utils, in one run.

    python crates/uuidkit-py/bench/compare.py [--quick]

Prints a Markdown table (time per UUID, best of several interleaved repeats,
each timing a loop of calls with ``timeit``) for benchmarks/python.md. Needs the uuidkit
wheel and uuid-utils installed in the running interpreter.
"""

import os
import sys
import time
import timeit
import uuid

import uuid_utils
import uuid_utils.compat

import uuidkit

QUICK = "--quick" in sys.argv


def stdlib_uuid7_factory():
    """The standard module's ``uuid7`` where it has one (3.14+); before that,
    CPython 3.14's algorithm in Python (a 42-bit counter seeded from
    ``os.urandom`` at each new millisecond, 32 random bits per UUID), so that
    3.11 has a baseline."""
    if hasattr(uuid, "uuid7"):
        return uuid.uuid7
    last = [None, 0]

    def uuid7():
        ms = time.time_ns() // 1_000_000
        if last[0] is None or ms > last[0]:
            rand = int.from_bytes(os.urandom(10), "big")
            counter, tail = (rand >> 32) & 0x1FF_FFFF_FFFF, rand & 0xFFFF_FFFF
        else:
            ms = last[0] if ms == last[0] else last[0] + 1
            counter = last[1] + 1
            if counter > 0x3FF_FFFF_FFFF:
                ms += 1
                rand = int.from_bytes(os.urandom(10), "big")
                counter, tail = (rand >> 32) & 0x1FF_FFFF_FFFF, rand & 0xFFFF_FFFF
            else:
                tail = int.from_bytes(os.urandom(4), "big")
        value = (ms & 0xFFFF_FFFF_FFFF) << 80 | (counter >> 30 & 0xFFF) << 64
        value |= (counter & 0x3FFF_FFFF) << 32 | tail | 0x7 << 76 | 0b10 << 62
        last[0], last[1] = ms, counter
        return uuid.UUID(int=value)

    return uuid7


def per_call(fs):
    """Best time per call of each function, in nanoseconds. The repeats are
    interleaved (one of each function in turn), so that a busy spell on the
    machine slows them all rather than one."""
    repeats = 3 if QUICK else 9
    best = [float("inf")] * len(fs)
    for _ in range(repeats):
        for i, (f, n) in enumerate(fs):
            best[i] = min(best[i], timeit.timeit(f, number=n) / n * 1e9)
    return best


def per_uuid(f, n):
    """Best time per UUID of a call that makes ``n``, in nanoseconds."""
    repeats = 2 if QUICK else 5
    return min(timeit.repeat(f, number=1, repeat=repeats)) / n * 1e9


def main():
    n = 100_000 if QUICK else 1_000_000
    stdlib7 = stdlib_uuid7_factory()
    rows = []
    for op, std, uu, uu_compat, ours in [
        ("uuid4()", uuid.uuid4, uuid_utils.uuid4, uuid_utils.compat.uuid4, uuidkit.uuid4),
        ("uuid7()", stdlib7, uuid_utils.uuid7, uuid_utils.compat.uuid7, uuidkit.uuid7),
    ]:
        t_std, t_uu, t_compat, t_ours = per_call([(std, n // 10), (uu, n), (uu_compat, n // 2), (ours, n)])
        rows.append((op, t_std, t_uu, t_compat, t_ours))
    print(f"Python {sys.version.split()[0]}, uuid-utils {uuid_utils.__version__}, {n:,} calls per repeat\n")
    print("| call | stdlib `uuid` | uuid-utils | uuid-utils `compat` | **uuidkit** | vs stdlib | vs uuid-utils |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for op, t_std, t_uu, t_compat, t_ours in rows:
        print(
            f"| `{op}` | {t_std:.0f} ns | {t_uu:.0f} ns | {t_compat:.0f} ns | **{t_ours:.0f} ns** "
            f"| {t_std / t_ours:.1f}x faster | {t_uu / t_ours:.2f}x |"
        )
    (single,) = per_call([(uuidkit.uuid7, n)])
    loop = per_uuid(lambda: [uuidkit.uuid7() for _ in range(n)], n)
    batch = per_uuid(lambda: uuidkit.uuid7_batch(n), n)
    raw = per_uuid(lambda: uuidkit.uuid7_batch_bytes(n), n)
    print(f"\n| {n:,} v7 UUIDs | per UUID |")
    print("|---|---:|")
    print(f"| `uuid7()` in a timeit loop | {single:.0f} ns |")
    print(f"| `[uuid7() for _ in range(n)]` | {loop:.0f} ns |")
    print(f"| `uuid7_batch(n)` (list of `uuid.UUID`) | {batch:.0f} ns |")
    print(f"| `uuid7_batch_bytes(n)` (16 n bytes) | {raw:.1f} ns |")


if __name__ == "__main__":
    main()
