"""Typing fixtures for tests/libdevice.rs: every libdevice routine called with arguments of
its parameter types (one kernel per parameter list), then arguments Numba converts.
Signatures are in SIGS (read by scripts/gen_libdevice_table.py and the Rust test)."""
import numba.cuda.libdevice as ld
from numba import cuda
from numba.cuda import libdevice
from numba.cuda.libdevice import frexp, sinf as SINF

SIGS = {
    "params_f32": "void(float64[::1], float32)",
    "params_f64": "void(float64[::1], float64)",
    "params_i16": "void(float64[::1], int16)",
    "params_i32": "void(float64[::1], int32)",
    "params_i64": "void(float64[::1], int64)",
    "params_f32_f32": "void(float64[::1], float32, float32)",
    "params_f32_i32": "void(float64[::1], float32, int32)",
    "params_f64_f64": "void(float64[::1], float64, float64)",
    "params_f64_i32": "void(float64[::1], float64, int32)",
    "params_i32_f32": "void(float64[::1], int32, float32)",
    "params_i32_f64": "void(float64[::1], int32, float64)",
    "params_i32_i32": "void(float64[::1], int32, int32)",
    "params_i64_i64": "void(float64[::1], int64, int64)",
    "params_f32_f32_f32": "void(float64[::1], float32, float32, float32)",
    "params_f64_f64_f64": "void(float64[::1], float64, float64, float64)",
    "params_i32_i32_i32": "void(float64[::1], int32, int32, int32)",
    "conversions": "void(float64[::1], float64, float32, float16, int32, int64, uint64, uint8, boolean)",
    "import_forms": "void(float64[::1], float32, int64)",
}


