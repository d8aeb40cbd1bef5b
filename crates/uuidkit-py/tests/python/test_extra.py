"""What the standard module lacks: times, bounds, v8 names, the section 6.2 methods."""

import datetime
import hashlib
import random
import uuid

import pytest

import uuidkit

UTC = datetime.timezone.utc
# RFC 9562's examples were made at 2022-02-22T19:22:22Z.
RFC_TIME = datetime.datetime(2022, 2, 22, 19, 22, 22, tzinfo=UTC)
RFC_MS = 1_645_557_742_000


def test_timestamps_of_the_rfc_examples():
    v1 = uuid.UUID("C232AB00-9414-11EC-B3C8-9F6BDECED846")
    v6 = uuid.UUID("1EC9414C-232A-6B00-B3C8-9F6BDECED846")
    v7 = uuid.UUID("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")
    for u in (v1, v6, v7):
        assert uuidkit.timestamp(u) == RFC_TIME
    assert uuidkit.unix_ms(v7) == RFC_MS
    with pytest.raises(ValueError, match="no timestamp: expected a v1, v6 or v7 UUID, found version 4"):
        uuidkit.timestamp(uuidkit.uuid4())
    with pytest.raises(ValueError, match="no unix_ms: expected a v7 UUID, found version 1"):
        uuidkit.unix_ms(v1)


def test_timestamp_of_a_new_uuid7_is_now():
    before = datetime.datetime.now(UTC)
    t = uuidkit.timestamp(uuidkit.uuid7())
    after = datetime.datetime.now(UTC)
    assert before - datetime.timedelta(milliseconds=1) <= t <= after
    assert t.tzinfo is UTC


def test_uuid7_at_a_datetime_or_unix_ms():
    u = uuidkit.uuid7_at(RFC_TIME)
    assert u.version == 7 and uuidkit.unix_ms(u) == RFC_MS
    assert uuidkit.unix_ms(uuidkit.uuid7_at(unix_ms=RFC_MS + 5)) == RFC_MS + 5
    other_zone = RFC_TIME.astimezone(datetime.timezone(datetime.timedelta(hours=-5)))
    assert uuidkit.unix_ms(uuidkit.uuid7_at(other_zone)) == RFC_MS
    sub_ms = RFC_TIME + datetime.timedelta(microseconds=999)
    assert uuidkit.unix_ms(uuidkit.uuid7_at(sub_ms)) == RFC_MS  # floored
    assert uuidkit.uuid7_at(unix_ms=1) != uuidkit.uuid7_at(unix_ms=1)  # random bits


def test_time_arguments_are_unambiguous():
    with pytest.raises(ValueError, match="naive datetime"):
        uuidkit.uuid7_at(datetime.datetime(2022, 2, 22))
    with pytest.raises(TypeError, match="not both"):
        uuidkit.uuid7_at(RFC_TIME, unix_ms=RFC_MS)
    with pytest.raises(TypeError, match="missing the time"):
        uuidkit.v7_min()
    with pytest.raises(ValueError, match="unix_ms out of range"):
        uuidkit.v7_max(unix_ms=-1)
    with pytest.raises(ValueError, match="unix_ms out of range"):
        uuidkit.v7_max(unix_ms=1 << 48)
    with pytest.raises(ValueError, match="unix_ms out of range"):
        uuidkit.v7_min(datetime.datetime(1969, 12, 31, tzinfo=UTC))
    with pytest.raises(TypeError, match="expected a datetime.datetime, found int"):
        uuidkit.uuid7_at(RFC_MS)  # a bare number: which unit? refused


def test_unix_ms_of_any_size_or_type_is_a_value_or_type_error():
    g = uuidkit.V7Generator()
    for f in (uuidkit.uuid7_at, uuidkit.v7_min, uuidkit.v7_max, g.at):
        for ms in (2**200, -(2**200), 2**127, -1):
            with pytest.raises(ValueError, match=rf"^unix_ms out of range: expected 0\.\.={2**48 - 1} \(1970 to the year 10889\), found {ms}$"):
                f(unix_ms=ms)
        for bad in (1.5, "5", None.__class__):
            with pytest.raises(TypeError, match=rf"^unix_ms: expected an int, found {type(bad).__name__}$"):
                f(unix_ms=bad)
        assert uuidkit.unix_ms(f(unix_ms=True)) == 1


