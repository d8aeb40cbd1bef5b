"""The Python entry point of the torture suite's node-mode matrix
(docs/generator-design.md G5, G8): the module's `uuid1`/`uuid6` with a random
node, a given node, and a given node and clock sequence, and `uuid7`/`uuid4`
(no node), crossed with the process topology: threads; workers forked
together; a worker forked later whose process id equals an earlier one's
modulo 2**14 (reached by burning process ids with throwaway threads); spawned
processes; a pre-fork server replacing its workers. Every row checks 0
duplicates; the negative controls switch a fix off through the hidden
`_uuidkit._test_only_restore` (in a forked child, so that nothing else sees it)
and must find duplicates. A grid of entry point x topology x node mode closes
the module (`pytest -s` shows it); a cell nobody ran reads MISSING."""

import ctypes
import multiprocessing
import os
import pickle
import threading
import time

import pytest

import uuidkit
from uuidkit import _uuidkit

NODE = 0x9F6BDECED846
CLOCK_SEQ = 0x33C8
PER = 10_000
MODES = ["random", "given", "given + clock_seq", "no node (uuid7, uuid4)"]
CALLS = {
    ("uuid1", "random"): lambda: uuidkit.uuid1(),
    ("uuid6", "random"): lambda: uuidkit.uuid6(),
    ("uuid1", "given"): lambda: uuidkit.uuid1(node=NODE),
    ("uuid6", "given"): lambda: uuidkit.uuid6(node=NODE),
    ("uuid1", "given + clock_seq"): lambda: uuidkit.uuid1(node=NODE, clock_seq=CLOCK_SEQ),
    ("uuid6", "given + clock_seq"): lambda: uuidkit.uuid6(node=NODE, clock_seq=CLOCK_SEQ),
    ("uuid7", "no node (uuid7, uuid4)"): lambda: uuidkit.uuid7(),
    ("uuid4", "no node (uuid7, uuid4)"): lambda: uuidkit.uuid4(),
}
# Every field fixed: two processes are apart only by their timestamps, so
# across processes only a state file keeps them unique (docs: G8).
ACROSS_PROCESSES = {k: v for k, v in CALLS.items() if k[1] != "given + clock_seq"}
CELLS = []  # (topology, mode, text)
TOPOLOGIES = []


def cell(topology, mode, text):
    if topology not in TOPOLOGIES:
        TOPOLOGIES.append(topology)
    CELLS.append((topology, mode, text))


def not_applicable(topology, modes, why):
    for m in modes:
        cell(topology, m, "n/a: " + why)


def dups(streams):
    flat = [u for s in streams for u in s]
    return len(flat) - len(set(flat))


def record(topology, key, streams):
    d = dups(streams)
    cell(topology, key[1], f"{key[0]} {'ok' if d == 0 else 'FAILED'}")
    assert d == 0, f"{topology} / {key}: {d} duplicates of {sum(map(len, streams))}"


def control(topology, mode, what, streams):
    d = dups(streams)
    cell(topology + ", control", mode, f"{what} {'caught' if d else 'MISSED'} ({d})")
    assert d > 0, f"negative control {topology} / {what}: no duplicates"


def fork_worker(make, wait=True):
    """A forked child that waits for a byte on its go pipe (if `wait`), then
    pickles `make()` back. Returns (pid, go, out)."""
    go_r, go_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            os.close(go_w)
            os.close(out_r)
            if not wait or os.read(go_r, 1) == b"g":
                data = pickle.dumps(make())
                with os.fdopen(out_w, "wb") as f:
                    f.write(data)
                code = 0
        finally:
            os._exit(code)
    os.close(go_r)
    os.close(out_w)
    return pid, go_w, out_r


def collect(worker):
    pid, go, out = worker
    with os.fdopen(out, "rb") as f:
        data = f.read()
    os.close(go)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return pickle.loads(data)


def discard(worker):
    pid, go, out = worker
    os.close(go)
    os.close(out)
    os.waitpid(pid, 0)


