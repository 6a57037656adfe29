# aes.py - AES-128 ECB encryption on the GPU (one 16-byte block per thread, round keys expanded
# on the host) and a byte-wise S-box substitution pass, written after the usual "AES in Numba"
# tutorials: the S-box is a module-level NumPy table, copied into shared memory by the block or
# read through cuda.const.array_like; MixColumns uses the GF(2^8) xtime helper.
# Numba accepts: aes128_encrypt_ecb, sub_bytes_stream.
# Known real bugs:
#   line 79: aes128_encrypt_ecb reads data[base + i] with base = 16 * thread: a warp's loads
#            are 16 B apart, one byte each (uncoalesced byte access; a uint32 view or a
#            shared-memory staging would load whole lines).
import numpy as np
from numba import cuda, uint8, int32


def _make_sbox():
    # multiplicative inverse in GF(2^8) followed by the affine map, as in FIPS-197
    sbox = np.zeros(256, dtype=np.uint8)
    p = q = 1
    while True:
        p = p ^ ((p << 1) & 0xFF) ^ (0x1B if p & 0x80 else 0)
        q ^= q << 1
        q ^= q << 2
        q ^= q << 4
        q &= 0xFF
        if q & 0x80:
            q ^= 0x09
        x = q ^ ((q << 1) | (q >> 7)) ^ ((q << 2) | (q >> 6)) ^ ((q << 3) | (q >> 5)) ^ ((q << 4) | (q >> 4))
        sbox[p] = (x ^ 0x63) & 0xFF
        if p == 1:
            break
    sbox[0] = 0x63
    return sbox


SBOX = _make_sbox()
NR = 10


@cuda.jit(device=True, inline=True)
def xtime(b):
    return ((b << 1) ^ (0x1B if b & 0x80 else 0)) & 0xFF


@cuda.jit(device=True)
def sub_shift(st, out, sbox):
    # state is column-major (st[r + 4 * c]); row r rotates left by r
    for c in range(4):
        for r in range(4):
            out[r + 4 * c] = sbox[st[r + 4 * ((c + r) % 4)]]


@cuda.jit(device=True)
def mix_columns(s):
    for c in range(4):
        a0 = s[4 * c]
        a1 = s[4 * c + 1]
        a2 = s[4 * c + 2]
        a3 = s[4 * c + 3]
        t = a0 ^ a1 ^ a2 ^ a3
        s[4 * c] = a0 ^ t ^ xtime(a0 ^ a1)
        s[4 * c + 1] = a1 ^ t ^ xtime(a1 ^ a2)
        s[4 * c + 2] = a2 ^ t ^ xtime(a2 ^ a3)
        s[4 * c + 3] = a3 ^ t ^ xtime(a3 ^ a0)


@cuda.jit
def aes128_encrypt_ecb(data, round_keys, out):
    sbox = cuda.shared.array(256, dtype=uint8)
    for i in range(cuda.threadIdx.x, 256, cuda.blockDim.x):
        sbox[i] = SBOX[i]
    cuda.syncthreads()

    blk = cuda.grid(1)
    base = blk * 16
    if base >= data.size:
        return
    st = cuda.local.array(16, dtype=uint8)
    tmp = cuda.local.array(16, dtype=uint8)
    for i in range(16):
        st[i] = data[base + i] ^ round_keys[i]
    for rnd in range(1, NR):
        sub_shift(st, tmp, sbox)
        mix_columns(tmp)
        for i in range(16):
            st[i] = tmp[i] ^ round_keys[16 * rnd + i]
    sub_shift(st, tmp, sbox)
    for i in range(16):
        out[base + i] = tmp[i] ^ round_keys[16 * NR + i]


@cuda.jit
def sub_bytes_stream(buf, n):
    table = cuda.const.array_like(SBOX)
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < n:
        buf[i] = table[buf[i]]
        i += stride


def expand_key(key):
    rcon = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36]
    w = [list(key[4 * i:4 * i + 4]) for i in range(4)]
    for i in range(4, 4 * (NR + 1)):
        t = list(w[i - 1])
        if i % 4 == 0:
            t = [int(SBOX[b]) for b in t[1:] + t[:1]]
            t[0] ^= rcon[i // 4 - 1]
        w.append([a ^ b for a, b in zip(w[i - 4], t)])
    return np.array(w, dtype=np.uint8).reshape(-1)


def encrypt_ecb(plaintext, key):
    data = np.frombuffer(plaintext, dtype=np.uint8)
    assert data.size % 16 == 0
    d_data = cuda.to_device(data)
    d_out = cuda.device_array_like(d_data)
    rk = cuda.to_device(expand_key(np.frombuffer(key, dtype=np.uint8)))
    threads = 256
    blocks = (data.size // 16 + threads - 1) // threads
    aes128_encrypt_ecb[blocks, threads](d_data, rk, d_out)
    return d_out.copy_to_host().tobytes()


if __name__ == "__main__":
    key = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
    pt = bytes.fromhex("00112233445566778899aabbccddeeff")
    print(encrypt_ecb(pt, key).hex())  # 69c4e0d86a7b0430d8cdb78070b4c55a
    buf = cuda.to_device(np.arange(1 << 16, dtype=np.uint8))
    sub_bytes_stream[(1 << 16) // 256, 256](buf, 1 << 16)
