"""After fork(), the child's random bits differ from the parent's."""

import os

import pytest

import uuidkit

RANDOM_V4 = (1 << 128) - 1 ^ (0xF << 76) ^ (0x3 << 62)
RANDOM_V7_TAIL = (1 << 58) - 1  # uuid7's low 58 bits are random (after a 16-bit counter)


def in_child(make):
    """`make()` in a forked child and in the parent, right after the fork."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report and leave at once
        try:
            os.write(w, make().bytes)
        finally:
            os._exit(0)
    os.close(w)
    mine = make()
    child = os.read(r, 16)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return mine, uuidkit.from_bytes(child)


@pytest.mark.parametrize("rounds", [20])
def test_uuid4_after_fork_differs(rounds):
    uuidkit.uuid4()  # the parent's generator is seeded before the fork
    for _ in range(rounds):
        parent, child = in_child(uuidkit.uuid4)
        assert parent.int & RANDOM_V4 != child.int & RANDOM_V4


def test_uuid7_after_fork_differs_and_is_increasing_in_the_child():
    before = uuidkit.uuid7()
    for _ in range(20):
        parent, child = in_child(uuidkit.uuid7)
        assert parent.int & RANDOM_V7_TAIL != child.int & RANDOM_V7_TAIL
        assert parent != child
        assert before < child and before < parent


def test_v7_generator_after_fork_differs():
    g = uuidkit.V7Generator("counter", bits=12)
    g()
    for _ in range(10):
        parent, child = in_child(g)
        assert parent.int & ((1 << 62) - 1) != child.int & ((1 << 62) - 1)
