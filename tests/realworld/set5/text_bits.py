# text_bits.py - byte-level text statistics and bit tricks from a GPU text-ingest tool and a
# parallel-programming course assignment: UTF-8 byte-class counting and validation with warp
# votes (ballot + popc, one atomic per warp for ASCII), and per-value parity, Gray code,
# bit reversal, lowest set bit and leading zeros of uint16 codes, with grid-wide atomic
# xor/and/max summaries.
# Numba accepts: utf8_classify, parity_gray.
# Known real bugs: none known.
import numpy as np
from numba import cuda, int8, uint32

# byte class: 0 ASCII, 1 continuation, 2/3/4 lead byte of a 2/3/4-byte sequence, 5 invalid
BYTE_CLASS = np.zeros(256, dtype=np.int8)
BYTE_CLASS[0x80:0xC0] = 1
BYTE_CLASS[0xC0:0xE0] = 2
BYTE_CLASS[0xE0:0xF0] = 3
BYTE_CLASS[0xF0:0xF5] = 4
BYTE_CLASS[[0xC0, 0xC1]] = 5
BYTE_CLASS[0xF5:] = 5
FULL_MASK = 0xFFFFFFFF


@cuda.jit
def utf8_classify(data, counts, first_bad):
    classes = cuda.const.array_like(BYTE_CLASS)
    i = cuda.grid(1)
    n = data.size
    inb = i < n
    cls = classes[data[i]] if inb else int8(-1)
    ascii_mask = cuda.ballot_sync(FULL_MASK, inb and cls == 0)
    if cuda.laneid == 0 and ascii_mask != 0:
        cuda.atomic.add(counts, 0, cuda.popc(ascii_mask))
    if not inb:
        return
    if cls > 0:
        cuda.atomic.add(counts, cls, 1)
    bad = cls == 5
    if cls >= 2 and cls <= 4:
        for k in range(1, cls):
            if i + k >= n or classes[data[i + k]] != 1:
                bad = True
    if bad:
        cuda.atomic.min(first_bad, 0, i)


@cuda.jit
def parity_gray(codes, out, summary):
    i = cuda.grid(1)
    if i >= codes.size:
        return
    x = uint32(codes[i])
    out[0, i] = cuda.popc(x) & 1
    out[1, i] = x ^ (x >> 1)
    out[2, i] = cuda.brev(x) >> 16
    out[3, i] = cuda.ffs(x)
    lz = cuda.clz(x) - 16
    out[4, i] = lz
    cuda.atomic.xor(summary, 0, x)
    cuda.atomic.and_(summary, 1, x)
    cuda.atomic.max(summary, 2, uint32(lz))


def utf8_ref(data, counts, first_bad):
    n = data.size
    for i in range(n):
        cls = int(BYTE_CLASS[data[i]])
        counts[cls if cls < 5 else 5] += 1
        bad = cls == 5
        if 2 <= cls <= 4:
            for k in range(1, cls):
                if i + k >= n or BYTE_CLASS[data[i + k]] != 1:
                    bad = True
        if bad:
            first_bad[0] = min(first_bad[0], i)


def text_stats(raw):
    data = np.frombuffer(raw, dtype=np.uint8)
    counts = cuda.to_device(np.zeros(6, dtype=np.int64))
    first_bad = cuda.to_device(np.array([data.size], dtype=np.int64))
    tpb = 256
    utf8_classify[(data.size + tpb - 1) // tpb, tpb](cuda.to_device(data), counts, first_bad)
    return counts.copy_to_host(), int(first_bad.copy_to_host()[0])


def code_bits(codes):
    out = cuda.device_array((5, codes.size), dtype=np.uint32)
    summary = cuda.to_device(np.array([0, 0xFFFF, 0], dtype=np.uint32))
    parity_gray[(codes.size + 127) // 128, 128](cuda.to_device(codes.astype(np.uint16)), out, summary)
    return out.copy_to_host(), summary.copy_to_host()


if __name__ == "__main__":
    print(text_stats("héllo wörld – ✓ 🚀".encode() + b"\xff"))
    print(code_bits(np.arange(1, 20, dtype=np.uint16))[1])
