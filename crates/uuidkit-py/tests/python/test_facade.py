"""The keyed v7 <-> v4 façade: the vector every surface checks, the uuidv47
mode against SipHash-2-4 and uuidv47 written here from their specifications,
round trips in both modes, and the refusals."""

import random
import uuid

import pytest

import uuidkit

# uuidv47's demo key (k0 = 0x0123456789abcdef, k1 = 0xfedcba9876543210, each
# little-endian) and v7, its uuidv47 façade, and the full mode's.
KEY_HEX = "efcdab89674523011032547698badcfe"
V7 = uuid.UUID("018f2d9f-9a2a-7def-8c3f-7b1a2c4d5e6f")
UUIDV47 = uuid.UUID("2463c780-7fca-4def-8c3f-7b1a2c4d5e6f")
FULL = uuid.UUID("20d59025-677f-4fbd-9e0a-a9812b2c8948")
RNG = random.Random(0xFACADE)
M64 = (1 << 64) - 1


def siphash24(key: bytes, msg: bytes) -> int:
    """SipHash-2-4 (Aumasson and Bernstein), 64-bit output."""
    k0 = int.from_bytes(key[:8], "little")
    k1 = int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & M64

    def rounds(n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & M64
            v[1] = rotl(v[1], 13) ^ v[0]
            v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & M64
            v[3] = rotl(v[3], 16) ^ v[2]
            v[0] = (v[0] + v[3]) & M64
            v[3] = rotl(v[3], 21) ^ v[0]
            v[2] = (v[2] + v[1]) & M64
            v[1] = rotl(v[1], 17) ^ v[2]
            v[2] = rotl(v[2], 32)

    tail = len(msg) % 8
    blocks = [int.from_bytes(msg[i : i + 8], "little") for i in range(0, len(msg) - tail, 8)]
    blocks.append(int.from_bytes(msg[len(msg) - tail :], "little") | ((len(msg) & 0xFF) << 56))
    for m in blocks:
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    v[2] ^= 0xFF
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def uuidv47_encode(u: uuid.UUID, key: bytes) -> uuid.UUID:
    """uuidv47: the 48-bit time XOR the low 48 bits of SipHash-2-4 of the 74
    random bits, as 10 bytes [b6 & 0x0F, b7, b8 & 0x3F, b9..b15]; version 4."""
    b = bytearray(u.bytes)
    msg = bytes([b[6] & 0x0F, b[7], b[8] & 0x3F]) + bytes(b[9:])
    ts = int.from_bytes(b[:6], "big") ^ (siphash24(key, msg) & ((1 << 48) - 1))
    b[:6] = ts.to_bytes(6, "big")
    b[6] = (b[6] & 0x0F) | 0x40
    return uuid.UUID(bytes=bytes(b))


def random_v7() -> uuid.UUID:
    x = RNG.getrandbits(128)
    return uuid.UUID(int=(x & ~(0xF << 76 | 3 << 62)) | 7 << 76 | 2 << 62)


def test_siphash_here_is_the_reference():
    # The reference's vector for 10 bytes 00..09 under the key 00..0f.
    assert siphash24(bytes(range(16)), bytes(range(10))) == 0x7A5DBBC594DDB9F3


def test_the_shared_vector_with_both_key_forms():
    for key in (KEY_HEX, bytes.fromhex(KEY_HEX), KEY_HEX.upper()):
        assert uuidkit.facade_encode(V7, key, "uuidv47") == UUIDV47
        assert uuidkit.facade_decode(UUIDV47, key, "uuidv47") == V7
        assert uuidkit.facade_encode(V7, key) == FULL
        assert uuidkit.facade_decode(FULL, key, mode="full") == V7
    assert uuidv47_encode(V7, bytes.fromhex(KEY_HEX)) == UUIDV47


def test_uuidv47_agrees_with_the_implementation_here():
    for _ in range(2_000):
        key = RNG.randbytes(16)
        u = random_v7()
        shown = uuidkit.facade_encode(u, key, "uuidv47")
        assert shown == uuidv47_encode(u, key), (u, key.hex())
        assert uuidkit.facade_decode(shown, key, "uuidv47") == u


@pytest.mark.parametrize("mode", ["full", "uuidv47"])
def test_round_trips_to_a_v4(mode):
    for _ in range(2_000):
        key = RNG.randbytes(16)
        u = random_v7()
        shown = uuidkit.facade_encode(u, key, mode)
        assert shown.version == 4 and shown.variant == uuid.RFC_4122
        assert uuidkit.facade_decode(shown, key, mode) == u


def test_refusals_say_why():
    with pytest.raises(ValueError, match="cannot make a façade of a version 4 UUID: expected version 7"):
        uuidkit.facade_encode(FULL, KEY_HEX)
    with pytest.raises(ValueError, match="cannot decode a version 7 UUID: expected a façade"):
        uuidkit.facade_decode(V7, KEY_HEX)
    with pytest.raises(ValueError, match="32 hex digits"):
        uuidkit.facade_encode(V7, "0011")
    with pytest.raises(ValueError, match="16 bytes, got 15"):
        uuidkit.facade_encode(V7, bytes(15))
    with pytest.raises(ValueError, match="expected uuidv47 or full"):
        uuidkit.facade_encode(V7, KEY_HEX, "v47")
    with pytest.raises(TypeError, match="found int"):
        uuidkit.facade_encode(V7, 7)
