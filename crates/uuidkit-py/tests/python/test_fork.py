"""After fork(), the child's random bits differ from the parent's."""

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