# After wrapping, the kernel hands out process ids from 300 up (RESERVED_PIDS)
# to pid_max - 1: the only ids a fork can get again.
FIRST_REUSED_PID = 300


def pid_max():
    with open("/proc/sys/kernel/pid_max") as f:
        return int(f.read())


def partners(pid, top):
    """The other ids a fork can get that equal `pid` modulo 2**14."""
    return [q for q in range(pid % 16384, top, 16384) if q != pid and q >= FIRST_REUSED_PID]


def is_free(pid):
    """Whether no live process holds `pid` now."""
    return not os.path.exists(f"/proc/{pid}")


def has_free_partner(pid, top):
    """Whether one of `pid`'s partners is free now: one a live process holds
    (a daemon started long ago) is skipped by every fork."""
    return any(is_free(q) for q in partners(pid, top))


def burn_until(want, steps):
    """Throwaway threads until the next process id is `want` modulo 2**14;
    False if `steps` threads did not get there (others took the id)."""
    last = [0]

    def note():
        last[0] = threading.get_native_id()

    for _ in range(steps):
        t = threading.Thread(target=note)
        t.start()
        t.join()
        if (last[0] + 1) % 16384 == want:
            return True
    return False


def pid_equal_pair(make):
    """Two workers whose process ids are equal modulo 2**14, started together.
    The first is forked again until its id has a free partner a fork can reach
    (ids below 300 are never handed out again, and one a live process holds is
    skipped); each search is bounded."""
    top = pid_max()
    for _ in range(6):
        a = fork_worker(make)
        if has_free_partner(a[0], top):
            break
        discard(a)
    else:
        pytest.fail("no worker got a process id with a partner modulo 16384")
    want = a[0] % 16384
    for _ in range(6):
        if not burn_until(want, top + 16384):
            continue
        b = fork_worker(make)
        if b[0] % 16384 == want:
            os.write(a[1], b"g")
            os.write(b[1], b"g")
            return collect(a), collect(b)
        discard(b)
    discard(a)
    pytest.fail(f"no process id equal to {want} modulo 16384 was reached")


def test_pid_partners_are_ids_a_fork_can_get():
    assert partners(114, 32768) == [16498]
    assert partners(16498, 32768) == []  # 114 is never handed out again
    assert partners(16684, 32768) == [300]
    assert partners(16683, 32768) == []
    assert partners(20000, 4194304)[:2] == [3616, 36384]
    # This process holds its id: no fork reaches it while it runs.
    assert not is_free(os.getpid())


def take(call, n):
    return [call() for _ in range(n)]