@cuda.jit
def params_f32(out, a0):
    r_acosf = libdevice.acosf(a0)
    r_acoshf = libdevice.acoshf(a0)
    r_asinf = libdevice.asinf(a0)
    r_asinhf = libdevice.asinhf(a0)
    r_atanf = libdevice.atanf(a0)
    r_atanhf = libdevice.atanhf(a0)
    r_cbrtf = libdevice.cbrtf(a0)
    r_ceilf = libdevice.ceilf(a0)
    r_cosf = libdevice.cosf(a0)
    r_coshf = libdevice.coshf(a0)
    r_cospif = libdevice.cospif(a0)
    r_erfcf = libdevice.erfcf(a0)
    r_erfcinvf = libdevice.erfcinvf(a0)
    r_erfcxf = libdevice.erfcxf(a0)
    r_erff = libdevice.erff(a0)
    r_erfinvf = libdevice.erfinvf(a0)
    r_exp10f = libdevice.exp10f(a0)
    r_exp2f = libdevice.exp2f(a0)
    r_expf = libdevice.expf(a0)
    r_expm1f = libdevice.expm1f(a0)
    r_fabsf = libdevice.fabsf(a0)
    r_fast_cosf = libdevice.fast_cosf(a0)
    r_fast_exp10f = libdevice.fast_exp10f(a0)
    r_fast_expf = libdevice.fast_expf(a0)
    r_fast_log10f = libdevice.fast_log10f(a0)
    r_fast_log2f = libdevice.fast_log2f(a0)
    r_fast_logf = libdevice.fast_logf(a0)
    r_fast_sincosf = libdevice.fast_sincosf(a0)
    r_fast_sinf = libdevice.fast_sinf(a0)
    r_fast_tanf = libdevice.fast_tanf(a0)
    r_finitef = libdevice.finitef(a0)
    r_float2half_rn = libdevice.float2half_rn(a0)
    r_float2int_rd = libdevice.float2int_rd(a0)
    r_float2int_rn = libdevice.float2int_rn(a0)
    r_float2int_ru = libdevice.float2int_ru(a0)
    r_float2int_rz = libdevice.float2int_rz(a0)
    r_float2ll_rd = libdevice.float2ll_rd(a0)
    r_float2ll_rn = libdevice.float2ll_rn(a0)
    r_float2ll_ru = libdevice.float2ll_ru(a0)
    r_float2ll_rz = libdevice.float2ll_rz(a0)
    r_float2uint_rd = libdevice.float2uint_rd(a0)
    r_float2uint_rn = libdevice.float2uint_rn(a0)
    r_float2uint_ru = libdevice.float2uint_ru(a0)
    r_float2uint_rz = libdevice.float2uint_rz(a0)
    r_float2ull_rd = libdevice.float2ull_rd(a0)
    r_float2ull_rn = libdevice.float2ull_rn(a0)
    r_float2ull_ru = libdevice.float2ull_ru(a0)
    r_float2ull_rz = libdevice.float2ull_rz(a0)
    r_float_as_int = libdevice.float_as_int(a0)
    r_floorf = libdevice.floorf(a0)
    r_frcp_rd = libdevice.frcp_rd(a0)
    r_frcp_rn = libdevice.frcp_rn(a0)
    r_frcp_ru = libdevice.frcp_ru(a0)
    r_frcp_rz = libdevice.frcp_rz(a0)
    r_frexpf = libdevice.frexpf(a0)
    r_frsqrt_rn = libdevice.frsqrt_rn(a0)
    r_fsqrt_rd = libdevice.fsqrt_rd(a0)
    r_fsqrt_rn = libdevice.fsqrt_rn(a0)
    r_fsqrt_ru = libdevice.fsqrt_ru(a0)
    r_fsqrt_rz = libdevice.fsqrt_rz(a0)
    r_ilogbf = libdevice.ilogbf(a0)
    r_isinff = libdevice.isinff(a0)
    r_isnanf = libdevice.isnanf(a0)
    r_j0f = libdevice.j0f(a0)
    r_j1f = libdevice.j1f(a0)
    r_lgammaf = libdevice.lgammaf(a0)
    r_llrintf = libdevice.llrintf(a0)
    r_llroundf = libdevice.llroundf(a0)
    r_log10f = libdevice.log10f(a0)
    r_log1pf = libdevice.log1pf(a0)
    r_log2f = libdevice.log2f(a0)
    r_logbf = libdevice.logbf(a0)
    r_logf = libdevice.logf(a0)
    r_modff = libdevice.modff(a0)
    r_nearbyintf = libdevice.nearbyintf(a0)
    r_normcdff = libdevice.normcdff(a0)
    r_normcdfinvf = libdevice.normcdfinvf(a0)
    r_rcbrtf = libdevice.rcbrtf(a0)
    r_rintf = libdevice.rintf(a0)
    r_roundf = libdevice.roundf(a0)
    r_rsqrtf = libdevice.rsqrtf(a0)
    r_saturatef = libdevice.saturatef(a0)
    r_signbitf = libdevice.signbitf(a0)
    r_sincosf = libdevice.sincosf(a0)
    r_sincospif = libdevice.sincospif(a0)
    r_sinf = libdevice.sinf(a0)
    r_sinhf = libdevice.sinhf(a0)
    r_sinpif = libdevice.sinpif(a0)
    r_sqrtf = libdevice.sqrtf(a0)
    r_tanf = libdevice.tanf(a0)
    r_tanhf = libdevice.tanhf(a0)
    r_tgammaf = libdevice.tgammaf(a0)
    r_truncf = libdevice.truncf(a0)
    r_y0f = libdevice.y0f(a0)
    r_y1f = libdevice.y1f(a0)