def test_v7_bounds():
    lo, hi = uuidkit.v7_min(RFC_TIME), uuidkit.v7_max(unix_ms=RFC_MS)
    assert lo.int == 0x017F22E2_79B0_7000_8000_000000000000
    assert hi.int == 0x017F22E2_79B0_7FFF_BFFF_FFFFFFFFFFFF
    assert lo <= uuid.UUID("017F22E2-79B0-7CC3-98C4-DC0C0C07398F") <= hi
    for _ in range(100):
        assert lo <= uuidkit.uuid7_at(RFC_TIME) <= hi
    assert hi < uuidkit.v7_min(unix_ms=RFC_MS + 1)


HASHES = {
    "sha256": lambda d: hashlib.sha256(d).digest(),
    "sha512": lambda d: hashlib.sha512(d).digest(),
    "sha3_256": lambda d: hashlib.sha3_256(d).digest(),
    "sha3_512": lambda d: hashlib.sha3_512(d).digest(),
    "shake_128": lambda d: hashlib.shake_128(d).digest(16),
    "shake_256": lambda d: hashlib.shake_256(d).digest(16),
}


def test_uuid8_name_rfc_vector():
    u = uuidkit.uuid8_name(uuid.NAMESPACE_DNS, "www.example.com")
    assert str(u) == "5c146b14-3c52-8afd-938a-375d0df1fbf6"  # RFC 9562 Appendix B.2


@pytest.mark.parametrize("name", sorted(HASHES))
def test_uuid8_name_agrees_with_hashlib(name):
    rng = random.Random(name)
    for _ in range(100):
        ns = uuid.UUID(int=rng.getrandbits(128))
        data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(100)))
        digest = int.from_bytes(HASHES[name](ns.bytes + data)[:16], "big")
        expected = digest & ~(0xF << 76) & ~(0x3 << 62) | (0x8 << 76) | (0x2 << 62)
        assert uuidkit.uuid8_name(ns, data, name).int == expected


def test_uuid8_name_unknown_hash():
    with pytest.raises(ValueError, match="unknown hash: expected one of sha256"):
        uuidkit.uuid8_name(uuid.NAMESPACE_DNS, "x", "md5")


@pytest.mark.parametrize(
    "args,kwargs",
    [
        (("counter",), {}),
        (("counter",), {"bits": 12}),
        (("monotonic_random",), {"increment_bits": 8}),
        (("submillis",), {"frac_bits": 12}),
        (("submillis_counter",), {"frac_bits": 4, "bits": 20}),
    ],
)
def test_v7_generator_methods_are_increasing(args, kwargs):
    g = uuidkit.V7Generator(*args, **kwargs)
    us = [g() for _ in range(20_000)] + g.batch(5000)
    assert all(a < b for a, b in zip(us, us[1:]))
    assert all(u.version == 7 for u in us)
    assert repr(g) == f"uuidkit.V7Generator({args[0]!r})".replace("'", '"')


def test_v7_generator_at_keeps_order():
    g = uuidkit.V7Generator()
    a = g.at(RFC_TIME)
    assert uuidkit.unix_ms(a) == RFC_MS
    b = g.at(unix_ms=RFC_MS - 1000)  # earlier: still after a
    assert a < b


def test_v7_generator_rejects_bad_settings():
    with pytest.raises(ValueError, match="unknown method"):
        uuidkit.V7Generator("fastest")
    with pytest.raises(ValueError, match=r"^bits out of range: expected 12..=42, found 50$"):
        uuidkit.V7Generator("counter", bits=50)
    with pytest.raises(ValueError, match=r"^increment_bits out of range: expected 0..=32, found -1$"):
        uuidkit.V7Generator("monotonic_random", increment_bits=-1)
    with pytest.raises(ValueError, match=r"^frac_bits out of range: expected 1..=12, found 1267650600228229401496703205376$"):
        uuidkit.V7Generator("submillis", frac_bits=2**100)
    with pytest.raises(TypeError, match=r"^bits: expected an int, found float$"):
        uuidkit.V7Generator("counter", bits=20.0)


