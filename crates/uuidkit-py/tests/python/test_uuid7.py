"""uuid7: monotonic in one thread, across threads, and with batches."""

import subprocess
import sys
import threading
import time

import uuidkit


def test_a_million_uuid7_strictly_increasing():
    f = uuidkit.uuid7
    us = [f() for _ in range(1_000_000)]
    assert all(a < b for a, b in zip(us, us[1:]))
    assert all(u.version == 7 for u in us[:: 1000])


def test_increasing_across_four_threads_in_happens_before_order():
    lock = threading.Lock()
    log = []
    per_thread = [[] for _ in range(4)]

    def work(mine):
        for _ in range(20_000):
            with lock:  # orders the calls: each one happens-before the next
                u = uuidkit.uuid7()
                log.append(u)
            mine.append(u)

    threads = [threading.Thread(target=work, args=(per_thread[i],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(log) == 80_000 and len(set(log)) == 80_000
    assert all(a < b for a, b in zip(log, log[1:]))
    for mine in per_thread:
        assert all(a < b for a, b in zip(mine, mine[1:]))


def test_threads_without_a_lock_never_collide():
    out = [[] for _ in range(4)]

    def work(mine):
        for _ in range(50_000):
            mine.append(uuidkit.uuid7())

    threads = [threading.Thread(target=work, args=(out[i],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [u for mine in out for u in mine]
    assert len(set(everything)) == len(everything)
    for mine in out:
        assert all(a < b for a, b in zip(mine, mine[1:]))


def test_batches_are_increasing_and_ordered_with_single_calls():
    before = uuidkit.uuid7()
    batch = uuidkit.uuid7_batch(100_000)
    after = uuidkit.uuid7()
    assert len(batch) == 100_000
    assert before < batch[0] and batch[-1] < after
    assert all(a < b for a, b in zip(batch, batch[1:]))
    assert uuidkit.uuid7_batch(0) == []


def test_batch_bytes_are_the_uuids_bytes():
    before = uuidkit.uuid7()
    data = uuidkit.uuid7_batch_bytes(1000)
    assert isinstance(data, bytes) and len(data) == 16_000
    us = [uuidkit.from_bytes(data[i : i + 16]) for i in range(0, len(data), 16)]
    assert before < us[0]
    assert all(a < b for a, b in zip(us, us[1:]))
    assert all(u.version == 7 and u.bytes == data[16 * i : 16 * i + 16] for i, u in enumerate(us))


BATCHES = {
    "uuid7_batch": uuidkit.uuid7_batch,
    "uuid7_batch_bytes": uuidkit.uuid7_batch_bytes,
    "uuid4_batch": uuidkit.uuid4_batch,
    "V7Generator().batch": uuidkit.V7Generator().batch,
}


def test_every_batch_has_the_same_bounds():
    import pytest

    for name, f in BATCHES.items():
        for n in (-1, -(2**63), 2**30 + 1, 2**40, 2**60, 2**64, 2**200):
            with pytest.raises(ValueError, match=rf"^batch size out of range: expected 0..=1073741824, found {n}$"):
                f(n)
        for n, kind in ((1.5, "float"), ("3", "str"), (None, "NoneType")):
            with pytest.raises(TypeError, match=rf"^batch size: expected an int, found {kind}$"):
                f(n)
        assert len(f(0)) == 0, name
        assert len(f(True)) in (1, 16), name  # an int, as everywhere in Python


def test_a_batch_too_large_for_memory_is_a_memory_error():
    # Under a 2 GiB address-space limit, 2**30 UUIDs (16 GiB as bytes, far
    # more as objects) cannot be had: each entry point raises MemoryError and
    # the interpreter goes on.
    code = (
        "import resource, uuidkit\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "g = uuidkit.V7Generator()\n"
        "for f in (uuidkit.uuid7_batch_bytes, uuidkit.uuid7_batch, uuidkit.uuid4_batch, g.batch):\n"
        "    try:\n"
        "        f(2**30)\n"
        "        print('no error')\n"
        "    except MemoryError as e:\n"
        "        print('MemoryError', e)\n"
        "print(len(uuidkit.uuid7_batch(1000)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 5 and lines[-1] == "1000", out.stdout
    assert all(line.startswith("MemoryError") for line in lines[:4]), out.stdout


def _ran_during(call):
    """Whether another thread ran Python code while `call()` ran: it waits
    for the interpreter lock from just before the call and records when it
    got it. The switch interval is raised so that it can only get the lock
    when the call releases it (or after the call)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(0.05)
    try:
        for _ in range(5):
            ran_at = []
            go = threading.Event()
            t = threading.Thread(target=lambda: (go.wait(), ran_at.append(time.perf_counter_ns())))
            t.start()
            time.sleep(0.01)  # t now waits on the event, not on the interpreter
            go.set()
            start = time.perf_counter_ns()
            call()
            end = time.perf_counter_ns()
            t.join()
            if start < ran_at[0] < end:
                return True
        return False
    finally:
        sys.setswitchinterval(old)


def test_large_batches_let_other_threads_run():
    for name, f in BATCHES.items():
        assert _ran_during(lambda: f(2**22)), name


def test_uuid4_batch():
    us = uuidkit.uuid4_batch(1000)
    assert len(set(us)) == 1000 and all(u.version == 4 for u in us)


def test_batch_restores_the_garbage_collector_state():
    import gc

    assert gc.isenabled()
    uuidkit.uuid7_batch(10)
    assert gc.isenabled()
    gc.disable()
    try:
        uuidkit.uuid4_batch(10)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_batch_list_is_never_seen_half_filled():
    # A thread walking gc.get_objects() (what a memory profiler does) while
    # large batches run must never find the batch's list before it is full:
    # reading an empty item would crash the interpreter, so it runs in a
    # subprocess.
    code = (
        "import faulthandler, gc, threading, uuidkit\n"
        "faulthandler.enable()\n"
        "N = 100_000\n"
        "def spy():\n"
        "    while True:\n"
        "        for o in gc.get_objects():\n"
        "            if type(o) is list and len(o) == N:\n"
        "                assert all(type(u) is not type(None) for u in o)\n"
        "threading.Thread(target=spy, daemon=True).start()\n"
        "g = uuidkit.V7Generator()\n"
        "for _ in range(40):\n"
        "    for f in (uuidkit.uuid7_batch, uuidkit.uuid4_batch, g.batch):\n"
        "        f(N)\n"
        "print('no crash')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout == "no crash\n", out.stderr[-2000:]


def test_other_threads_never_see_the_collector_paused_by_a_batch():
    import gc

    assert gc.isenabled()
    seen = []
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            seen.append(gc.isenabled())

    t = threading.Thread(target=watch)
    t.start()
    try:
        for f in BATCHES.values():
            f(200_000)
    finally:
        stop.set()
        t.join()
    assert seen and all(seen), f"{seen.count(False)} of {len(seen)} looks saw it disabled"


def test_a_gc_change_made_by_another_thread_during_a_batch_is_kept():
    import gc

    old = sys.getswitchinterval()
    # The other thread can only run when the batch releases the interpreter;
    # it sets the state it wants at each of those chances.
    sys.setswitchinterval(0.05)
    try:
        for want, change in ((False, gc.disable), (True, gc.enable)):
            for name, f in BATCHES.items():
                gc.disable() if want else gc.enable()  # the other state first
                finished = threading.Event()
                acted = []

                def other():
                    while not finished.is_set():
                        change()
                        acted.append(1)
                        time.sleep(0)

                t = threading.Thread(target=other)
                t.start()
                f(1_000_000)
                finished.set()
                t.join()
                assert acted and gc.isenabled() is want, (name, want)
    finally:
        sys.setswitchinterval(old)
        gc.enable()
