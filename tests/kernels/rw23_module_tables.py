# Real-world corpus set 5 (tests/realworld/set5: aes.py, base64_codec.py): lookup tables that
# module-level code finishes after making them. kernlint refused the AES S-box, whose host
# function updates a number with an `if` expression inside arithmetic
# (`p ^ (0x1B if p & 0x80 else 0)`), refused `ord("=")`, and read the Base64 decode table
# as `np.full` made it, ignoring the module-level writes into it (`DECODE[ALPHABET] = ...`,
# `DECODE[PAD] = 0`, `DECODE[[...]] = ...`, `DECODE[-1] += 2`): every decoded byte was wrong.
# It also refused the Reed-Solomon tables unpacked from a host function's tuple
# (`GF_EXP, GF_LOG = gf_tables()`, whose `exp[255:] = exp[:255]` it refused as well), and
# `DECODE.setflags(write=False)` must not count as a change of the table.
import numpy as np
from numba import cuda


def _powers_of_3():
    # the powers of the generator 3 of GF(2^8)*, multiplied as in the AES S-box construction
    table = np.zeros(255, dtype=np.uint8)
    p = 1
    for i in range(255):
        table[i] = p
        p = p ^ ((p << 1) & 0xFF) ^ (0x1B if p & 0x80 else 0)
    return table


def gf_tables():
    exp = np.zeros(510, dtype=np.uint8)
    log = np.zeros(256, dtype=np.int16)
    x = 1
    for i in range(255):
        exp[i] = x
        log[x] = i
        x <<= 1
        if x & 0x100:
            x ^= 0x11D
    exp[255:] = exp[:255]
    return exp, log


POW3 = _powers_of_3()
GF_EXP, GF_LOG = gf_tables()
ALPHABET = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype=np.uint8).copy()
PAD = ord("=")
DECODE = np.full(256, 255, dtype=np.uint8)
DECODE[ALPHABET] = np.arange(64, dtype=np.uint8)
DECODE[PAD] = 0
DECODE[[0xC0, 0xC1]] = 77
DECODE[-1] += 2
# Made read-only once finished: the elements stay as they are.
DECODE.setflags(write=False)


@cuda.jit
def decode_and_power(src, dec, pw, gf):
    i = cuda.grid(1)
    if i < src.size:
        dec[i] = DECODE[src[i]]
        pw[i] = POW3[src[i] % 255]
        gf[i] = GF_EXP[GF_LOG[src[i]] + 200] if src[i] != 0 else 0
