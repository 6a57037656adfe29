# Real-world corpus 5 (pbies/bitcoin-tools puzzle71/2/cuda_sha256_demo.py): compiling the 64
# unrolled rounds took 800 MB in value numbering (a table kept per block of the chain).
# sha256_repeated_k: the round constants written as list arithmetic, which kernlint could not
# evaluate (module arrays from `[...] * n + [...]`).
# The device functions drop the original's `inline=True`: Numba renames the variables of inlined
# copies (`{qualname}_v{N}_...`), which a typemap comparison cannot match.
import sys, time, math
import numpy as np
from numba import cuda, uint32, uint8, int32, types
# SHA-256 constants (first 32 bits of the fractional parts of the cube roots of the first 64 primes)
_K = np.array([
	0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,
	0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,
	0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,
	0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,
	0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,
	0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,
	0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,
	0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2,
], dtype=np.uint32)

# Copy constants to device global constant memory
_K_device = _K

@cuda.jit(device=True)
def rotr(x, n):
	# rotate right for uint32
	return ((x >> n) | (x << (32 - n))) & uint32(0xFFFFFFFF)

@cuda.jit(device=True)
def ch(x, y, z):
	return (x & y) ^ (~x & z)

@cuda.jit(device=True)
def maj(x, y, z):
	return (x & y) ^ (x & z) ^ (y & z)

@cuda.jit(device=True)
def big_sigma0(x):
	return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22)

@cuda.jit(device=True)
def big_sigma1(x):
	return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25)

@cuda.jit(device=True)
def small_sigma0(x):
	return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)

@cuda.jit(device=True)
def small_sigma1(x):
	return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10)

@cuda.jit
def kernel_sha256_single_block(inp, inp_len, out_hash):
	"""
	Compute SHA-256 for each record in inp (single 512-bit block per message).
	inp: uint8 array shape (N_RECORDS, RECORD_LEN)
	inp_len: int32 array shape (N_RECORDS,) indicating length of each record
	out_hash: uint32 array shape (N_RECORDS, 8) - 8 uint32 words of the digest
	"""
	i = cuda.grid(1)
	if i >= inp.shape[0]:
		return

	msg_len = inp_len[i]
	if msg_len > 55:
		# we don't handle multi-block messages in this demo
		for j in range(8):
			out_hash[i, j] = uint32(0xFFFFFFFF)
		return

	# Prepare the 512-bit block (64 bytes)
	block = cuda.local.array(64, uint8)
	# zero-fill
	for j in range(64):
		block[j] = uint8(0)

	# copy message bytes
	for j in range(msg_len):
		block[j] = inp[i, j]

	# append 0x80
	block[msg_len] = uint8(0x80)

	# append message length in bits as 64-bit big-endian at block[56..63]
	bit_len = uint32(msg_len * 8)  # safe for msg_len <= 2^32-1 for this demo
	# store as 64-bit big-endian (high 32 bits zero)
	block[56] = uint8(0)
	block[57] = uint8(0)
	block[58] = uint8(0)
	block[59] = uint8(0)
	block[60] = uint8((bit_len >> 24) & 0xFF)
	block[61] = uint8((bit_len >> 16) & 0xFF)
	block[62] = uint8((bit_len >> 8) & 0xFF)
	block[63] = uint8(bit_len & 0xFF)

	# prepare message schedule w[0..63] (uint32 words)
	w = cuda.local.array(64, uint32)
	# fill w[0..15] from block (big-endian)
	for t in range(16):
		idx = t * 4
		w[t] = (uint32(block[idx]) << 24) | (uint32(block[idx+1]) << 16) | (uint32(block[idx+2]) << 8) | uint32(block[idx+3])

	# extend w[16..63]
	for t in range(16, 64):
		s0 = small_sigma0(w[t-15])
		s1 = small_sigma1(w[t-2])
		w[t] = (w[t-16] + s0 + w[t-7] + s1) & uint32(0xFFFFFFFF)

	# initial hash values (first 32 bits of fractional parts of the square roots of the first 8 primes)
	a = uint32(0x6a09e667)
	b = uint32(0xbb67ae85)
	c = uint32(0x3c6ef372)
	d = uint32(0xa54ff53a)
	e = uint32(0x510e527f)
	f = uint32(0x9b05688c)
	g = uint32(0x1f83d9ab)
	h = uint32(0x5be0cd19)

	# compression function main loop
	for t in range(64):
		t1 = (h + big_sigma1(e) + ch(e, f, g) + _K_device[t] + w[t]) & uint32(0xFFFFFFFF)
		t2 = (big_sigma0(a) + maj(a, b, c)) & uint32(0xFFFFFFFF)
		h = g
		g = f
		f = e
		e = (d + t1) & uint32(0xFFFFFFFF)
		d = c
		c = b
		b = a
		a = (t1 + t2) & uint32(0xFFFFFFFF)

	# compute final hash value (add to initial hashes)
	out_hash[i, 0] = (uint32(0x6a09e667) + a) & uint32(0xFFFFFFFF)
	out_hash[i, 1] = (uint32(0xbb67ae85) + b) & uint32(0xFFFFFFFF)
	out_hash[i, 2] = (uint32(0x3c6ef372) + c) & uint32(0xFFFFFFFF)
	out_hash[i, 3] = (uint32(0xa54ff53a) + d) & uint32(0xFFFFFFFF)
	out_hash[i, 4] = (uint32(0x510e527f) + e) & uint32(0xFFFFFFFF)
	out_hash[i, 5] = (uint32(0x9b05688c) + f) & uint32(0xFFFFFFFF)
	out_hash[i, 6] = (uint32(0x1f83d9ab) + g) & uint32(0xFFFFFFFF)
	out_hash[i, 7] = (uint32(0x5be0cd19) + h) & uint32(0xFFFFFFFF)



# The first 8 round constants repeated, and the schedule's last word: built as Python lists.
_K_REPEATED = np.array([0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5] * 7 + [0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2] * 2, dtype=np.uint32)

@cuda.jit
def sha256_repeated_k(out):
	i = cuda.grid(1)
	if i < out.shape[0]:
		h = uint32(0)
		for t in range(64):
			h = (rotr(h, 7) ^ _K_REPEATED[t]) + uint32(i)
		out[i] = h