@pytest.mark.parametrize(
    "method,given,uses",
    [
        ("counter", {"increment_bits": 8}, "bits"),
        ("counter", {"frac_bits": 4}, "bits"),
        ("monotonic_random", {"bits": 20}, "increment_bits"),
        ("submillis", {"bits": 20}, "frac_bits"),
        ("submillis_counter", {"increment_bits": 8}, "frac_bits and bits"),
    ],
)
def test_v7_generator_refuses_a_width_its_method_does_not_use(method, given, uses):
    (name, value), = given.items()
    with pytest.raises(
        TypeError, match=rf"^{name} does not apply to the {method} method: expected {uses}, found {name}={value}$"
    ):
        uuidkit.V7Generator(method, **given)


def test_timestamp_after_datetimes_last_year_names_the_year():
    last = uuid.UUID(int=((1 << 48) - 1) << 80 | 0x7 << 76 | 0b10 << 62)
    with pytest.raises(ValueError, match=r"^time out of datetime's range: expected one before the year 10000, found one in the year 10889$"):
        uuidkit.timestamp(last)
    # The last millisecond datetime has, and the first one it has not.
    ms_9999 = 253_402_300_799_999
    assert uuidkit.timestamp(uuidkit.v7_max(unix_ms=ms_9999)).year == 9999
    with pytest.raises(ValueError, match="in the year 10000$"):
        uuidkit.timestamp(uuidkit.v7_min(unix_ms=ms_9999 + 1))


def test_from_bytes_takes_any_bytes_like_object():
    u = uuidkit.uuid7()
    for data in (u.bytes, bytearray(u.bytes), memoryview(u.bytes), memoryview(b"xx" + u.bytes)[2:]):
        assert uuidkit.from_bytes(data) == u
    with pytest.raises(ValueError, match=r"^wrong length: expected 16 bytes, found 17$"):
        uuidkit.from_bytes(bytearray(17))
    import array

    # Any buffer of 16 bytes, whatever its item format, as its raw bytes.
    for data in (memoryview(u.bytes).cast("b"), array.array("b", u.bytes), memoryview(u.bytes).cast("H"),
                 array.array("I", u.bytes)):
        assert uuidkit.from_bytes(data) == u, data
    with pytest.raises(ValueError, match=r"^wrong length: expected 16 bytes, found 32$"):
        uuidkit.from_bytes(array.array("H", range(16)))
    with pytest.raises(TypeError, match=r"^data: expected a bytes-like object \(bytes, bytearray, memoryview or another buffer\), found str$"):
        uuidkit.from_bytes("x" * 16)
    with pytest.raises(TypeError, match=r"^data: .*found list$"):
        uuidkit.from_bytes(list(u.bytes))


def test_version_errors_name_a_variant_that_is_not_rfc_9562s():
    v7 = uuidkit.uuid7().int
    ncs = uuid.UUID(int=v7 & ~(0xC << 60))  # version nibble 7, variant bits 0x
    assert ncs.version is None and (ncs.int >> 76) & 0xF == 7
    with pytest.raises(ValueError, match=r"^no unix_ms: expected a v7 UUID, found the NCS variant \(not RFC 9562's; version nibble 7\)$"):
        uuidkit.unix_ms(ncs)
    with pytest.raises(ValueError, match=r"^no timestamp: expected a v1, v6 or v7 UUID, found the NCS variant"):
        uuidkit.timestamp(ncs)
    ms = uuid.UUID(int=(v7 & ~(0xE << 60)) | (0xC << 60))
    with pytest.raises(ValueError, match=r"found the Microsoft variant"):
        uuidkit.unix_ms(ms)


def test_v7_generator_at_never_wraps_a_late_time():
    import datetime

    g = uuidkit.V7Generator()
    last_ok = (2**64 - 1) // 1_000_000  # 2554-07-21, the last in 64-bit nanoseconds
    assert uuidkit.unix_ms(g.at(unix_ms=last_ok)) == last_ok
    with pytest.raises(ValueError, match=rf"^unix_ms out of range for V7Generator.at: .*found {2**48 - 1}$"):
        g.at(unix_ms=2**48 - 1)
    with pytest.raises(ValueError, match=r"^when out of range for V7Generator.at: "):
        g.at(datetime.datetime(3000, 1, 1, tzinfo=datetime.timezone.utc))
    # uuid7_at and the bounds take every 48-bit time.
    assert uuidkit.unix_ms(uuidkit.uuid7_at(unix_ms=2**48 - 1)) == 2**48 - 1
