"""uuidkit.State: processes sharing a state file (RFC 9562 section 6.3)."""

import multiprocessing
import os

import pytest

import uuidkit


def produce(path, n, queue):
    with uuidkit.State(path, block_ms=5) as s:
        v7 = [s.uuid7() for _ in range(n)]
        v1, fell_back = [], False
        for _ in range(n // 10):
            v1.append(s.uuid1())
            # Under heavy load the file's lock may not be had in time: the store
            # then keeps state in memory for that block, with a node of its own,
            # and says so in the status.
            fell_back |= "in-process state" in (s.status or "")
        v6 = [s.uuid6() for _ in range(n // 10)]
    queue.put((os.getpid(), [u.bytes for u in v7], [u.bytes for u in v1], [u.bytes for u in v6], fell_back))


def test_four_processes_sharing_a_state_file(tmp_path):
    path = str(tmp_path / "state")
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=produce, args=(path, 20_000, queue)) for _ in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert len({pid for pid, *_ in results}) == 4
    for index, version in [(1, 7), (2, 1), (3, 6)]:
        everything = []
        for result in results:
            mine = [uuidkit.from_bytes(b) for b in result[index]]
            assert all(u.version == version for u in mine)
            if version == 1:  # v1 sorts by time, not by its bytes
                keys = [u.time for u in mine]
            else:
                keys = mine
            assert all(a < b for a, b in zip(keys, keys[1:])), f"v{version} not increasing"
            everything += mine
        assert len(set(everything)) == len(everything), f"v{version} duplicate"
    # v1 of all processes that kept to the file share its node, and their
    # timestamps never repeat.
    v1 = [uuidkit.from_bytes(b) for result in results if not result[4] for b in result[2]]
    assert len({u.node for u in v1}) <= 1
    assert len({u.time for u in v1}) == len(v1)
    with open(path) as f:
        assert f.readline().startswith("uuidkit-state 1")


def test_status_close_and_continuation(tmp_path):
    path = tmp_path / "state"
    s = uuidkit.State(path)
    assert s.status is None and s.path == path
    first = s.uuid7()
    assert s.status.startswith("unsafe:")  # no file yet: state written fresh
    s.close()
    s.close()  # idempotent
    with pytest.raises(RuntimeError, match="state closed"):
        s.uuid7()
    with uuidkit.State(str(path)) as again:
        second = again.uuid7()
        assert again.status == "safe"
    assert first < second
    assert repr(again) == f"uuidkit.State({str(path)!r})".replace("'", '"')


def test_bad_block_size(tmp_path):
    with pytest.raises(ValueError, match="block_ms out of range"):
        uuidkit.State(tmp_path / "s", block_ms=0)


def test_a_path_with_a_nul_character_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"^path: expected no NUL character, found one at position 1$"):
        uuidkit.State("a\x00b")


def test_a_forked_child_reserves_its_own_blocks(tmp_path, in_child):
    with uuidkit.State(tmp_path / "state") as s:
        before = s.uuid7()
        for make in (s.uuid7, s.uuid6, s.uuid1):
            parent, child = in_child(make)
            assert parent != child
            # Disjoint blocks: never the same timestamp in parent and child.
            if make == s.uuid7:
                assert before < parent and before < child
                assert uuidkit.unix_ms(parent) != uuidkit.unix_ms(child)
            else:
                assert parent.time != child.time


def test_only_a_state_file_is_replaced_and_strict_keeps_a_damaged_one(tmp_path):
    # Someone else's file at the path: never replaced; generation goes on in
    # memory and the status says why.
    notes = tmp_path / "notes"
    notes.write_text("buy milk\n")
    with uuidkit.State(notes) as s:
        a, b = s.uuid7(), s.uuid7()
        assert a < b
        assert "not a uuidkit state file" in s.status, s.status
    assert notes.read_text() == "buy milk\n"
    # A damaged state file: strict keeps it byte for byte and refuses; the
    # default repairs it.
    path = tmp_path / "state"
    with uuidkit.State(path) as s:
        s.uuid7()
    cut = path.read_bytes()[:-5]
    path.write_bytes(cut)
    with uuidkit.State(path, strict=True) as s:
        with pytest.raises(RuntimeError, match="found damaged state file"):
            s.uuid7()
    assert path.read_bytes() == cut
    with uuidkit.State(path) as s:
        s.uuid7()
        assert "truncated state file" in s.status, s.status
    assert path.read_bytes().startswith(b"uuidkit-state 1\n")
