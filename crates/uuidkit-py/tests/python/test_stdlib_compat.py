"""uuidkit as a drop-in for the standard ``uuid`` module."""

import copy
import gc
import inspect
import os
import pickle
import random
import subprocess
import sys
import uuid
import weakref

import pytest

import uuidkit

RNG = random.Random(0x9562)


def random_namespace():
    return uuid.UUID(int=RNG.getrandbits(128))


def random_name():
    alphabet = "abcxyz-./\x00\xe9\u20ac\U0001f600"
    return "".join(RNG.choice(alphabet) for _ in range(RNG.randrange(0, 80)))


@pytest.mark.parametrize("ours,theirs", [(uuidkit.uuid3, uuid.uuid3), (uuidkit.uuid5, uuid.uuid5)])
def test_name_based_equal_stdlib_on_random_namespaces_and_names(ours, theirs):
    namespaces = [uuid.NAMESPACE_DNS, uuid.NAMESPACE_URL, uuid.NAMESPACE_OID, uuid.NAMESPACE_X500]
    namespaces += [random_namespace() for _ in range(200)]
    for ns in namespaces:
        for _ in range(10):
            name = random_name()
            expected = theirs(ns, name)
            assert ours(ns, name) == expected, (ns, name)
            # Bytes names (the standard module takes them from 3.12) hash as given.
            assert ours(ns, name.encode()) == expected, (ns, name)


def test_name_based_rejects_what_stdlib_rejects():
    with pytest.raises(TypeError, match="^name: expected str or a bytes-like object, found int$"):
        uuidkit.uuid5(uuid.NAMESPACE_DNS, 5)
    # A sequence of ints is not a name (3.12's hashlib refuses it too).
    for name in ([97, 98], range(97, 99), (97,)):
        for f in (uuidkit.uuid3, uuidkit.uuid5, lambda ns, n: uuidkit.uuid8_name(ns, n)):
            with pytest.raises(TypeError, match=rf"^name: expected str or a bytes-like object, found {type(name).__name__}$"):
                f(uuid.NAMESPACE_DNS, name)
    with pytest.raises(TypeError, match="expected a uuid.UUID, found str"):
        uuidkit.uuid3("not a namespace", "x")


def test_name_based_hash_any_buffer_as_its_raw_bytes():
    import array
    import hashlib

    ns = uuid.NAMESPACE_URL
    for name in (array.array("i", [97, -2, 1 << 20]), memoryview(b"abcdefgh").cast("H"), bytearray(b"xyz"),
                 memoryview(b"0123456789")[::2]):
        raw = memoryview(name).tobytes()
        md5 = hashlib.md5(ns.bytes + raw).digest()
        sha1 = hashlib.sha1(ns.bytes + raw).digest()
        assert uuidkit.uuid3(ns, name) == uuid.UUID(bytes=md5[:16], version=3), name
        assert uuidkit.uuid5(ns, name) == uuid.UUID(bytes=sha1[:16], version=5), name
        assert uuidkit.uuid8_name(ns, name) == uuidkit.uuid8_name(ns, raw), name


def test_constants_are_the_standard_ones():
    for name in ["NAMESPACE_DNS", "NAMESPACE_URL", "NAMESPACE_OID", "NAMESPACE_X500"]:
        assert getattr(uuidkit, name) is getattr(uuid, name)
    assert uuidkit.NIL == uuid.UUID(int=0)
    assert uuidkit.MAX == uuid.UUID("ffffffff-ffff-ffff-ffff-ffffffffffff")
    assert uuidkit.UUID is uuid.UUID


ALL = [
    lambda: uuidkit.uuid1(),
    lambda: uuidkit.uuid3(uuid.NAMESPACE_DNS, "python.org"),
    lambda: uuidkit.uuid4(),
    lambda: uuidkit.uuid5(uuid.NAMESPACE_URL, b"https://python.org"),
    lambda: uuidkit.uuid6(),
    lambda: uuidkit.uuid7(),
    lambda: uuidkit.uuid8(),
    lambda: uuidkit.parse("{F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6}"),
]