@cuda.jit
def params_f64(out, a0):
    r_acos = libdevice.acos(a0)
    r_acosh = libdevice.acosh(a0)
    r_asin = libdevice.asin(a0)
    r_asinh = libdevice.asinh(a0)
    r_atan = libdevice.atan(a0)
    r_atanh = libdevice.atanh(a0)
    r_cbrt = libdevice.cbrt(a0)
    r_ceil = libdevice.ceil(a0)
    r_cos = libdevice.cos(a0)
    r_cosh = libdevice.cosh(a0)
    r_cospi = libdevice.cospi(a0)
    r_double2float_rd = libdevice.double2float_rd(a0)
    r_double2float_rn = libdevice.double2float_rn(a0)
    r_double2float_ru = libdevice.double2float_ru(a0)
    r_double2float_rz = libdevice.double2float_rz(a0)
    r_double2hiint = libdevice.double2hiint(a0)
    r_double2int_rd = libdevice.double2int_rd(a0)
    r_double2int_rn = libdevice.double2int_rn(a0)
    r_double2int_ru = libdevice.double2int_ru(a0)
    r_double2int_rz = libdevice.double2int_rz(a0)
    r_double2ll_rd = libdevice.double2ll_rd(a0)
    r_double2ll_rn = libdevice.double2ll_rn(a0)
    r_double2ll_ru = libdevice.double2ll_ru(a0)
    r_double2ll_rz = libdevice.double2ll_rz(a0)
    r_double2loint = libdevice.double2loint(a0)
    r_double2uint_rd = libdevice.double2uint_rd(a0)
    r_double2uint_rn = libdevice.double2uint_rn(a0)
    r_double2uint_ru = libdevice.double2uint_ru(a0)
    r_double2uint_rz = libdevice.double2uint_rz(a0)
    r_double2ull_rd = libdevice.double2ull_rd(a0)
    r_double2ull_rn = libdevice.double2ull_rn(a0)
    r_double2ull_ru = libdevice.double2ull_ru(a0)
    r_double2ull_rz = libdevice.double2ull_rz(a0)
    r_double_as_longlong = libdevice.double_as_longlong(a0)
    r_drcp_rd = libdevice.drcp_rd(a0)
    r_drcp_rn = libdevice.drcp_rn(a0)
    r_drcp_ru = libdevice.drcp_ru(a0)
    r_drcp_rz = libdevice.drcp_rz(a0)
    r_dsqrt_rd = libdevice.dsqrt_rd(a0)
    r_dsqrt_rn = libdevice.dsqrt_rn(a0)
    r_dsqrt_ru = libdevice.dsqrt_ru(a0)
    r_dsqrt_rz = libdevice.dsqrt_rz(a0)
    r_erf = libdevice.erf(a0)
    r_erfc = libdevice.erfc(a0)
    r_erfcinv = libdevice.erfcinv(a0)
    r_erfcx = libdevice.erfcx(a0)
    r_erfinv = libdevice.erfinv(a0)
    r_exp = libdevice.exp(a0)
    r_exp10 = libdevice.exp10(a0)
    r_exp2 = libdevice.exp2(a0)
    r_expm1 = libdevice.expm1(a0)
    r_fabs = libdevice.fabs(a0)
    r_floor = libdevice.floor(a0)
    r_frexp = libdevice.frexp(a0)
    r_ilogb = libdevice.ilogb(a0)
    r_isfinited = libdevice.isfinited(a0)
    r_isinfd = libdevice.isinfd(a0)
    r_isnand = libdevice.isnand(a0)
    r_j0 = libdevice.j0(a0)
    r_j1 = libdevice.j1(a0)
    r_lgamma = libdevice.lgamma(a0)
    r_llrint = libdevice.llrint(a0)
    r_llround = libdevice.llround(a0)
    r_log = libdevice.log(a0)
    r_log10 = libdevice.log10(a0)
    r_log1p = libdevice.log1p(a0)
    r_log2 = libdevice.log2(a0)
    r_logb = libdevice.logb(a0)
    r_modf = libdevice.modf(a0)
    r_nearbyint = libdevice.nearbyint(a0)
    r_normcdf = libdevice.normcdf(a0)
    r_normcdfinv = libdevice.normcdfinv(a0)
    r_rcbrt = libdevice.rcbrt(a0)
    r_rint = libdevice.rint(a0)
    r_round = libdevice.round(a0)
    r_rsqrt = libdevice.rsqrt(a0)
    r_signbitd = libdevice.signbitd(a0)
    r_sin = libdevice.sin(a0)
    r_sincos = libdevice.sincos(a0)
    r_sincospi = libdevice.sincospi(a0)
    r_sinh = libdevice.sinh(a0)
    r_sinpi = libdevice.sinpi(a0)
    r_sqrt = libdevice.sqrt(a0)
    r_tan = libdevice.tan(a0)
    r_tanh = libdevice.tanh(a0)
    r_tgamma = libdevice.tgamma(a0)
    r_trunc = libdevice.trunc(a0)
    r_y0 = libdevice.y0(a0)
    r_y1 = libdevice.y1(a0)


