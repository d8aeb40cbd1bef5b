"""The Python part of the uniqueness torture suite (docs/generator-design.md G5):
pre-fork workers on the module's process-wide generators, processes sharing a
`State` file while its lock is held, a mark at the end of its range, and the
bounds of `State`'s knobs. Each scenario checks 0 duplicates; a summary table
is printed at the end of the module (`pytest -s` shows it)."""

import fcntl
import multiprocessing
import os
import subprocess
import sys
import time
import uuid

import pytest

import uuidkit

ROWS = []
WORKERS = 4
PER = 20_000


def record(scenario, generator, streams, ordered):
    """Checks the streams of one scenario and records its row."""
    flat = [u for s in streams for u in s]
    dups = len(flat) - len(set(flat))
    order = sum(1 for s in streams for a, b in zip(s, s[1:]) if a >= b) if ordered else None
    ROWS.append((scenario, generator, len(flat), dups, "n/a" if order is None else order))
    assert dups == 0, f"{scenario} / {generator}: {dups} duplicates"
    assert not order, f"{scenario} / {generator}: {order} order violations"


def pre_fork(make):
    """`make` once here, then in WORKERS forked children and here again."""
    first = make()
    pipes = []
    for _ in range(WORKERS):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                data = b"".join(make().bytes for _ in range(PER))
                with os.fdopen(w, "wb") as f:
                    f.write(data)
            finally:
                os._exit(0)
        os.close(w)
        pipes.append((pid, r))
    streams = [[make() for _ in range(PER)]]
    for pid, r in pipes:
        with os.fdopen(r, "rb") as f:
            data = f.read()
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        streams.append([uuidkit.from_bytes(data[i : i + 16]) for i in range(0, len(data), 16)])
    return first, streams


@pytest.mark.parametrize(
    "name, make, ordered",
    [
        ("uuid1()", lambda: uuidkit.uuid1(), False),
        ("uuid1(node=uuid.getnode())", lambda: uuidkit.uuid1(node=uuid.getnode()), False),
        ("uuid6()", lambda: uuidkit.uuid6(), True),
        ("uuid7()", lambda: uuidkit.uuid7(), True),
        ("uuid4()", lambda: uuidkit.uuid4(), False),
    ],
)
def test_pre_fork_workers(name, make, ordered):
    first, streams = pre_fork(make)
    if ordered:
        assert all(s[0] > first for s in streams), "order across the fork"
    record("pre-fork: 4 workers", name, streams, ordered)


def test_pre_fork_state(tmp_path):
    with uuidkit.State(tmp_path / "s") as s:
        first, streams = pre_fork(s.uuid7)
        assert all(x[0] > first for x in streams)
        record("pre-fork: 4 workers", "State.uuid7()", streams, True)
        _, streams = pre_fork(s.uuid1)
        record("pre-fork: 4 workers", "State.uuid1()", streams, False)


def _state_worker(path, kind, n, timeout_ms, out):
    with uuidkit.State(path, lock_timeout_ms=timeout_ms) as s:
        make = getattr(s, kind)
        data = b"".join(make().bytes for _ in range(n))
    with open(out, "wb") as f:
        f.write(data)


def _read(path):
    data = path.read_bytes()
    return [uuidkit.from_bytes(data[i : i + 16]) for i in range(0, len(data), 16)]


@pytest.mark.parametrize("kind", ["uuid1", "uuid6", "uuid7"])
def test_processes_sharing_a_file_while_its_lock_is_held(tmp_path, kind):
    path = tmp_path / "state"
    ctx = multiprocessing.get_context("spawn")
    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        procs = [
            ctx.Process(target=_state_worker, args=(path, kind, 5_000, 100, tmp_path / f"o{i}"))
            for i in range(WORKERS)
        ]
        for p in procs:
            p.start()
        time.sleep(1.0)
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    streams = [_read(tmp_path / f"o{i}") for i in range(WORKERS)]
    record("4 processes, lock held outside", f"State.{kind}()", streams, kind != "uuid1")


def test_strict_state_refuses_a_held_lock(tmp_path):
    path = tmp_path / "state"
    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with uuidkit.State(path, lock_timeout_ms=50, strict=True) as s:
            with pytest.raises(RuntimeError, match="state unavailable"):
                s.uuid7()
            assert "not lockable" in s.status


