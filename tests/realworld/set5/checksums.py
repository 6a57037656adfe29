# checksums.py - per-record checksums for a storage-verification tool: CRC-32 (IEEE, reflected)
# with a 256-entry lookup table and a bitwise variant, Adler-32 per fixed-size chunk, and a
# per-block byte sum, one record (row) or chunk per thread.
# Numba accepts: crc32_rows, adler32_chunks, block_byte_sums; it rejects crc32_bitwise.
# Known real bugs:
#   line 52: crc32_bitwise starts crc as uint32(...), `crc ^ msgs[row, i]` makes it uint64 and
#            `(crc >> 1) ^ POLY` (POLY an int64) makes it int64: Numba unifies uint64 with int64
#            as float64, and `crc & 1` on a float64 fails to type (TypingError: and_(float64, ...)).
#   line 77: block_byte_sums adds into sums[cuda.blockIdx.x] with a plain `+=` from every
#            thread of the block: a non-atomic read-modify-write that loses updates.
#   line 39: crc32_rows reads msgs[row, i] with row the thread: a warp's loads are a whole
#            record apart (one thread per record is the natural but uncoalesced layout).
import numpy as np
from numba import cuda, uint32

POLY = 0xEDB88320
MOD_ADLER = 65521


def _crc_table():
    table = np.zeros(256, dtype=np.uint32)
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ POLY if c & 1 else c >> 1
        table[n] = c
    return table


CRC_TABLE = _crc_table()


@cuda.jit
def crc32_rows(msgs, lengths, crcs):
    row = cuda.grid(1)
    if row < msgs.shape[0]:
        crc = np.uint32(0xFFFFFFFF)
        for i in range(lengths[row]):
            crc = np.uint32(CRC_TABLE[(crc ^ msgs[row, i]) & 0xFF] ^ (crc >> 8))
        crcs[row] = ~crc


@cuda.jit
def crc32_bitwise(msgs, crcs):
    row = cuda.grid(1)
    if row >= msgs.shape[0]:
        return
    crc = uint32(0xFFFFFFFF)
    for i in range(msgs.shape[1]):
        crc = crc ^ msgs[row, i]
        for _ in range(8):
            if crc & 1:
                crc = (crc >> 1) ^ POLY
            else:
                crc = crc >> 1
    crcs[row] = crc ^ 0xFFFFFFFF


@cuda.jit
def adler32_chunks(data, chunk, out):
    c = cuda.grid(1)
    start = c * chunk
    if start < data.size:
        stop = min(start + chunk, data.size)
        a = 1
        b = 0
        for i in range(start, stop):
            a = (a + data[i]) % MOD_ADLER
            b = (b + a) % MOD_ADLER
        out[c] = (b << 16) | a


@cuda.jit
def block_byte_sums(data, sums):
    i = cuda.grid(1)
    if i < data.size:
        sums[cuda.blockIdx.x] += data[i]


def adler32_ref(data, chunk, out):
    for c in range(out.size):
        start = c * chunk
        if start < data.size:
            a, b = 1, 0
            for v in data[start:start + chunk]:
                a = (a + int(v)) % MOD_ADLER
                b = (b + a) % MOD_ADLER
            out[c] = (b << 16) | a


def crc32_host(msgs, lengths):
    threads = 128
    d_msgs = cuda.to_device(msgs)
    d_out = cuda.device_array(msgs.shape[0], dtype=np.uint32)
    crc32_rows[(msgs.shape[0] + threads - 1) // threads, threads](d_msgs, cuda.to_device(lengths), d_out)
    return d_out.copy_to_host()


def crc32_slow(msgs):
    # bitwise variant, to cross-check the table
    d_out = cuda.device_array(msgs.shape[0], dtype=np.uint32)
    crc32_bitwise[(msgs.shape[0] + 127) // 128, 128](cuda.to_device(msgs), d_out)
    return d_out.copy_to_host()


def verify(blob, chunk=4096):
    data = np.frombuffer(blob, dtype=np.uint8)
    nchunks = (data.size + chunk - 1) // chunk
    d_data = cuda.to_device(data)
    d_adler = cuda.device_array(nchunks, dtype=np.uint32)
    adler32_chunks[(nchunks + 63) // 64, 64](d_data, chunk, d_adler)
    sums = cuda.to_device(np.zeros((data.size + 255) // 256, dtype=np.int64))
    block_byte_sums[(data.size + 255) // 256, 256](d_data, sums)
    return d_adler.copy_to_host(), sums.copy_to_host()


if __name__ == "__main__":
    import zlib
    rec = np.frombuffer(b"123456789".ljust(16, b"\0"), dtype=np.uint8).reshape(1, 16)
    print(hex(crc32_host(rec, np.array([9], dtype=np.int32))[0]), hex(zlib.crc32(b"123456789")))
    print(verify(bytes(range(256)) * 64)[0][:2])