@pytest.mark.parametrize("make", ALL)
def test_objects_behave_as_stdlib_uuids(make):
    u = make()
    twin = uuid.UUID(str(u))
    assert type(u) is uuid.UUID
    assert isinstance(u, uuid.UUID)
    assert u == twin and not (u != twin)
    assert hash(u) == hash(twin)
    assert {u: 1}[twin] == 1
    assert str(u) == str(twin) and repr(u) == repr(twin)
    assert u.bytes == twin.bytes and u.hex == twin.hex and u.urn == twin.urn
    assert u.fields == twin.fields and u.variant == twin.variant and u.version == twin.version
    assert u.is_safe is uuid.SafeUUID.unknown
    assert copy.copy(u) == u and copy.deepcopy(u) == u
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(u, protocol))
        assert type(back) is uuid.UUID and back == u
    assert pickle.dumps(u) == pickle.dumps(twin)
    with pytest.raises(TypeError):
        u.int = 5  # immutable, as the standard one


def test_versions_and_variant():
    expected = [1, 3, 4, 5, 6, 7, 8]
    for make, version in zip(ALL, expected):
        u = make()
        assert u.version == version
        assert u.variant == uuid.RFC_4122


def test_ordering_agrees_with_stdlib():
    ours = [uuidkit.uuid4() for _ in range(500)]
    theirs = [uuid.UUID(str(u)) for u in ours]
    assert [str(u) for u in sorted(ours)] == [str(u) for u in sorted(theirs)]
    a, b = sorted(ours[:2])
    assert a < b and a <= b and b > a and b >= a
    assert a < uuid.UUID(int=b.int) and uuid.UUID(int=a.int) < b


