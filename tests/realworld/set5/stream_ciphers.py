# stream_ciphers.py - ChaCha20 and Salsa20 keystream generation, one 64-byte block per thread
# (counter mode), in the style of GPU stream-cipher benchmarks and crypto course assignments.
# Numba accepts: chacha20_keystream, salsa20_keystream.
# Known real bugs:
#   line 74: salsa_qr's `rotl(a + d, 7)`: a + d of two uint32 is a uint64 in Numba, so the
#            sum never wraps at 2**32 and rotl's right shift brings bit 32 back down into the
#            low word: the keystream differs from the reference Salsa20 (chacha20's rotl32 masks
#            every step with `& MASK32` and is right).
#   lines 64, 111: both kernels store out[blk, i] with blk the thread: a warp's stores are 64 B
#            apart (one keystream block per thread), a quarter of the store bandwidth.
import numpy as np
from numba import cuda, uint32

MASK32 = 0xFFFFFFFF
ROUNDS = 20
# "expand 32-byte k"
SIGMA = np.array([0x61707865, 0x3320646E, 0x79622D32, 0x6B206574], dtype=np.uint32)


@cuda.jit(device=True, inline=True)
def rotl32(v, n):
    return ((v << n) | (v >> (32 - n))) & MASK32


@cuda.jit(device=True)
def quarter_round(x, a, b, c, d):
    x[a] = (x[a] + x[b]) & MASK32
    x[d] = rotl32(x[d] ^ x[a], 16)
    x[c] = (x[c] + x[d]) & MASK32
    x[b] = rotl32(x[b] ^ x[c], 12)
    x[a] = (x[a] + x[b]) & MASK32
    x[d] = rotl32(x[d] ^ x[a], 8)
    x[c] = (x[c] + x[d]) & MASK32
    x[b] = rotl32(x[b] ^ x[c], 7)