@cuda.jit
def params_i16(out, a0):
    r_half2float = libdevice.half2float(a0)


@cuda.jit
def params_i32(out, a0):
    r_abs = libdevice.abs(a0)
    r_brev = libdevice.brev(a0)
    r_clz = libdevice.clz(a0)
    r_ffs = libdevice.ffs(a0)
    r_int2double_rn = libdevice.int2double_rn(a0)
    r_int2float_rd = libdevice.int2float_rd(a0)
    r_int2float_rn = libdevice.int2float_rn(a0)
    r_int2float_ru = libdevice.int2float_ru(a0)
    r_int2float_rz = libdevice.int2float_rz(a0)
    r_int_as_float = libdevice.int_as_float(a0)
    r_popc = libdevice.popc(a0)
    r_uint2double_rn = libdevice.uint2double_rn(a0)
    r_uint2float_rd = libdevice.uint2float_rd(a0)
    r_uint2float_rn = libdevice.uint2float_rn(a0)
    r_uint2float_ru = libdevice.uint2float_ru(a0)
    r_uint2float_rz = libdevice.uint2float_rz(a0)


@cuda.jit
def params_i64(out, a0):
    r_brevll = libdevice.brevll(a0)
    r_clzll = libdevice.clzll(a0)
    r_ffsll = libdevice.ffsll(a0)
    r_ll2double_rd = libdevice.ll2double_rd(a0)
    r_ll2double_rn = libdevice.ll2double_rn(a0)
    r_ll2double_ru = libdevice.ll2double_ru(a0)
    r_ll2double_rz = libdevice.ll2double_rz(a0)
    r_ll2float_rd = libdevice.ll2float_rd(a0)
    r_ll2float_rn = libdevice.ll2float_rn(a0)
    r_ll2float_ru = libdevice.ll2float_ru(a0)
    r_ll2float_rz = libdevice.ll2float_rz(a0)
    r_llabs = libdevice.llabs(a0)
    r_longlong_as_double = libdevice.longlong_as_double(a0)
    r_popcll = libdevice.popcll(a0)
    r_ull2double_rd = libdevice.ull2double_rd(a0)
    r_ull2double_rn = libdevice.ull2double_rn(a0)
    r_ull2double_ru = libdevice.ull2double_ru(a0)
    r_ull2double_rz = libdevice.ull2double_rz(a0)
    r_ull2float_rd = libdevice.ull2float_rd(a0)
    r_ull2float_rn = libdevice.ull2float_rn(a0)
    r_ull2float_ru = libdevice.ull2float_ru(a0)
    r_ull2float_rz = libdevice.ull2float_rz(a0)


