# base64_codec.py - Base64 (RFC 4648) encode and decode of byte buffers on the GPU, one 3-byte
# group (4 characters) per thread, as in GPU log-shipping / JSON-encoding projects. The
# alphabet is a module constant read through cuda.const.array_like, the reverse table a plain
# global NumPy array.
# Numba accepts: b64_encode, b64_decode.
# Known real bugs:
#   line 43: b64_decode reads src[4 * q] with no check of q against the number of groups:
#            the host rounds the grid up to whole blocks, so the last block reads (and writes)
#            past both buffers.
import numpy as np
from numba import cuda, uint8, uint32

ALPHABET = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                         dtype=np.uint8).copy()
PAD = ord("=")
DECODE = np.full(256, 255, dtype=np.uint8)
DECODE[ALPHABET] = np.arange(64, dtype=np.uint8)
DECODE[PAD] = 0


@cuda.jit
def b64_encode(src, n, dst):
    alpha = cuda.const.array_like(ALPHABET)
    q = cuda.grid(1)
    i = 3 * q
    valid = i < n
    if not valid:
        return
    b0 = uint32(src[i])
    b1 = uint32(src[i + 1]) if i + 1 < n else uint32(0)
    b2 = uint32(src[i + 2]) if i + 2 < n else uint32(0)
    triple = (b0 << 16) | (b1 << 8) | b2
    o = 4 * q
    dst[o] = alpha[(triple >> 18) & 0x3F]
    dst[o + 1] = alpha[(triple >> 12) & 0x3F]
    dst[o + 2] = alpha[(triple >> 6) & 0x3F] if i + 1 < n else uint8(PAD)
    dst[o + 3] = alpha[triple & 0x3F] if i + 2 < n else uint8(PAD)


@cuda.jit
def b64_decode(src, dst, bad):
    q = cuda.grid(1)
    c0 = DECODE[src[4 * q]]
    c1 = DECODE[src[4 * q + 1]]
    c2 = DECODE[src[4 * q + 2]]
    c3 = DECODE[src[4 * q + 3]]
    if (c0 | c1 | c2 | c3) == 255:
        cuda.atomic.or_(bad, 0, 1)
    v = (uint32(c0) << 18) | (uint32(c1) << 12) | (uint32(c2) << 6) | uint32(c3)
    dst[3 * q] = (v >> 16) & 0xFF
    dst[3 * q + 1] = (v >> 8) & 0xFF
    dst[3 * q + 2] = v & 0xFF


def encode(raw):
    src = np.frombuffer(raw, dtype=np.uint8)
    groups = (src.size + 2) // 3
    d_dst = cuda.device_array(4 * groups, dtype=np.uint8)
    tpb = 256
    b64_encode[(groups + tpb - 1) // tpb, tpb](cuda.to_device(src), src.size, d_dst)
    return d_dst.copy_to_host().tobytes()


def decode(text):
    src = np.frombuffer(text, dtype=np.uint8)
    groups = src.size // 4
    d_dst = cuda.device_array(3 * groups, dtype=np.uint8)
    bad = cuda.to_device(np.zeros(1, dtype=np.uint32))
    tpb = 256
    b64_decode[(groups + tpb - 1) // tpb, tpb](cuda.to_device(src), d_dst, bad)
    if bad.copy_to_host()[0]:
        raise ValueError("invalid base64 input")
    pad = text[-2:].count(b"=")
    return d_dst.copy_to_host().tobytes()[:3 * groups - pad]


if __name__ == "__main__":
    import base64
    msg = bytes(range(256)) * 3 + b"xy"
    assert encode(msg) == base64.b64encode(msg)
    assert decode(encode(msg)) == msg