def test_pickle_loads_where_uuidkit_is_absent():
    data = pickle.dumps([uuidkit.uuid7(), uuidkit.uuid4()])
    assert b"uuidkit" not in data
    # A fresh interpreter that cannot import uuidkit.
    code = (
        "import pickle, sys\n"
        "sys.modules['uuidkit'] = None\n"
        "us = pickle.loads(sys.stdin.buffer.read())\n"
        "print(' '.join(str(u) for u in us))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True)
    assert out.stdout.decode().split() == [str(u) for u in pickle.loads(data)]


def test_uuid1_node_and_clock_seq_as_stdlib():
    u = uuidkit.uuid1(node=0x0123456789AB, clock_seq=0x12345)
    assert u.node == 0x0123456789AB
    assert u.clock_seq == 0x12345 & 0x3FFF
    with pytest.raises(ValueError, match=r"^node out of range: expected 0..=281474976710655, found 281474976710656$"):
        uuidkit.uuid1(node=1 << 48)
    with pytest.raises(ValueError, match=r"^node out of range: expected 0..=281474976710655, found -1$"):
        uuidkit.uuid1(node=-1)
    for bad, kind in (("1", "str"), (1.0, "float")):
        with pytest.raises(TypeError, match=rf"^node: expected an int, found {kind}$"):
            uuidkit.uuid1(node=bad)
        with pytest.raises(TypeError, match=rf"^clock_seq: expected an int, found {kind}$"):
            uuidkit.uuid1(node=1, clock_seq=bad)
    # The default node is random with the multicast bit (no hardware address).
    assert uuidkit.uuid1().node & (1 << 40)
    times = [uuidkit.uuid1().time for _ in range(1000)]
    assert times == sorted(times) and len(set(times)) == len(times)


def test_uuid6_truncates_like_cpython_314():
    u = uuidkit.uuid6(node=(1 << 50) | 0xABCDEF, clock_seq=-1)
    assert u.node == ((1 << 50) | 0xABCDEF) & 0xFFFF_FFFF_FFFF
    assert u.clock_seq == 0x3FFF
    assert u.version == 6
    us = [uuidkit.uuid6() for _ in range(1000)]
    assert us == sorted(us) and len(set(us)) == len(us)
    # As in CPython 3.14: a fresh random node (multicast bit set here) per UUID.
    assert len({u.node for u in us}) > 990
    assert all(u.node & (1 << 40) for u in us)


def test_uuid8_matches_cpython_314_formula():
    for _ in range(200):
        a, b, c = (RNG.getrandbits(RNG.choice([8, 48, 64, 100])) * RNG.choice([1, -1]) for _ in range(3))
        expected = (a & 0xFFFF_FFFF_FFFF) << 80 | (b & 0xFFF) << 64 | (c & 0x3FFF_FFFF_FFFF_FFFF)
        expected |= 0x8 << 76 | 0b10 << 62
        assert uuidkit.uuid8(a, b, c).int == expected
    u = uuidkit.uuid8(a=1)
    assert u.int >> 80 == 1 and u.version == 8
    assert len({uuidkit.uuid8().int for _ in range(1000)}) == 1000


def test_uuid4_is_random():
    us = {uuidkit.uuid4() for _ in range(10_000)}
    assert len(us) == 10_000
    # Each of the 122 random bits is set in about half of the UUIDs.
    ones = [sum((u.int >> bit) & 1 for u in us) for bit in range(128)]
    fixed = {76, 77, 78, 79, 62, 63}
    for bit in range(128):
        if bit not in fixed:
            assert 4_500 < ones[bit] < 5_500, bit


def test_ints_of_every_width_are_exact():
    # uuidkit builds the `int` of a UUID itself: check it at each digit boundary.
    values = [0, 1, 2**30 - 1, 2**30, 2**60 - 1, 2**60, 2**90, 2**120 + 7, 2**128 - 1]
    values += [RNG.getrandbits(RNG.randrange(1, 129)) for _ in range(2000)]
    for v in values:
        u = uuidkit.from_bytes(v.to_bytes(16, "big"))
        assert u.int == v and type(u.int) is int
        assert u == uuid.UUID(int=v) and hash(u) == hash(uuid.UUID(int=v))
        assert str(u) == str(uuid.UUID(int=v))
    with pytest.raises(ValueError, match="wrong length: expected 16 bytes, found 15"):
        uuidkit.from_bytes(bytes(15))


@pytest.mark.parametrize("make", ALL)
def test_objects_are_gc_tracked_and_weakly_referenceable_as_stdlib_ones(make):
    # uuidkit allocates and fills the instances itself: each must be a complete
    # object, tracked by the collector and with an empty weak-reference list.
    u = make()
    assert gc.is_tracked(u) == gc.is_tracked(uuid.UUID(int=u.int))
    ref = weakref.ref(u)
    assert ref() is u
    assert gc.get_referents(u) == gc.get_referents(uuid.UUID(int=u.int))
    del u
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("name", ["uuid4", "uuid7"])
def test_no_argument_functions_refuse_arguments(name):
    f = getattr(uuidkit, name)
    with pytest.raises(TypeError, match=rf"^{name}\(\) takes no arguments \(1 given\)$"):
        f(1)
    with pytest.raises(TypeError, match=name):
        f(x=1)
    assert f().version == int(name[-1])


def _public(module):
    """A module's public names and their values, as `from module import *`
    would see them without `__all__`: no private names, no modules, and not
    the helpers the module imports for itself (`Enum`)."""
    return {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_") and not inspect.ismodule(value) and name != "Enum"
    }


def test_every_name_of_the_standard_module_is_here_with_its_signature():
    ours = _public(uuidkit)
    for name, theirs in _public(uuid).items():
        assert name in ours, f"uuidkit lacks uuid.{name}"
        mine = ours[name]
        if inspect.isclass(theirs) or not callable(theirs):
            assert mine is theirs or mine == theirs, name
        else:
            assert inspect.signature(mine) == inspect.signature(theirs), name


# What later CPython versions add to `uuid` (3.12: `main`; 3.14: `uuid6`,
# `uuid7`, `uuid8`, `NIL`, `MAX`), as their documentation gives it, for
# interpreters older than that.
LATER = {
    "main": "()",
    "uuid6": "(node=None, clock_seq=None)",
    "uuid7": "()",
    "uuid8": "(a=None, b=None, c=None)",
    "NIL": uuid.UUID(int=0),
    "MAX": uuid.UUID(int=(1 << 128) - 1),
}


def test_what_later_versions_add_is_here_too():
    for name, want in LATER.items():
        mine = getattr(uuidkit, name)
        if isinstance(want, str):
            assert str(inspect.signature(mine)) == want, name
        else:
            assert mine == want, name


def test_main_is_the_standard_command_line():
    def run(*args):
        out = subprocess.run([sys.executable, "-m", "uuidkit", *args], capture_output=True, text=True)
        return out.returncode, out.stdout, out.stderr

    code, out, _ = run()
    assert code == 0 and uuid.UUID(out.strip()).version == 4
    code, out, _ = run("-u", "uuid5", "-n", "@dns", "-N", "python.org")
    assert (code, out) == (0, f"{uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')}\n")
    code, out, _ = run("-u", "uuid3", "-n", str(uuid.NAMESPACE_URL), "-N", "x")
    assert (code, out) == (0, f"{uuid.uuid3(uuid.NAMESPACE_URL, 'x')}\n")
    code, out, _ = run("-u", "uuid7", "-C", "3")
    us = [uuid.UUID(line) for line in out.splitlines()]
    assert code == 0 and len(us) == 3 and us == sorted(us) and all(u.version == 7 for u in us)
    code, _, err = run("-u", "uuid3")
    assert code == 2 and "uuid3 requires a namespace and a name" in err


# Arguments of every kind a caller may pass by mistake.
ODD = [None, True, -1, 0, 2**64, -(2**200), 1.5, float("nan"), "", "x" * 100, "\x00", b"", b"\xff" * 16,
       bytearray(16), memoryview(b"x"), [], {}, object(), uuid.NAMESPACE_DNS]


def test_no_panic_ever_reaches_python():
    # pyo3 turns a Rust panic into PanicException, a BaseException: whatever
    # the arguments, each call returns or raises an ordinary Exception.
    names = [n for n in uuidkit.__all__ if callable(getattr(uuidkit, n)) and n not in ("main", "State")]
    for name in names:
        f = getattr(uuidkit, name)
        for arity in (0, 1, 2, 3):
            for _ in range(200 if arity else 1):
                args = tuple(RNG.choice(ODD) for _ in range(arity))
                try:
                    f(*args)
                except Exception:
                    pass
                except BaseException as e:  # noqa: BLE001 - the point of the test
                    pytest.fail(f"{name}{args!r} raised {type(e).__name__}: {e}")


_CLOCK_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* The real-time clocks moved by the nanoseconds in the file $CLOCK_OFFSET_FILE. */
int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        long long off = 0;
        FILE *f = fopen(getenv("CLOCK_OFFSET_FILE"), "r");
        if (f) { if (fscanf(f, "%lld", &off) != 1) off = 0; fclose(f); }
        long long t = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + off;
        ts->tv_sec = t / 1000000000LL;
        ts->tv_nsec = t % 1000000000LL;
    }
    return r;
}
"""


def test_uuid6_holds_when_the_clock_steps_back_far(tmp_path):
    # As CPython 3.14's: a real-time clock stepped back a minute (beyond any
    # tolerance) gives neither an error nor a smaller timestamp. The clock is
    # moved by a preloaded clock_gettime, in a subprocess.
    import shutil

    cc = shutil.which("cc") or shutil.which("gcc")
    # A C compiler builds the Rust extension itself, so one is always here;
    # the test never passes without running.
    assert cc is not None, "no C compiler (cc or gcc) for the clock shim"
    shim = tmp_path / "clock_shim.so"
    (tmp_path / "clock_shim.c").write_text(_CLOCK_SHIM)
    subprocess.run([cc, "-shared", "-fPIC", "-o", shim, tmp_path / "clock_shim.c", "-ldl"], check=True)
    offset = tmp_path / "offset"
    offset.write_text("0")
    code = (
        "import sys, time, uuidkit\n"
        "offset = sys.argv[1]\n"
        "before = [uuidkit.uuid6() for _ in range(3)]\n"
        "t0 = time.time()\n"
        "open(offset, 'w').write(str(-60 * 10**9))\n"
        "if time.time() > t0 - 50:\n"
        "    print('shim not in effect'); sys.exit(0)\n"
        "after = [uuidkit.uuid6() for _ in range(1000)]\n"
        "us = before + after\n"
        # The v6 field order (`UUID.time` reads it as v1's before 3.14).
        "ts = lambda u: (u.int >> 80) << 12 | (u.int >> 64) & 0xFFF\n"
        "assert all(ts(a) < ts(b) for a, b in zip(us, us[1:])), 'timestamps went back'\n"
        "assert all(a < b for a, b in zip(us, us[1:])), 'UUIDs went back'\n"
        "print('held')\n"
    )
    env = dict(os.environ, LD_PRELOAD=str(shim), CLOCK_OFFSET_FILE=str(offset))
    out = subprocess.run([sys.executable, "-c", code, str(offset)], capture_output=True, text=True, env=env, timeout=120)
    assert out.stdout.strip() != "shim not in effect", "the preloaded clock_gettime was not used"
    assert out.returncode == 0 and out.stdout.strip() == "held", out.stderr[-2000:]
