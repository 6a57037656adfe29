# option_pricing.py - European option pricing two ways, after the NVIDIA BlackScholes and
# MonteCarlo SDK samples as ported in Numba workshops: a closed-form Black-Scholes kernel
# (float32, Abramowitz-Stegun cumulative normal as a device function), and a Monte Carlo
# pricer for an Asian call with xoroshiro128+ states, a shared-memory block reduction and one
# atomic add per block.
# Numba accepts: black_scholes, mc_asian_call.
# Known real bugs:
#   line 43: `0.5 * sigma * sigma` and `-RISKFREE * t` are float64 (literal and float64
#            module constant), so d1/d2 and the discount factor are float64 in a float32 kernel.
#   line 57: `maturity / nsteps` (float32 / int64) is float64, and so are drift, vol, the
#            path value `s` (line 66) and the accumulators: the whole path loop runs in float64.
import math

import numpy as np
from numba import cuda, float32
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float32

RISKFREE = 0.02
VOLATILITY = 0.30
A1, A2, A3, A4, A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
RSQRT2PI = 0.39894228040143267794
MC_THREADS = 128


@cuda.jit(device=True)
def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret = RSQRT2PI * math.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
    if d > 0:
        ret = 1.0 - ret
    return ret


@cuda.jit
def black_scholes(call, put, stock, strike, years):
    i = cuda.grid(1)
    if i < stock.shape[0]:
        s = stock[i]
        x = strike[i]
        t = years[i]
        sigma = float32(VOLATILITY)
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / x) + (RISKFREE + 0.5 * sigma * sigma) * t) / (sigma * sqrt_t)
        d2 = d1 - sigma * sqrt_t
        cnd_d1 = cnd(d1)
        cnd_d2 = cnd(d2)
        exp_rt = math.exp(-RISKFREE * t)
        call[i] = s * cnd_d1 - x * exp_rt * cnd_d2
        put[i] = x * exp_rt * (1.0 - cnd_d2) - s * (1.0 - cnd_d1)


@cuda.jit
def mc_asian_call(states, s0, strike, rate, sigma, maturity, nsteps, paths_per_thread, payoff_sum):
    partial = cuda.shared.array(MC_THREADS, dtype=float32)
    tid = cuda.threadIdx.x
    gid = cuda.grid(1)
    dt = maturity / nsteps
    drift = (rate - float32(0.5) * sigma * sigma) * dt
    vol = sigma * math.sqrt(dt)
    acc = float32(0.0)
    for _ in range(paths_per_thread):
        s = s0
        avg = float32(0.0)
        for _ in range(nsteps):
            z = xoroshiro128p_normal_float32(states, gid)
            s *= math.exp(drift + vol * z)
            avg += s
        avg /= nsteps
        if avg > strike:
            acc += avg - strike
    partial[tid] = acc
    cuda.syncthreads()
    stride = MC_THREADS // 2
    while stride > 0:
        if tid < stride:
            partial[tid] += partial[tid + stride]
        cuda.syncthreads()
        stride //= 2
    if tid == 0:
        cuda.atomic.add(payoff_sum, 0, partial[0])


def price_all(n_options=4096):
    rng = np.random.default_rng(7)
    stock = rng.uniform(5.0, 30.0, n_options).astype(np.float32)
    strike = rng.uniform(1.0, 100.0, n_options).astype(np.float32)
    years = rng.uniform(0.25, 10.0, n_options).astype(np.float32)
    stream = cuda.stream()
    d_stock = cuda.to_device(stock, stream=stream)
    d_strike = cuda.to_device(strike, stream=stream)
    d_years = cuda.to_device(years, stream=stream)
    d_call = cuda.device_array(n_options, dtype=np.float32, stream=stream)
    d_put = cuda.device_array(n_options, dtype=np.float32, stream=stream)
    tpb = 256
    black_scholes[(n_options + tpb - 1) // tpb, tpb, stream](d_call, d_put, d_stock, d_strike, d_years)
    call = d_call.copy_to_host(stream=stream)
    stream.synchronize()

    blocks = 64
    states = create_xoroshiro128p_states(blocks * MC_THREADS, seed=42)
    total = cuda.to_device(np.zeros(1, dtype=np.float32))
    mc_asian_call[blocks, MC_THREADS](states, np.float32(100.0), np.float32(100.0), np.float32(0.05),
                                      np.float32(0.2), np.float32(1.0), 64, 16, total)
    npaths = blocks * MC_THREADS * 16
    price = total.copy_to_host()[0] / npaths * math.exp(-0.05)
    return call, price


if __name__ == "__main__":
    c, p = price_all()
    print(c[:4], p)