def test_threads():
    for key, call in CALLS.items():
        out = [[] for _ in range(4)]

        def run(i, call=call):
            out[i] = take(call, PER // 2)

        ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        record("4 threads", key, out)


def test_siblings_forked_together():
    for key, call in ACROSS_PROCESSES.items():
        first = call()
        workers = [fork_worker(lambda call=call: take(call, PER), wait=False) for _ in range(4)]
        streams = [take(call, PER)] + [collect(w) for w in workers] + [[first]]
        record("4 siblings forked together", key, streams)
    not_applicable("4 siblings forked together", [MODES[2]], "every field fixed: state file (spawned, --state line)")


def test_workers_with_pids_equal_modulo_2_14():
    keys = list(ACROSS_PROCESSES)
    for key in keys:
        ACROSS_PROCESSES[key]()
    a, b = pid_equal_pair(lambda: [take(ACROSS_PROCESSES[k], PER) for k in keys])
    for i, key in enumerate(keys):
        record("workers with pids equal mod 2^14", key, [a[i], b[i]])
    not_applicable("workers with pids equal mod 2^14", [MODES[2]], "every field fixed: state file")


def _spawned(kind, mode, n, start, path):
    import uuidkit as u

    if path is not None:
        with u.State(path) as s:
            call = getattr(s, kind)
            while time.time() < start:
                pass
            return [call().bytes for _ in range(n)]
    call = {
        ("uuid1", "random"): lambda: u.uuid1(),
        ("uuid6", "random"): lambda: u.uuid6(),
        ("uuid1", "given"): lambda: u.uuid1(node=NODE),
        ("uuid6", "given"): lambda: u.uuid6(node=NODE),
        ("uuid7", MODES[3]): lambda: u.uuid7(),
        ("uuid4", MODES[3]): lambda: u.uuid4(),
    }[(kind, mode)]
    call()
    while time.time() < start:
        pass
    return [call().bytes for _ in range(n)]


def test_spawned_together(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        for key in ACROSS_PROCESSES:
            start = time.time() + 0.3
            res = pool.starmap(_spawned, [(key[0], key[1], PER, start, None)] * 4)
            record("4 spawned together", key, res)
        for kind in ["uuid1", "uuid6"]:
            path = str(tmp_path / f"state-{kind}")
            start = time.time() + 0.3
            res = pool.starmap(_spawned, [(kind, MODES[2], PER, start, path)] * 4)
            record("4 spawned together (every field fixed: State)", (f"State.{kind}", MODES[2]), res)
    not_applicable("4 spawned together", [MODES[2]], "every field fixed: only State keeps them apart (next line)")
    not_applicable("4 spawned together (every field fixed: State)", [MODES[0], MODES[1], MODES[3]], "line above")


def test_pre_fork_server_replacing_workers():
    for key, call in ACROSS_PROCESSES.items():
        streams = [[call()]]
        for _ in range(4):
            w = fork_worker(lambda call=call: take(call, PER // 2), wait=False)
            streams.append(take(call, PER // 8))
            streams.append(collect(w))
        record("pre-fork server replacing 4 workers", key, streams)
    not_applicable("pre-fork server replacing 4 workers", [MODES[2]], "every field fixed: state file")


def one_after_another(call, n=2000, workers=4):
    """Workers forked one after another, each when the last has exited."""
    return [collect(fork_worker(lambda: take(call, n), wait=False)) for _ in range(workers)]


def test_one_after_another_every_field_fixed():
    for key in [("uuid1", MODES[2]), ("uuid6", MODES[2])]:
        record("4 forked one after another, no state", key, one_after_another(CALLS[key]))
    not_applicable("4 forked one after another, no state", [MODES[0], MODES[1], MODES[3]], "rows above")


CLOCK_REALTIME_COARSE = 5
LIBC = ctypes.CDLL(None, use_errno=True)


def coarse_now():
    """The coarse real-time clock's reading (the one the restored coarse
    generators read), as (seconds, nanoseconds)."""
    ts = (ctypes.c_long * 2)()
    assert LIBC.clock_gettime(CLOCK_REALTIME_COARSE, ts) == 0
    return tuple(ts)


def coarse_tick():
    """Returns just after the coarse real-time clock has changed its reading."""
    first = coarse_now()
    while coarse_now() == first:
        pass


def bracketed(call, n, then=None):
    """`n` UUIDs from `call`, with the coarse readings taken just before and
    just after the first: when the two are equal, the first UUID was stamped
    from that reading. With `then` (a go pipe's write end), lets that worker
    go once the `n` are made."""
    before = coarse_now()
    head = call()
    after = coarse_now()
    made = [head] + take(call, n - 1)
    if then is not None:
        os.write(then, b"g")
    return before, after, made


def in_child(make):
    """`make()` in a forked child (so a test hook never reaches this process)."""
    return collect(fork_worker(make, wait=False))


def test_control_pid_derived_clock_sequence():
    """The pid-equal pair with the clock sequence derived from process ids
    and ticks counted from the coarse clock again: they share a sequence and
    walk the same ticks."""

    def run():
        _uuidkit._test_only_restore("pid_clock_seq")
        _uuidkit._test_only_restore("coarse_clock")
        uuidkit.uuid1(node=NODE)
        # The pair walks the same ticks only when both start within one coarse
        # period; on a busy host they may not, so a pair is tried up to 5 times.
        for _ in range(5):
            a, b = pid_equal_pair(lambda: [take(lambda: uuidkit.uuid1(node=NODE), PER)])
            if dups([a[0], b[0]]):
                break
        return a, b

    a, b = in_child(run)
    control("workers with pids equal mod 2^14", MODES[1], "uuid1 pid-derived", [a[0], b[0]])
    not_applicable("workers with pids equal mod 2^14, control", [MODES[0], MODES[2], MODES[3]], "the given-node cell")


def v6_tick(i):
    """The 60-bit timestamp (100-ns ticks since 1582) of a v6 UUID given as
    an int."""
    return ((i >> 96) << 28) | (((i >> 80) & 0xFFFF) << 12) | ((i >> 64) & 0x0FFF)


def runs(stream):
    """{first tick: length} of the runs of consecutive timestamps in a
    stream of v6 UUIDs (as ints). On the restored coarse clock a worker
    stamps the UUIDs it makes within one coarse reading with ticks counted up
    one by one from just after that reading; a UUID costs far more than the
    100 ns of a tick, so the count never reaches the next reading (1 to 10 ms
    later, by the kernel's HZ), and each reading starts a run of its own: a
    run's first tick names the reading."""
    out = {}
    first = prev = None
    for t in map(v6_tick, stream):
        if prev is None or t != prev + 1:
            first = t
            out[first] = 0
        out[first] += 1
        prev = t
    return out


def same_tick_pairs(streams):
    """Pairs of UUIDs from two different streams with one timestamp: two
    workers in one coarse reading stamp their i-th UUIDs of it alike."""
    rs = [runs(s) for s in streams]
    return sum(min(n, b[t]) for i, a in enumerate(rs) for b in rs[i + 1 :] for t, n in a.items() if t in b)


# A duplicate needs two workers stamping from one coarse reading AND equal
# clock sequences, drawn per UUID from 14 bits: a same-tick pair is a
# duplicate with chance 1/16384, so n pairs give n/16384 expected (Poisson).
# The workers make their UUIDs in rounds: each round starts just after the
# coarse clock ticks and asks each worker for a burst of 1,000 (about 1 ms),
# so that all 4 bursts fit in one reading (1 to 10 ms, by the kernel's HZ)
# and give up to 6 worker pairs x 1,000 = 6,000 same-tick pairs; a burst
# the scheduler delays past the reading gives fewer. Rounds are added until
# 16 x 16384 = 262,144 same-tick pairs are in (at least 44 rounds): 16
# duplicates expected, none with a chance of e^-16 (1.1e-7). Counting the
# pairs, not the rounds, keeps that bound on a busy host.
UUID6_NODE_PAIRS_WANTED = 16 * 16384
UUID6_NODE_BURST = 1_000
UUID6_NODE_ROUNDS = 40
UUID6_NODE_ATTEMPTS = 30


def in_bursts(call, rounds_r, done_w):
    """Bursts of `UUID6_NODE_BURST` UUIDs (as ints) from `call`, one per byte
    `g` read from `rounds_r`, each acknowledged on `done_w`, until another
    byte comes."""
    made = []
    while os.read(rounds_r, 1) == b"g":
        made += [u.int for u in take(call, UUID6_NODE_BURST)]
        os.write(done_w, b"d")
    return made


def test_control_coarse_clock_uuid6_node():
    """`uuid6(node=N)` with a clock sequence per UUID and ticks counted from
    the coarse clock: 4 workers forked together repeat each other's UUIDs
    once enough of them were stamped from shared coarse readings."""

    def run():
        _uuidkit._test_only_restore("coarse_clock")
        call = CALLS[("uuid6", MODES[1])]
        call()
        # The 4 wait, asleep, on their round pipes, so that the scheduler runs
        # them as soon as a round wakes them. Whether their bursts share a
        # reading is still its choice, so what they shared is counted from
        # their timestamps, not assumed.
        streams, pairs = [], 0
        for attempt in range(1, UUID6_NODE_ATTEMPTS + 1):
            done_r, done_w = os.pipe()
            rounds = [os.pipe() for _ in range(4)]
            workers = [fork_worker(lambda r=r: in_bursts(call, r, done_w), wait=False) for r, _ in rounds]
            for _ in range(UUID6_NODE_ROUNDS):
                coarse_tick()
                for _, w in rounds:
                    os.write(w, b"g")
                for _ in rounds:
                    assert os.read(done_r, 1) == b"d"
            for _, w in rounds:
                os.write(w, b"x")
            made = [collect(w) for w in workers]
            for fd in [done_r, done_w] + [fd for pipe in rounds for fd in pipe]:
                os.close(fd)
            streams += made
            pairs += same_tick_pairs(made)
            if pairs >= UUID6_NODE_PAIRS_WANTED:
                break
        return attempt, pairs, streams

    attempts, pairs, streams = in_child(run)
    assert pairs >= UUID6_NODE_PAIRS_WANTED, (
        f"negative control uuid6 coarse clock: {attempts} attempts gave {pairs} pairs of UUIDs "
        f"from two workers with one timestamp, short of the {UUID6_NODE_PAIRS_WANTED} that "
        "make duplicates all but certain, so the control showed nothing"
    )
    what = f"uuid6 coarse clock, {pairs} same-tick pairs in {attempts} attempts"
    control("4 siblings forked together", MODES[1], what, streams)
    not_applicable("4 siblings forked together, control", [MODES[0], MODES[2], MODES[3]], "the given-node cell")


COARSE_PAIR_ATTEMPTS = 200


def test_control_coarse_clock_every_field_fixed():
    """Every field fixed, one after another, on the coarse clock: a worker
    that starts within the coarse reading the last one started in counts up
    the same ticks from it, so the pair's first UUIDs are equal."""

    def run():
        _uuidkit._test_only_restore("coarse_clock")
        call = CALLS[("uuid1", MODES[2])]
        call()
        # Both workers are forked before the coarse clock ticks and wait on
        # their go pipes, so that no fork falls inside the coarse period; the
        # first lets the second go (the first is forked holding the second's
        # go pipe) once it has made its UUIDs, so the second makes its own
        # after them. On a busy host the second may still start in a later
        # reading, which proves nothing either way: such a pair is set aside
        # and a new one tried. The first pair whose workers both stamped their
        # first UUID from one reading (each brackets it with coarse readings)
        # decides.
        for attempt in range(1, COARSE_PAIR_ATTEMPTS + 1):
            second = fork_worker(lambda: bracketed(call, 20))
            first = fork_worker(lambda: bracketed(call, 20, then=second[1]))
            coarse_tick()
            os.write(first[1], b"g")
            a, b = collect(first), collect(second)
            if a[0] == a[1] == b[0] == b[1]:
                return attempt, [a[2], b[2]]
        return COARSE_PAIR_ATTEMPTS, None

    attempts, streams = in_child(run)
    assert streams is not None, (
        f"negative control uuid1 coarse clock: in none of {attempts} pairs did both workers "
        "stamp their first UUID from one coarse reading, so the control showed nothing"
    )
    what = f"uuid1 coarse clock, pair {attempts}"
    control("4 forked one after another, no state", MODES[2], what, streams)
    not_applicable("4 forked one after another, no state, control", [MODES[0], MODES[1], MODES[3]], "as above")


def teardown_module():
    if not CELLS:
        return
    rows = [["entry point", "topology"] + MODES]
    for t in TOPOLOGIES:
        row = ["Python", t]
        for m in MODES:
            found = []
            for tt, mm, text in CELLS:
                if tt == t and mm == m and text not in found:
                    found.append(text)
            row.append(", ".join(found) or "MISSING")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "|-" + "-|-".join("-" * w for w in widths) + "-|")
    print("\n" + "\n".join(lines))