def test_the_lock_wait_releases_the_gil(tmp_path):
    """Another thread runs while `State` waits for a held lock."""
    import threading

    path = tmp_path / "state"
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    with open(f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        t = threading.Thread(target=ticker)
        t.start()
        with uuidkit.State(path, lock_timeout_ms=300) as s:
            before = len(ticks)
            s.uuid7()  # waits 300 ms for the lock, then falls back
            during = len(ticks) - before
        stop.set()
        t.join()
    assert during > 10, f"the ticker ran {during} times during the wait"


def test_close_and_status_wait_with_the_gil_released(tmp_path):
    """`close()` waits for a held lock to give blocks back, and `status`
    for a thread that holds the generators while it waits: other threads
    run meanwhile."""
    import threading

    path = tmp_path / "state"
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    def ran_during(call):
        start = time.monotonic()
        call()
        end = time.monotonic()
        return end - start, len([t for t in ticks if start < t < end])

    s = uuidkit.State(path, block_ms=10_000, lock_timeout_ms=400)
    s.uuid7()  # a block reserved with the lock free: close() gives its end back
    other = uuidkit.State(tmp_path / "other", lock_timeout_ms=400)
    other.uuid7()
    t = threading.Thread(target=ticker)
    t.start()
    try:
        with open(f"{path}.lock", "w") as lock, open(f"{tmp_path / 'other'}.lock", "w") as lock2:
            fcntl.flock(lock, fcntl.LOCK_EX)
            fcntl.flock(lock2, fcntl.LOCK_EX)
            waited, ran = ran_during(s.close)
            assert waited > 0.3 and ran > 10, (waited, ran)
            # A thread waits for the lock inside `other.uuid6()` (a new
            # sequence: the file is read), holding the generators.
            waiter = threading.Thread(target=other.uuid6)
            waiter.start()
            time.sleep(0.05)
            waited, ran = ran_during(lambda: other.status)
            waiter.join()
            assert waited > 0.2 and ran > 10, (waited, ran)
    finally:
        stop.set()
        t.join()
        other.close()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"block_ms": 0}, "block_ms out of range: expected 1..=10000, found 0"),
        ({"block_ms": 10**15}, "block_ms out of range: expected 1..=10000, found 1000000000000000"),
        ({"lock_timeout_ms": 60_001}, "lock_timeout_ms out of range: expected 0..=60000, found 60001"),
        # Never an OverflowError, whatever the int's size or sign.
        ({"block_ms": -1}, "block_ms out of range: expected 1..=10000, found -1"),
        ({"lock_timeout_ms": 10**30}, f"lock_timeout_ms out of range: expected 0..=60000, found {10**30}"),
        ({"lock_timeout_ms": -(2**70)}, f"lock_timeout_ms out of range: expected 0..=60000, found {-(2**70)}"),
    ],
)
def test_knobs_are_bounded(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        uuidkit.State(tmp_path / "s", **kwargs)


def test_knobs_of_the_wrong_type_name_the_argument(tmp_path):
    for name in ("block_ms", "lock_timeout_ms"):
        with pytest.raises(TypeError, match=f"^{name}: expected an int, found float$"):
            uuidkit.State(tmp_path / "s", **{name: 1.5})


def write_v7_mark(path, hwm_ms):
    """A valid state file (format: uuidkit's `state` module docs) holding one v7 mark."""
    import hashlib

    body = f"uuidkit-state 1\nv7.hwm_ms {hwm_ms}\n".encode()
    path.write_bytes(body + b"sha256 " + hashlib.sha256(body).hexdigest()[:16].encode() + b"\n")


def test_a_mark_at_the_end_of_its_range_is_an_error_not_a_hang(tmp_path):
    path = tmp_path / "state"
    write_v7_mark(path, (1 << 48) - 1)
    code = "import sys, uuidkit\ntry:\n    uuidkit.State(sys.argv[1]).uuid7()\nexcept RuntimeError as e:\n    print(e)\n"
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert "timestamp out of range" in out.stdout, out
    with uuidkit.State(path) as s:  # read as valid (not repaired), and reported
        with pytest.raises(RuntimeError, match="timestamp out of range"):
            s.uuid7()
        assert "ahead of the clock" in s.status, s.status


def teardown_module():
    if not ROWS:
        return
    w = max(len(r[0]) for r in ROWS), max(len(r[1]) for r in ROWS)
    lines = [f"| {'scenario':{w[0]}} | {'generator':{w[1]}} | {'UUIDs':>7} | duplicates | order violations |"]
    for s, g, n, d, o in ROWS:
        lines.append(f"| {s:{w[0]}} | {g:{w[1]}} | {n:>7} | {d:>10} | {o!s:>16} |")
    print("\n" + "\n".join(lines))
