"""uuid7: monotonic in one thread, across threads, and with batches."""

import threading

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


def test_batch_rejects_a_negative_size():
    import pytest

    for f in (uuidkit.uuid7_batch, uuidkit.uuid7_batch_bytes, uuidkit.uuid4_batch):
        with pytest.raises(ValueError, match="batch size out of range: expected 0..=1073741824, found -1"):
            f(-1)


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