@cuda.jit
def chacha20_keystream(key, nonce, counter0, out):
    blk = cuda.grid(1)
    if blk >= out.shape[0]:
        return
    sigma = cuda.const.array_like(SIGMA)
    state = cuda.local.array(16, dtype=uint32)
    x = cuda.local.array(16, dtype=uint32)
    for i in range(4):
        state[i] = sigma[i]
    for i in range(8):
        state[4 + i] = key[i]
    state[12] = uint32(counter0 + blk)
    for i in range(3):
        state[13 + i] = nonce[i]
    for i in range(16):
        x[i] = state[i]
    for _ in range(ROUNDS // 2):
        quarter_round(x, 0, 4, 8, 12)
        quarter_round(x, 1, 5, 9, 13)
        quarter_round(x, 2, 6, 10, 14)
        quarter_round(x, 3, 7, 11, 15)
        quarter_round(x, 0, 5, 10, 15)
        quarter_round(x, 1, 6, 11, 12)
        quarter_round(x, 2, 7, 8, 13)
        quarter_round(x, 3, 4, 9, 14)
    for i in range(16):
        out[blk, i] = (x[i] + state[i]) & MASK32


@cuda.jit(device=True)
def rotl(v, n):
    return (v << n) | (v >> (32 - n))


@cuda.jit(device=True)
def salsa_qr(a, b, c, d):
    b ^= rotl(a + d, 7)
    c ^= rotl(b + a, 9)
    d ^= rotl(c + b, 13)
    a ^= rotl(d + c, 18)
    return a, b, c, d


@cuda.jit
def salsa20_keystream(key, nonce, out):
    blk = cuda.grid(1)
    if blk >= out.shape[0]:
        return
    j = cuda.local.array(16, dtype=uint32)
    x = cuda.local.array(16, dtype=uint32)
    j[0] = SIGMA[0]
    j[5] = SIGMA[1]
    j[10] = SIGMA[2]
    j[15] = SIGMA[3]
    for i in range(4):
        j[1 + i] = key[i]
        j[11 + i] = key[4 + i]
    j[6] = nonce[0]
    j[7] = nonce[1]
    j[8] = uint32(blk)
    j[9] = 0
    for i in range(16):
        x[i] = j[i]
    for _ in range(ROUNDS // 2):
        x[0], x[4], x[8], x[12] = salsa_qr(x[0], x[4], x[8], x[12])
        x[5], x[9], x[13], x[1] = salsa_qr(x[5], x[9], x[13], x[1])
        x[10], x[14], x[2], x[6] = salsa_qr(x[10], x[14], x[2], x[6])
        x[15], x[3], x[7], x[11] = salsa_qr(x[15], x[3], x[7], x[11])
        x[0], x[1], x[2], x[3] = salsa_qr(x[0], x[1], x[2], x[3])
        x[5], x[6], x[7], x[4] = salsa_qr(x[5], x[6], x[7], x[4])
        x[10], x[11], x[8], x[9] = salsa_qr(x[10], x[11], x[8], x[9])
        x[15], x[12], x[13], x[14] = salsa_qr(x[15], x[12], x[13], x[14])
    for i in range(16):
        out[blk, i] = x[i] + j[i]


def salsa20_ref(key, nonce, out):
    # CPU check of the kernel, meant for numba.njit: the same integer widening as on the GPU
    def rot(v, n):
        return (v << n) | (v >> (32 - n))

    def qr(a, b, c, d):
        b ^= rot(a + d, 7)
        c ^= rot(b + a, 9)
        d ^= rot(c + b, 13)
        a ^= rot(d + c, 18)
        return a, b, c, d

    for blk in range(out.shape[0]):
        j = np.zeros(16, dtype=np.uint32)
        j[0] = SIGMA[0]
        j[5] = SIGMA[1]
        j[10] = SIGMA[2]
        j[15] = SIGMA[3]
        for i in range(4):
            j[1 + i] = key[i]
            j[11 + i] = key[4 + i]
        j[6] = nonce[0]
        j[7] = nonce[1]
        j[8] = np.uint32(blk)
        x = j.copy()
        for _ in range(ROUNDS // 2):
            x[0], x[4], x[8], x[12] = qr(x[0], x[4], x[8], x[12])
            x[5], x[9], x[13], x[1] = qr(x[5], x[9], x[13], x[1])
            x[10], x[14], x[2], x[6] = qr(x[10], x[14], x[2], x[6])
            x[15], x[3], x[7], x[11] = qr(x[15], x[3], x[7], x[11])
            x[0], x[1], x[2], x[3] = qr(x[0], x[1], x[2], x[3])
            x[5], x[6], x[7], x[4] = qr(x[5], x[6], x[7], x[4])
            x[10], x[11], x[8], x[9] = qr(x[10], x[11], x[8], x[9])
            x[15], x[12], x[13], x[14] = qr(x[15], x[12], x[13], x[14])
        for i in range(16):
            out[blk, i] = x[i] + j[i]


def keystream(key_bytes, nonce_bytes, nblocks, cipher="chacha20"):
    key = np.frombuffer(key_bytes, dtype=np.uint32).copy()
    nonce = np.frombuffer(nonce_bytes, dtype=np.uint32).copy()
    out = cuda.device_array((nblocks, 16), dtype=np.uint32)
    threads = 128
    blocks = (nblocks + threads - 1) // threads
    if cipher == "chacha20":
        chacha20_keystream[blocks, threads](cuda.to_device(key), cuda.to_device(nonce), 1, out)
    else:
        salsa20_keystream[blocks, threads](cuda.to_device(key), cuda.to_device(nonce), out)
    return out.copy_to_host().view(np.uint8).reshape(-1)


def encrypt(plaintext, key_bytes, nonce_bytes):
    data = np.frombuffer(plaintext, dtype=np.uint8)
    ks = keystream(key_bytes, nonce_bytes, (data.size + 63) // 64)
    return (data ^ ks[:data.size]).tobytes()


if __name__ == "__main__":
    ct = encrypt(b"attack at dawn" * 1000, bytes(range(32)), bytes(12))
    print(len(ct), ct[:8].hex())
