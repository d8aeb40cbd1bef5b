"""The short encodings and TypeID: round trips, the documented vectors
against references written here (Python's base64 module for the byte forms,
repeated division for the number forms), the TypeID specification's suites,
and errors that name the position."""

import base64
import json
import pathlib
import random
import uuid

import pytest

import uuidkit

ROOT = pathlib.Path(__file__).resolve().parents[4]
RNG = random.Random(0x4648)

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
BITCOIN = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

# (to, from) for each encoding whose text is a function of the UUID alone.
CODECS = {
    "base32": (uuidkit.to_base32, uuidkit.from_base32),
    "ulid": (uuidkit.to_ulid, uuidkit.from_ulid),
    "base32hex": (uuidkit.to_base32hex, uuidkit.from_base32hex),
    "base58": (uuidkit.to_base58, uuidkit.from_base58),
    "base64url": (uuidkit.to_base64url, uuidkit.from_base64url),
}


def number(v, alphabet, length):
    """`v` in base `len(alphabet)`, left-padded with the zero digit."""
    digits = []
    for _ in range(length):
        v, d = divmod(v, len(alphabet))
        digits.append(alphabet[d])
    assert v == 0
    return "".join(reversed(digits))


def reference(u):
    """Each encoding of `u`, computed without uuidkit."""
    return {
        "base32": number(u.int, CROCKFORD, 26),
        "ulid": number(u.int, CROCKFORD, 26),
        "base32hex": base64.b32hexencode(u.bytes).decode().rstrip("="),
        "base58": number(u.int, BITCOIN, 22),
        "base64url": base64.urlsafe_b64encode(u.bytes).decode().rstrip("="),
    }


def documented_vectors():
    """The test vectors table of docs/encodings.md: (name, UUID, {encoding: text})."""
    text = (ROOT / "docs" / "encodings.md").read_text()
    table = text[text.index("## Test vectors") :]
    rows = []
    for line in table.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[1] and cells[0] != "UUID" and not set(cells[0]) <= set("-"):
            name, hyphenated = cells[0].rsplit(" ", 1)
            u = uuid.UUID(hyphenated.strip("`"))
            rows.append((name, u, dict(zip(["base32", "base32hex", "base58", "base64url"], cells[1:]))))
    return rows


VECTORS = documented_vectors()


def test_the_documented_vectors_are_the_rfc_examples_nil_and_max():
    names = [name for name, _, _ in VECTORS]
    assert len(VECTORS) == 11, names
    assert {"§4", "A.6 v7", "B.2 v8", "Nil", "Max"} <= set(names)
    assert uuid.UUID(int=0) in [u for _, u, _ in VECTORS]


@pytest.mark.parametrize("name,u,texts", VECTORS, ids=[v[0] for v in VECTORS])
def test_documented_vectors_match_the_references_and_uuidkit(name, u, texts):
    ref = reference(u)
    for encoding, text in texts.items():
        assert ref[encoding] == text, encoding  # the documentation against this file's references
        to, back = CODECS[encoding]
        assert to(u) == text, encoding
        assert back(text) == u and type(back(text)) is uuid.UUID, encoding
        assert back(text.encode()) == u, encoding
    assert uuidkit.to_ulid(u) == texts["base32"]
    lower = texts["base32"].lower()
    assert uuidkit.to_typeid(u, "rfc") == "rfc_" + lower
    assert uuidkit.to_typeid(u, "") == lower
    assert uuidkit.from_typeid("rfc_" + lower) == ("rfc", u)


def test_round_trips_on_random_values():
    values = [uuidkit.uuid4() for _ in range(300)] + [uuidkit.uuid7() for _ in range(300)]
    values += [uuid.UUID(int=RNG.getrandbits(RNG.randrange(1, 129))) for _ in range(400)]
    values += [uuid.UUID(int=0), uuid.UUID(int=(1 << 128) - 1)]
    for u in values:
        ref = reference(u)
        for encoding, (to, back) in CODECS.items():
            text = to(u)
            assert text == ref[encoding], (u, encoding)
            assert back(text) == u, (u, encoding)
        assert uuidkit.from_base32(ref["base32"].lower()) == u
        assert uuidkit.from_base32hex(ref["base32hex"].lower()) == u
        prefix = "".join(RNG.choice("abcxyz") for _ in range(RNG.randrange(1, 10)))
        assert uuidkit.from_typeid(uuidkit.to_typeid(u, prefix)) == (prefix, u)


def test_the_sorting_forms_sort_like_the_uuids():
    us = sorted(uuid.UUID(int=RNG.getrandbits(128)) for _ in range(500))
    for to in (uuidkit.to_base32, uuidkit.to_base32hex, uuidkit.to_base58):
        assert [to(u) for u in us] == sorted(to(u) for u in us)


