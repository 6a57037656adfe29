//! Memory the PTX backend's optimizer needs: value numbering kept the table of every block
//! of a long unrolled chain, each holding the chain so far, so a SHA-256 round loop took
//! 800 MB and seconds to compile. Alone in its test binary, whose allocator it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::optimize;
use kernlint::launch::build_program;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// The real-world corpus's SHA-256 kernel (pbies/bitcoin-tools), cut to the message schedule
// and the 64 rounds: every round loop is unrolled into one long chain of blocks.
const SHA256: &str = "\
import numpy as np
from numba import cuda, uint32, uint8

_K = np.array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
], dtype=np.uint32)

@cuda.jit(device=True, inline=True)
def rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & uint32(0xFFFFFFFF)

@cuda.jit(device=True, inline=True)
def ch(x, y, z):
    return (x & y) ^ (~x & z)

@cuda.jit(device=True, inline=True)
def maj(x, y, z):
    return (x & y) ^ (x & z) ^ (y & z)

@cuda.jit
def k(inp, out_hash):
    i = cuda.grid(1)
    if i >= inp.shape[0]:
        return
    w = cuda.local.array(64, uint32)
    for t in range(16):
        idx = t * 4
        w[t] = (uint32(inp[i, idx]) << 24) | (uint32(inp[i, idx+1]) << 16) | (uint32(inp[i, idx+2]) << 8) | uint32(inp[i, idx+3])
    for t in range(16, 64):
        s0 = rotr(w[t-15], 7) ^ rotr(w[t-15], 18) ^ (w[t-15] >> 3)
        s1 = rotr(w[t-2], 17) ^ rotr(w[t-2], 19) ^ (w[t-2] >> 10)
        w[t] = (w[t-16] + s0 + w[t-7] + s1) & uint32(0xFFFFFFFF)
    a = uint32(0x6a09e667)
    b = uint32(0xbb67ae85)
    c = uint32(0x3c6ef372)
    d = uint32(0xa54ff53a)
    e = uint32(0x510e527f)
    f = uint32(0x9b05688c)
    g = uint32(0x1f83d9ab)
    h = uint32(0x5be0cd19)
    for t in range(64):
        t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ch(e, f, g) + _K[t] + w[t]) & uint32(0xFFFFFFFF)
        t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + maj(a, b, c)) & uint32(0xFFFFFFFF)
        h = g
        g = f
        f = e
        e = (d + t1) & uint32(0xFFFFFFFF)
        d = c
        c = b
        b = a
        a = (t1 + t2) & uint32(0xFFFFFFFF)
    out_hash[i, 0] = a
    out_hash[i, 1] = e
";

#[test]
fn unrolling_a_sha256_round_loop_needs_little_memory() {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "sha.py".into(), SHA256.to_string());
    let sig = parse_signature_str("void(uint8[:, ::1], uint32[:, ::1])").unwrap();
    let program = build_program(&db, file, "k", &sig).unwrap_or_else(|e| panic!("{}", e.message));
    let size = |p: &kernlint::launch::Program| p.functions.iter().flat_map(|f| &f.blocks).map(|b| b.insts.len()).sum::<usize>();
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    let before = LIVE.load(Ordering::Relaxed);
    let optimized = optimize(&program, false);
    let peak = PEAK.load(Ordering::Relaxed) - before;
    // The loops were unrolled (the program grew), within a few times its final size in tables.
    assert!(size(&optimized) > 2 * size(&program), "{} -> {}", size(&program), size(&optimized));
    assert!(peak < 64 << 20, "optimizing took {} MiB at its peak", peak >> 20);
}
