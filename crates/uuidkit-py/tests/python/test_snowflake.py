"""uuidkit.Snowflake: 64-bit time-ordered IDs of a layout, as ints."""

import os
import threading

import pytest

import uuidkit


def test_ids_increase_and_carry_the_worker():
    g = uuidkit.Snowflake("twitter", worker=37)
    ids = g.batch(10_000) + [g() for _ in range(1_000)]
    assert all(a < b for a, b in zip(ids, ids[1:]))
    assert all((i >> 12) & 1023 == 37 and 0 < i < 2**63 for i in ids)
    unix_ms, worker, sequence = g.decompose(ids[0])
    assert worker == 37 and 0 <= sequence < 4096
    assert abs(unix_ms / 1000 - __import__("time").time()) < 60
    assert g.layout == "twitter"
    assert repr(g) == "uuidkit.Snowflake(\"twitter\", worker=37)"


def test_sonyflake_puts_the_machine_last_and_threads_never_repeat():
    g = uuidkit.Snowflake("sonyflake", worker=0xBEEF)
    out = []

    def run():
        out.extend(g() for _ in range(300))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == 1200
    assert all(i & 0xFFFF == 0xBEEF for i in out)


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="worker out of range: expected 0..=1023, found 1024"):
        uuidkit.Snowflake("twitter", worker=1024)
    with pytest.raises(ValueError, match="layout: .*a preset name"):
        uuidkit.Snowflake("flickr", worker=1)
    with pytest.raises(ValueError, match="adding up to 63 or 64, found 65"):
        uuidkit.Snowflake("t41.w10.s14.e0.u1ms", worker=1)
    with pytest.raises(TypeError):
        uuidkit.Snowflake("twitter")
    with pytest.raises(ValueError, match="top bit"):
        uuidkit.Snowflake("twitter", worker=1).decompose(2**63)


def test_a_forked_child_refuses_its_parent_s_worker():
    g = uuidkit.Snowflake("discord", worker=5)
    g()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            g()
            os.write(w, b"generated")
        except RuntimeError as e:
            os.write(w, str(e).encode())
        finally:
            os._exit(0)
    os.close(w)
    said = os.read(r, 300).decode()
    os.close(r)
    os.waitpid(pid, 0)
    assert said.startswith("node lost: not acquired yet: a forked child"), said
    assert g() > 0
