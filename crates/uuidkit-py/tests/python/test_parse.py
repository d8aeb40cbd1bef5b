"""Parsing: the library's forms and its positioned errors as ValueError."""

import uuid

import pytest

import uuidkit

TEXT = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
U = uuid.UUID(TEXT)


@pytest.mark.parametrize(
    "text",
    [TEXT, TEXT.upper(), TEXT.replace("-", ""), "{" + TEXT + "}", "urn:uuid:" + TEXT, TEXT.encode()],
)
def test_lenient_forms(text):
    assert uuidkit.parse(text) == U


def test_strict_takes_the_hyphenated_form_only():
    assert uuidkit.parse_strict(TEXT) == U
    assert uuidkit.parse_strict(TEXT.upper()) == U
    with pytest.raises(uuidkit.ParseError) as e:
        uuidkit.parse_strict("{" + TEXT + "}")
    assert e.value.kind == "not_hyphenated"


@pytest.mark.parametrize(
    "text,position,kind,message",
    [
        ("f81d4fae-gdec-11d0-a765-00a0c91e6bf6", 9, "invalid_character",
         "invalid character 'g' at position 9: expected a hex digit"),
        ("f81d4fae-7dec-11d0-a765-00a0c91e6bf", 24, "group_length", "group 5 has 11 digits: expected 12"),
        ("f81d4fae-7dec-11d0-a765-00a0c91e6bfx", 35, "invalid_character", None),
        ("", None, "invalid_length", None),  # the fault is the length, not a place
    ],
)
def test_errors_are_value_errors_naming_the_position(text, position, kind, message):
    with pytest.raises(ValueError) as e:
        uuidkit.parse(text)
    err = e.value
    assert isinstance(err, uuidkit.ParseError)
    assert err.position == position
    assert err.kind == kind
    if message is not None:
        assert str(err) == message
    if kind == "invalid_character":
        assert f"at position {position}" in str(err)


def test_non_utf8_bytes_name_the_byte():
    bad = TEXT.encode()[:5] + b"\xff" + TEXT.encode()[6:]
    with pytest.raises(uuidkit.ParseError) as e:
        uuidkit.parse(bad)
    assert e.value.position == 5 and e.value.kind == "invalid_byte"


def test_wrong_type():
    with pytest.raises(TypeError, match="expected str or bytes, found int"):
        uuidkit.parse(5)


def test_round_trip_on_random_uuids():
    for _ in range(1000):
        u = uuidkit.uuid4()
        assert uuidkit.parse(str(u)) == u
        assert uuidkit.parse(u.hex) == u
        assert uuidkit.parse(u.urn) == u