@cuda.jit
def params_f32_f32(out, a0, a1):
    r_atan2f = libdevice.atan2f(a0, a1)
    r_copysignf = libdevice.copysignf(a0, a1)
    r_fadd_rd = libdevice.fadd_rd(a0, a1)
    r_fadd_rn = libdevice.fadd_rn(a0, a1)
    r_fadd_ru = libdevice.fadd_ru(a0, a1)
    r_fadd_rz = libdevice.fadd_rz(a0, a1)
    r_fast_fdividef = libdevice.fast_fdividef(a0, a1)
    r_fast_powf = libdevice.fast_powf(a0, a1)
    r_fdimf = libdevice.fdimf(a0, a1)
    r_fdiv_rd = libdevice.fdiv_rd(a0, a1)
    r_fdiv_rn = libdevice.fdiv_rn(a0, a1)
    r_fdiv_ru = libdevice.fdiv_ru(a0, a1)
    r_fdiv_rz = libdevice.fdiv_rz(a0, a1)
    r_fmaxf = libdevice.fmaxf(a0, a1)
    r_fminf = libdevice.fminf(a0, a1)
    r_fmodf = libdevice.fmodf(a0, a1)
    r_fmul_rd = libdevice.fmul_rd(a0, a1)
    r_fmul_rn = libdevice.fmul_rn(a0, a1)
    r_fmul_ru = libdevice.fmul_ru(a0, a1)
    r_fmul_rz = libdevice.fmul_rz(a0, a1)
    r_fsub_rd = libdevice.fsub_rd(a0, a1)
    r_fsub_rn = libdevice.fsub_rn(a0, a1)
    r_fsub_ru = libdevice.fsub_ru(a0, a1)
    r_fsub_rz = libdevice.fsub_rz(a0, a1)
    r_hypotf = libdevice.hypotf(a0, a1)
    r_nextafterf = libdevice.nextafterf(a0, a1)
    r_powf = libdevice.powf(a0, a1)
    r_remainderf = libdevice.remainderf(a0, a1)
    r_remquof = libdevice.remquof(a0, a1)


@cuda.jit
def params_f32_i32(out, a0, a1):
    r_ldexpf = libdevice.ldexpf(a0, a1)
    r_powif = libdevice.powif(a0, a1)
    r_scalbnf = libdevice.scalbnf(a0, a1)


@cuda.jit
def params_f64_f64(out, a0, a1):
    r_atan2 = libdevice.atan2(a0, a1)
    r_copysign = libdevice.copysign(a0, a1)
    r_dadd_rd = libdevice.dadd_rd(a0, a1)
    r_dadd_rn = libdevice.dadd_rn(a0, a1)
    r_dadd_ru = libdevice.dadd_ru(a0, a1)
    r_dadd_rz = libdevice.dadd_rz(a0, a1)
    r_ddiv_rd = libdevice.ddiv_rd(a0, a1)
    r_ddiv_rn = libdevice.ddiv_rn(a0, a1)
    r_ddiv_ru = libdevice.ddiv_ru(a0, a1)
    r_ddiv_rz = libdevice.ddiv_rz(a0, a1)
    r_dmul_rd = libdevice.dmul_rd(a0, a1)
    r_dmul_rn = libdevice.dmul_rn(a0, a1)
    r_dmul_ru = libdevice.dmul_ru(a0, a1)
    r_dmul_rz = libdevice.dmul_rz(a0, a1)
    r_fdim = libdevice.fdim(a0, a1)
    r_fmax = libdevice.fmax(a0, a1)
    r_fmin = libdevice.fmin(a0, a1)
    r_fmod = libdevice.fmod(a0, a1)
    r_hypot = libdevice.hypot(a0, a1)
    r_nextafter = libdevice.nextafter(a0, a1)
    r_pow = libdevice.pow(a0, a1)
    r_remainder = libdevice.remainder(a0, a1)
    r_remquo = libdevice.remquo(a0, a1)


@cuda.jit
def params_f64_i32(out, a0, a1):
    r_ldexp = libdevice.ldexp(a0, a1)
    r_powi = libdevice.powi(a0, a1)
    r_scalbn = libdevice.scalbn(a0, a1)


@cuda.jit
def params_i32_f32(out, a0, a1):
    r_jnf = libdevice.jnf(a0, a1)
    r_ynf = libdevice.ynf(a0, a1)


@cuda.jit
def params_i32_f64(out, a0, a1):
    r_jn = libdevice.jn(a0, a1)
    r_yn = libdevice.yn(a0, a1)


@cuda.jit
def params_i32_i32(out, a0, a1):
    r_hadd = libdevice.hadd(a0, a1)
    r_hiloint2double = libdevice.hiloint2double(a0, a1)
    r_max = libdevice.max(a0, a1)
    r_min = libdevice.min(a0, a1)
    r_mul24 = libdevice.mul24(a0, a1)
    r_mulhi = libdevice.mulhi(a0, a1)
    r_rhadd = libdevice.rhadd(a0, a1)
    r_uhadd = libdevice.uhadd(a0, a1)
    r_umax = libdevice.umax(a0, a1)
    r_umin = libdevice.umin(a0, a1)
    r_umul24 = libdevice.umul24(a0, a1)
    r_umulhi = libdevice.umulhi(a0, a1)
    r_urhadd = libdevice.urhadd(a0, a1)


