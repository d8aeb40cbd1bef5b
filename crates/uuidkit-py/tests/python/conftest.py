"""Shared helpers of the uuidkit pytest suite."""

import os

import pytest

import uuidkit


def _in_child(make):
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


@pytest.fixture
def in_child():
    """Runs a UUID maker in a forked child and in the parent: (parent's, child's)."""
    return _in_child