def test_any_object_with_a_uuid_int_is_encoded():
    class Holder:
        int = 0xF81D4FAE_7DEC_11D0_A765_00A0C91E6BF6

    assert uuidkit.to_base58(Holder()) == "Xe22UfxT3rxcKJEAfL5373"
    with pytest.raises(TypeError, match="expected a uuid.UUID, found str"):
        uuidkit.to_base32("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
    with pytest.raises(TypeError, match="expected str or bytes, found int"):
        uuidkit.from_base58(5)


def test_ulid_is_base32_and_keeps_the_milliseconds():
    u = uuidkit.from_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert u.int >> 80 == 1_469_922_850_259
    assert uuidkit.to_ulid(u) == "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    v7 = uuidkit.uuid7()
    assert uuidkit.from_ulid(uuidkit.to_ulid(v7)).int >> 80 == uuidkit.unix_ms(v7)


def typeid_suite(name):
    path = ROOT / "crates" / "uuidkit" / "tests" / "data" / f"typeid-{name}.json"
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# TypeID specification")  # the origin line
    return json.loads("\n".join(lines[1:]))


def test_typeid_specification_valid_suite():
    cases = typeid_suite("valid")
    assert len(cases) > 5
    for case in cases:
        u = uuid.UUID(case["uuid"])
        assert uuidkit.from_typeid(case["typeid"]) == (case["prefix"], u), case["name"]
        assert uuidkit.to_typeid(u, case["prefix"]) == case["typeid"], case["name"]


def test_typeid_specification_invalid_suite():
    cases = typeid_suite("invalid")
    assert len(cases) > 5
    for case in cases:
        with pytest.raises(uuidkit.DecodeError) as e:
            uuidkit.from_typeid(case["typeid"])
        assert e.value.encoding == "typeid", case["name"]
        if e.value.position is not None:  # a suffix's start may be the end of the text
            assert 0 <= e.value.position <= len(case["typeid"]), case["name"]


@pytest.mark.parametrize(
    "decode,text,position,kind,message",
    [
        (uuidkit.from_base58, "Xe22UfxT3rxcKJEAfL5073", 19, "invalid_character",
         "invalid base58 character '0' at position 19: expected 1-9, A-Z or a-z, without I, O and l"),
        (uuidkit.from_base58, "zzzzzzzzzzzzzzzzzzzzzz", None, "overflow", None),
        (uuidkit.from_base32, "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", 0, "invalid_character",
         "invalid base32 character '8' at position 0: expected 0-7 (the first of 26 digits carries 3 bits)"),
        (uuidkit.from_base32, "01ARZ3NDEKTSV4RRFFQ69G5FAU", 25, "invalid_character", None),
        (uuidkit.from_ulid, "01ARZ3NDEKTSV4RRFFQ69G5FAU", 25, "invalid_character", None),
        (uuidkit.from_base32hex, "V0EKVBJTTG8T19R502GCI7JBUP", 25, "invalid_character", None),
        (uuidkit.from_base64url, "-B1Prn3sEdCnZQCgyR5r9h", 21, "invalid_character", None),
        (uuidkit.from_base64url, "-B1Prn3sEdCnZQCgyR5r+g", 20, "invalid_character", None),
        (uuidkit.from_base64url, "AAAA", None, "invalid_length",
         "invalid base64url length 4: expected 22 characters"),
        (uuidkit.from_typeid, "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz", 7, "invalid_character", None),
        (uuidkit.from_typeid, "User_01h5fskfsk4fpeqwnsyz5hj55t", 0, "invalid_character", None),
        (uuidkit.from_typeid, "user_01h5fskfsk4fpeqwnsyz5hj55", 5, "invalid_length", None),
        (uuidkit.from_typeid, "a" * 64 + "_01h5fskfsk4fpeqwnsyz5hj55t", None, "prefix_too_long", None),
    ],
)
def test_errors_are_value_errors_naming_the_position(decode, text, position, kind, message):
    for given in (text, text.encode()):
        with pytest.raises(ValueError) as e:
            decode(given)
        err = e.value
        assert isinstance(err, uuidkit.DecodeError)
        assert (err.position, err.kind) == (position, kind)
        assert err.encoding == decode.__name__.removeprefix("from_")
        if message is not None:
            assert str(err) == message
        if kind == "invalid_character":
            assert f"'{text[position]}' at position {position}" in str(err)


def test_positions_and_lengths_of_text_count_characters():
    # Everything before a reported position is ASCII, so a position is an
    # index into the str; a non-ASCII character is named as itself.
    with pytest.raises(uuidkit.DecodeError) as e:
        uuidkit.from_base58("Xe22UfxT3rxcKJEAfL5\u00e973")
    assert (e.value.position, e.value.kind) == (19, "invalid_character")
    assert str(e.value).startswith("invalid base58 character '\u00e9' at position 19: expected 1-9")
    with pytest.raises(uuidkit.DecodeError, match="^invalid base32 length 3: expected 26 characters$"):
        uuidkit.from_base32("\u00e9\u00e9\u00e9")
    with pytest.raises(uuidkit.DecodeError) as e:
        uuidkit.from_typeid("us\u00e9r_01h5fskfsk4fpeqwnsyz5hj55t")
    assert (e.value.position, e.value.kind) == (2, "invalid_character")
    # Bytes are counted as bytes, and a byte that is not UTF-8 is named as a byte.
    with pytest.raises(uuidkit.DecodeError) as e:
        uuidkit.from_base58(b"Xe22UfxT3rxcKJEAfL5\xff73")
    assert (e.value.position, e.value.kind) == (19, "invalid_byte")
    assert "byte 0xff at position 19" in str(e.value)


@pytest.mark.parametrize(
    "prefix,position,kind",
    [("User", 0, "invalid_character"), ("user_", 4, "invalid_character"), ("_user", 0, "invalid_character"),
     ("us3r", 2, "invalid_character"), ("us\u00e9r", 2, "invalid_character"), ("a" * 64, None, "prefix_too_long"),
     ("\u00e9" * 40, 0, "invalid_character")],
)
def test_bad_typeid_prefixes_are_refused_naming_the_position(prefix, position, kind):
    with pytest.raises(uuidkit.DecodeError) as e:
        uuidkit.to_typeid(uuidkit.uuid7(), prefix)
    assert (e.value.position, e.value.kind, e.value.encoding) == (position, kind, "typeid")
    if position is not None:
        assert f"'{prefix[position]}' at position {position}" in str(e.value)
    assert uuidkit.to_typeid(uuid.UUID(int=0), "a" * 63) == "a" * 63 + "_" + "0" * 26