@cuda.jit
def params_i64_i64(out, a0, a1):
    r_llmax = libdevice.llmax(a0, a1)
    r_llmin = libdevice.llmin(a0, a1)
    r_mul64hi = libdevice.mul64hi(a0, a1)
    r_ullmax = libdevice.ullmax(a0, a1)
    r_ullmin = libdevice.ullmin(a0, a1)
    r_umul64hi = libdevice.umul64hi(a0, a1)


@cuda.jit
def params_f32_f32_f32(out, a0, a1, a2):
    r_fmaf = libdevice.fmaf(a0, a1, a2)
    r_fmaf_rd = libdevice.fmaf_rd(a0, a1, a2)
    r_fmaf_rn = libdevice.fmaf_rn(a0, a1, a2)
    r_fmaf_ru = libdevice.fmaf_ru(a0, a1, a2)
    r_fmaf_rz = libdevice.fmaf_rz(a0, a1, a2)


@cuda.jit
def params_f64_f64_f64(out, a0, a1, a2):
    r_fma = libdevice.fma(a0, a1, a2)
    r_fma_rd = libdevice.fma_rd(a0, a1, a2)
    r_fma_rn = libdevice.fma_rn(a0, a1, a2)
    r_fma_ru = libdevice.fma_ru(a0, a1, a2)
    r_fma_rz = libdevice.fma_rz(a0, a1, a2)


@cuda.jit
def params_i32_i32_i32(out, a0, a1, a2):
    r_byte_perm = libdevice.byte_perm(a0, a1, a2)
    r_sad = libdevice.sad(a0, a1, a2)
    r_usad = libdevice.usad(a0, a1, a2)


@cuda.jit
def conversions(out, d, f, h, i, q, u, c, b):
    sinf_of_f64 = libdevice.sinf(d)
    sinf_of_i64 = libdevice.sinf(q)
    sinf_of_f16 = libdevice.sinf(h)
    sin_of_f32 = libdevice.sin(f)
    sin_of_bool = libdevice.sin(b)
    popc_of_i64 = libdevice.popc(q)
    popc_of_f64 = libdevice.popc(d)
    popcll_of_i32 = libdevice.popcll(i)
    popcll_of_u64 = libdevice.popcll(u)
    umax_of_u64_u8 = libdevice.umax(u, c)
    ldexpf_of_f64s = libdevice.ldexpf(d, d)
    half2float_of_f16 = libdevice.half2float(h)
    float2half_of_f64 = libdevice.float2half_rn(d)
    frexpf_of_i32 = libdevice.frexpf(i)
    sincosf_of_bool = libdevice.sincosf(b)
    fmaf_of_mixed = libdevice.fmaf(i, h, d)
    fma_of_f32s = libdevice.fma(f, f, f)
    ull2double_of_u64 = libdevice.ull2double_rn(u)
    double2ull_of_f32 = libdevice.double2ull_rz(f)
    hiloint2double_of_i64s = libdevice.hiloint2double(q, q)
    literal_sinf = libdevice.sinf(1)
    literal_popc = libdevice.popc(True)
    literal_sincos = libdevice.sincos(2.5)
    literal_jnf = libdevice.jnf(2.7, 3)
    m, e = libdevice.frexp(d)
    s, co = libdevice.sincospi(f)
    rem, quo = libdevice.remquof(f, d)
    out[0] = m + e + s + co + rem + quo


@cuda.jit
def import_forms(out, f, q):
    attr = cuda.libdevice.expf(f)
    module = libdevice.expf(f)
    alias = ld.popc(q)
    bare = SINF(f)
    bare_tuple = frexp(f)
    out[0] = attr + module + alias + bare + bare_tuple[0]
