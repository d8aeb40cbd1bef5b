"""After fork(), the child's random bits differ from the parent's, and the
child finds free every lock another thread held at the fork."""

import fcntl
import os
import signal
import threading
import time
import warnings

import pytest

import uuidkit

RANDOM_V4 = (1 << 128) - 1 ^ (0xF << 76) ^ (0x3 << 62)
RANDOM_V7_TAIL = (1 << 58) - 1  # uuid7's low 58 bits are random (after a 16-bit counter)


@pytest.mark.parametrize("rounds", [20])
def test_uuid4_after_fork_differs(rounds, in_child):
    uuidkit.uuid4()  # the parent's generator is seeded before the fork
    for _ in range(rounds):
        parent, child = in_child(uuidkit.uuid4)
        assert parent.int & RANDOM_V4 != child.int & RANDOM_V4


def test_uuid7_after_fork_differs_and_is_increasing_in_the_child(in_child):
    before = uuidkit.uuid7()
    for _ in range(20):
        parent, child = in_child(uuidkit.uuid7)
        assert parent.int & RANDOM_V7_TAIL != child.int & RANDOM_V7_TAIL
        assert parent != child
        assert before < child and before < parent


def test_v7_generator_after_fork_differs(in_child):
    g = uuidkit.V7Generator("counter", bits=12)
    g()
    for _ in range(10):
        parent, child = in_child(g)
        assert parent.int & ((1 << 62) - 1) != child.int & ((1 << 62) - 1)


def _wait_bounded(pid, seconds):
    """The exit code of child `pid`, or None if it was still running after
    `seconds` (then it is killed: a hang fails the test instead of hanging it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.005)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def _fork_while_held(hold, use, rounds=20):
    """A thread calls `hold()` in a loop (each call holds a lock with the
    interpreter released) while this one forks: every child must complete
    `use()` at once, although another thread held the lock at the fork."""
    stop = threading.Event()
    calls = []

    def loop():
        while not stop.is_set():
            hold()
            calls.append(1)

    t = threading.Thread(target=loop)
    t.start()
    try:
        while len(calls) < 3:
            time.sleep(0.001)
        for round in range(rounds):
            with warnings.catch_warnings():
                # Python 3.12+ warns about forking with threads: the point here.
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    use()
                    code = 0
                finally:
                    os._exit(code)
            code = _wait_bounded(pid, 20)
            assert code is not None, f"round {round}: the child hung on a lock held at the fork"
            assert code == 0, f"round {round}: the child failed"
    finally:
        stop.set()
        t.join()


def test_a_child_forked_during_a_detached_batch_can_use_the_generator():
    # A batch holds the generator for a fraction of each call (the list is
    # made after): many cheap rounds, so that many forks find it held.
    g = uuidkit.V7Generator()
    _fork_while_held(lambda: g.batch(200_000), g, rounds=100)


def test_a_child_forked_during_a_state_reservation_can_use_the_state(tmp_path):
    # The state file's lock is held here, so every reservation waits for it
    # (then falls back): the other thread is inside `State` nearly always.
    with uuidkit.State(tmp_path / "state", block_ms=1, lock_timeout_ms=20) as s:
        s.uuid7()
        with open(tmp_path / "state.lock", "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            _fork_while_held(s.uuid7, s.uuid7, rounds=10)
