//! Kernel launches on a real GPU through the CUDA driver (cudarc, loaded at run time).
//!
//! The driver library is opened when first needed; a machine without it (or without a GPU)
//! gets an `Err` that says why, never a panic: [`gpu_available`] checks
//! `is_culib_present` first and every driver call runs under `catch_unwind` (cudarc panics
//! when the driver is missing or lacks a symbol).
//!
//! Arguments are marshalled to the kernel parameter layout documented in
//! [`crate::compile::ptx`]: a scalar by value (bool as one byte, 0 or 1); an N-d array as
//! its data pointer, then its N extents, then its N strides in bytes, each a `.u64`.
//! [`param_layout`] describes that list per parameter type alone, so a test can compare it
//! with the `.param` declarations of the PTX the compiler emits, without a GPU.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg, sys};
use cudarc::nvrtc::Ptx;

use super::npy::NpyArray;
use super::sim::{self, Launch, Program};
use super::{HostArg, check_array, host_value};
use crate::analysis::types::{Scalar, Type};

/// A one-thread kernel that spins on the GPU's nanosecond timer for its parameter's
/// nanoseconds: launched before each timed launch, so that the start event is recorded when
/// the GPU, not the host, is ready.
pub const DELAY_PTX: &str = "\
.version 6.0
.target sm_50
.address_size 64

.visible .entry __kl_delay(.param .u64 __kl_delay_ns)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [__kl_delay_ns];
	mov.u64 %rd2, %globaltimer;
	add.u64 %rd1, %rd1, %rd2;
$L_spin:
	mov.u64 %rd3, %globaltimer;
	setp.lt.u64 %p1, %rd3, %rd1;
	@%p1 bra $L_spin;
	ret;
}
";

/// Kernel times measured with CUDA events.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuTiming {
    /// Median kernel time over the timed launches, in milliseconds: CUDA events around each
    /// launch, recorded behind [`DELAY_PTX`] so that they time the GPU's work alone.
    pub median_ms: f64,
    /// How many launches were timed.
    pub runs: u32,
}

/// The GPU a launch runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuInfo {
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
}

impl GpuInfo {
    /// The `--arch` kernlint compiles for on this GPU: its own compute capability, capped at
    /// sm_90 (the newest the PTX backend targets; the driver JIT-compiles PTX for newer GPUs).
    pub fn arch(&self) -> String {
        let (major, minor) = self.compute_capability;
        let cc = (major * 10 + minor).min(90);
        format!("sm_{cc}")
    }
}

/// One kernel parameter of the PTX entry, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSlot {
    /// The PTX parameter's name suffix: `""`, `"_shape{k}"` or `"_stride{k}"` appended to
    /// `{kernel}_param_{i}` gives the name the compiler declares.
    pub suffix: String,
    /// The kernel parameter index.
    pub index: usize,
    /// The PTX type (`u8`, `s32`, `f64`, `u64`, ...).
    pub ptx_type: &'static str,
    /// Size in bytes (what the driver copies).
    pub size: usize,
}

impl ParamSlot {
    /// The name the compiler gives this parameter in the entry of kernel `kernel`.
    pub fn ptx_name(&self, kernel: &str) -> String {
        format!("{kernel}_param_{}{}", self.index, self.suffix)
    }
}

/// The scalar items of a tuple type, in order (nested tuples flattened).
fn flat_scalars(t: &Type) -> Option<Vec<Scalar>> {
    match t {
        Type::Scalar(s) => Some(vec![*s]),
        Type::UniTuple(e, n) => Some(flat_scalars(e)?.repeat(*n)),
        Type::Tuple(items) => items.iter().map(flat_scalars).collect::<Option<Vec<_>>>().map(|v| v.concat()),
        _ => None,
    }
}

/// The scalars of a value, tuples' items in order (the order of [`flat_scalars`]).
fn flat_values<'v>(value: &'v sim::V, out: &mut Vec<&'v sim::V>) {
    match value {
        sim::V::Tup(items) => items.iter().for_each(|item| flat_values(item, out)),
        scalar => out.push(scalar),
    }
}

/// PTX type and size of a scalar kernel parameter (as `compile::ptx` declares it).
fn scalar_param(s: Scalar) -> Option<(&'static str, usize)> {
    Some(match s {
        Scalar::Bool | Scalar::U8 => ("u8", 1),
        Scalar::I8 => ("s8", 1),
        Scalar::I16 => ("s16", 2),
        Scalar::U16 => ("u16", 2),
        Scalar::I32 => ("s32", 4),
        Scalar::U32 => ("u32", 4),
        Scalar::I64 => ("s64", 8),
        Scalar::U64 => ("u64", 8),
        Scalar::F32 => ("f32", 4),
        Scalar::F16 => ("b16", 2),
        Scalar::F64 => ("f64", 8),
        _ => return None,
    })
}

/// The PTX parameter list of the kernel (`program.functions[0]`), per the layout documented
/// in [`crate::compile::ptx`].
pub fn param_layout(program: &Program) -> Result<Vec<ParamSlot>, String> {
    let kernel = program.functions.first().ok_or("the program has no kernel")?;
    let mut slots = Vec::new();
    for (index, p) in kernel.params.iter().enumerate() {
        let slot = |suffix: String, ptx_type, size| ParamSlot {
            suffix,
            index,
            ptx_type,
            size,
        };
        match &p.ty {
            Type::Array { ndim, .. } => {
                slots.push(slot(String::new(), "u64", 8));
                for k in 0..*ndim {
                    slots.push(slot(format!("_shape{k}"), "u64", 8));
                }
                for k in 0..*ndim {
                    slots.push(slot(format!("_stride{k}"), "u64", 8));
                }
            }
            Type::Scalar(s) => {
                let (t, size) = scalar_param(*s)
                    .ok_or_else(|| format!("argument `{}`: {s} parameters are not supported on the GPU yet", p.name))?;
                slots.push(slot(String::new(), t, size));
            }
            // A complex number (a pair of floats) or another tuple of scalars: one parameter
            // per item, named `_0`, `_1`, ...
            t @ (Type::UniTuple(..) | Type::Tuple(_)) => {
                let items = flat_scalars(t)
                    .ok_or_else(|| format!("argument `{}`: parameters of type {t} are not supported on the GPU yet", p.name))?;
                for (k, s) in items.into_iter().enumerate() {
                    let (t, size) = scalar_param(s)
                        .ok_or_else(|| format!("argument `{}`: {s} parameters are not supported on the GPU yet", p.name))?;
                    slots.push(slot(format!("_{k}"), t, size));
                }
            }
            other => {
                return Err(format!(
                    "argument `{}`: parameters of type {other} are not supported on the GPU yet",
                    p.name
                ));
            }
        }
    }
    Ok(slots)
}

/// Check the host arguments against the kernel's parameters (as [`super::simulate`] does)
/// and return each parameter's slot values, in [`param_layout`] order: the raw bits of
/// each value in the low bytes of a `u64` (little-endian; the driver copies `size` bytes).
/// `pointer(i)` gives the device address of array argument `i`.
pub fn marshal(
    program: &Program,
    args: &[HostArg],
    pointer: &dyn Fn(usize) -> u64,
) -> Result<Vec<(ParamSlot, u64)>, String> {
    let params = &program.functions[0].params;
    if args.len() != params.len() {
        return Err(format!(
            "the kernel takes {} arguments, {} given",
            params.len(),
            args.len()
        ));
    }
    let layout = param_layout(program)?;
    let mut values: Vec<u64> = Vec::with_capacity(layout.len());
    for (i, (param, arg)) in params.iter().zip(args).enumerate() {
        match (&param.ty, arg) {
            (
                Type::Array {
                    ndim, layout, dtype, ..
                },
                HostArg::Array(a) | HostArg::Uninitialised(a),
            ) => {
                check_array(&param.name, dtype, *ndim, *layout, a)?;
                values.push(pointer(i));
                values.extend(a.shape.iter().map(|&d| d as u64));
                values.extend(byte_strides(a).into_iter().map(|s| s as u64));
            }
            (Type::Array { .. }, HostArg::Scalar(text)) => {
                return Err(format!("argument `{}`: expected an array, got `{text}`", param.name));
            }
            // A scalar, or a tuple (a complex scalar is a pair of floats): one parameter per
            // scalar item, as `param_layout` lays them out.
            (_, HostArg::Scalar(text)) => {
                let value = host_value(text, &param.declared, &param.name)?;
                let scalars = flat_scalars(&param.ty)
                    .ok_or_else(|| format!("argument `{}`: parameters of type {} are not supported on the GPU yet", param.name, param.ty))?;
                let mut items = Vec::new();
                flat_values(&value, &mut items);
                for (s, item) in scalars.into_iter().zip(items) {
                    let mut bytes = [0u8; 8];
                    sim::write_value(&mut bytes, s, item);
                    values.push(u64::from_le_bytes(bytes));
                }
            }
            (Type::Scalar(_), HostArg::Array(_) | HostArg::Uninitialised(_)) => {
                return Err(format!("argument `{}`: expected a scalar, got an array", param.name));
            }
            (ty, _) => {
                return Err(format!(
                    "argument `{}`: parameters of type {ty} are not supported yet",
                    param.name
                ));
            }
        }
    }
    debug_assert_eq!(values.len(), layout.len());
    Ok(layout.into_iter().zip(values).collect())
}


/// Byte strides of a contiguous array (C or Fortran order).
pub fn byte_strides(a: &NpyArray) -> Vec<usize> {
    let mut strides = vec![0; a.shape.len()];
    let mut step = a.itemsize;
    let mut set = |(stride, extent): (&mut usize, &usize)| {
        *stride = step;
        step *= (*extent).max(1);
    };
    if a.fortran_order {
        strides.iter_mut().zip(&a.shape).for_each(&mut set);
    } else {
        strides.iter_mut().zip(&a.shape).rev().for_each(&mut set);
    }
    strides
}

/// Run `f`, turning a panic (cudarc panics when the driver or one of its symbols is
/// missing) into an error, without printing the panic message.
fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    static HOOK: Mutex<()> = Mutex::new(());
    let _lock = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    match result {
        Ok(r) => r,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown failure".into());
            Err(format!("{what}: the CUDA driver failed ({detail})"))
        }
    }
}

fn driver_err(what: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| {
        let name = e
            .error_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("{:?}", e.0));
        let text = e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if text.is_empty() {
            format!("{what}: {name}")
        } else {
            format!("{what}: {name} ({text})")
        }
    }
}

fn context() -> Result<(Arc<CudaContext>, GpuInfo), String> {
    static CONTEXT: OnceLock<Result<(Arc<CudaContext>, GpuInfo), String>> = OnceLock::new();
    CONTEXT.get_or_init(open_context).clone()
}

fn open_context() -> Result<(Arc<CudaContext>, GpuInfo), String> {
    if std::env::var_os("KERNLINT_NO_GPU").is_some_and(|v| !v.is_empty() && v != "0") {
        return Err("the GPU is disabled (KERNLINT_NO_GPU is set)".into());
    }
    // SAFETY: only tries to open the driver library by name.
    if !unsafe { sys::is_culib_present() } {
        return Err("no CUDA driver found (libcuda could not be loaded)".into());
    }
    guarded("opening the GPU", || {
        let count =
            CudaContext::device_count().map_err(driver_err("no usable CUDA GPU (cuInit/cuDeviceGetCount failed)"))?;
        if count < 1 {
            return Err("no CUDA GPU found (the driver reports 0 devices)".into());
        }
        let ctx = CudaContext::new(0).map_err(driver_err("cannot create a CUDA context on GPU 0"))?;
        let name = ctx.name().map_err(driver_err("cannot read the GPU's name"))?;
        let compute_capability = ctx
            .compute_capability()
            .map_err(driver_err("cannot read the GPU's compute capability"))?;
        Ok((
            ctx,
            GpuInfo {
                name,
                compute_capability,
            },
        ))
    })
}

/// The GPU kernlint would run on, or why there is none. Never panics.
pub fn gpu_info() -> Result<GpuInfo, String> {
    let (_, info) = context()?;
    if info.compute_capability.0 < 7 {
        return Err(format!(
            "the GPU {} has compute capability {}.{}; kernlint needs 7.0 (sm_70) or newer",
            info.name, info.compute_capability.0, info.compute_capability.1
        ));
    }
    Ok(info)
}

/// The GPU's name, or why there is none to run on. Never panics.
pub fn gpu_available() -> Result<String, String> {
    gpu_info().map(|i| i.name)
}

/// Run the kernel `kernel_entry_name` of `ptx` (compiled from `program`) on GPU 0: check and
/// marshal the arguments, copy the arrays to the device, launch once for the results, then
/// `repeat` more timed launches (each from the original inputs, timed with CUDA events), and
/// return each array argument's final contents from the first launch (in parameter order;
/// `None` for scalars) with the median kernel time.
pub fn run_on_gpu(
    program: &Program,
    ptx: &str,
    kernel_entry_name: &str,
    launch: &Launch,
    args: &[HostArg],
    repeat: u32,
) -> Result<(Vec<Option<NpyArray>>, GpuTiming), String> {
    // Argument errors come first and need no GPU.
    marshal(program, args, &|_| 0)?;
    if ptx.contains('\0') || kernel_entry_name.contains('\0') {
        return Err("the PTX or the kernel name contains a NUL byte".into());
    }
    if launch.grid.contains(&0) || launch.block.contains(&0) {
        return Err("the grid and the block need at least one thread in each dimension".into());
    }
    let (ctx, _) = context().map_err(|why| format!("cannot run on the GPU: {why}"))?;
    guarded("running on the GPU", || {
        launch_on(&ctx, program, ptx, kernel_entry_name, launch, args, repeat)
    })
}

fn launch_on(
    ctx: &Arc<CudaContext>,
    program: &Program,
    ptx: &str,
    entry: &str,
    launch: &Launch,
    args: &[HostArg],
    repeat: u32,
) -> Result<(Vec<Option<NpyArray>>, GpuTiming), String> {
    ctx.bind_to_thread()
        .map_err(driver_err("cannot bind the CUDA context"))?;
    let stream = ctx.default_stream();
    let module = ctx
        .load_module(Ptx::from_src(ptx))
        .map_err(driver_err("the CUDA driver rejected the PTX (check it with `ptxas`)"))?;
    let function = module
        .load_function(entry)
        .map_err(driver_err(&format!("the PTX has no kernel `{entry}`")))?;
    // Device copies of the array arguments (at least one byte each: empty arrays still get a
    // valid address).
    let mut buffers: Vec<Option<CudaSlice<u8>>> = Vec::with_capacity(args.len());
    for (arg, param) in args.iter().zip(&program.functions[0].params) {
        buffers.push(match arg {
            HostArg::Array(a) | HostArg::Uninitialised(a) => {
                let bytes: &[u8] = if a.data.is_empty() { &[0] } else { &a.data };
                Some(stream.clone_htod(bytes).map_err(driver_err(&format!(
                    "cannot copy argument `{}` ({} bytes) to the GPU",
                    param.name,
                    a.data.len()
                )))?)
            }
            HostArg::Scalar(_) => None,
        });
    }
    let pointers: Vec<u64> = buffers
        .iter()
        .map(|b| b.as_ref().map(|b| b.device_ptr(&stream).0).unwrap_or(0))
        .collect();
    let slots = marshal(program, args, &|i| pointers[i])?;
    let raw: Vec<u64> = slots.iter().map(|(_, v)| *v).collect();
    let config = LaunchConfig {
        grid_dim: (launch.grid[0], launch.grid[1], launch.grid[2]),
        block_dim: (launch.block[0], launch.block[1], launch.block[2]),
        shared_mem_bytes: u32::try_from(launch.shared_mem).map_err(|_| "--shared-mem is too large".to_string())?,
    };
    if launch.shared_mem > 48 * 1024 {
        function
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                config.shared_mem_bytes as i32,
            )
            .map_err(driver_err("cannot allow that much dynamic shared memory"))?;
    }
    // A grid-wide barrier needs every block resident at once: a cooperative launch
    // guarantees that (or fails with a clear error instead of hanging).
    let cooperative = ptx.contains("__kl_grid_barrier");
    let launch_once = || -> Result<(), String> {
        let mut builder = stream.launch_builder(&function);
        for v in &raw {
            builder.arg(v);
        }
        // SAFETY: the parameters follow the layout the PTX declares (see `param_layout`), each
        // read from a live u64 whose low bytes hold the value; the arrays are live device
        // buffers of the sizes their extents and strides describe.
        let result = unsafe {
            if cooperative {
                builder.launch_cooperative(config)
            } else {
                builder.launch(config)
            }
        };
        result.map(|_| ()).map_err(driver_err("the kernel launch failed"))
    };
    let sync = |what: &str| stream.synchronize().map_err(driver_err(what));
    // The launch whose results are returned.
    launch_once()?;
    sync("the kernel failed on the GPU")?;
    let mut outputs = Vec::with_capacity(args.len());
    for (arg, buffer) in args.iter().zip(&buffers) {
        outputs.push(match (arg, buffer) {
            (HostArg::Array(a) | HostArg::Uninitialised(a), Some(b)) => {
                let mut data = stream
                    .clone_dtoh(b)
                    .map_err(driver_err("cannot copy results back from the GPU"))?;
                data.truncate(a.data.len());
                Some(NpyArray { data, ..a.clone() })
            }
            _ => None,
        });
    }
    // Timed launches, each from the original inputs (as oracle.py times Numba's), each behind
    // a GPU-side delay so that the host's launch overhead overlaps it and the events time the
    // kernel alone.
    let delay_module = ctx
        .load_module(Ptx::from_src(DELAY_PTX))
        .map_err(driver_err("the CUDA driver rejected kernlint's delay kernel"))?;
    let delay = delay_module
        .load_function("__kl_delay")
        .map_err(driver_err("the delay kernel is missing"))?;
    let delay_ns: u64 = 200_000;
    let runs = repeat.max(1);
    let start = ctx
        .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(driver_err("cannot create a CUDA event"))?;
    let end = ctx
        .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(driver_err("cannot create a CUDA event"))?;
    let mut times = Vec::with_capacity(runs as usize);
    for _ in 0..runs {
        for (arg, buffer) in args.iter().zip(buffers.iter_mut()) {
            if let (HostArg::Array(a) | HostArg::Uninitialised(a), Some(b)) = (arg, buffer)
                && !a.data.is_empty()
            {
                stream
                    .memcpy_htod(&a.data[..], b)
                    .map_err(driver_err("cannot restore the inputs on the GPU"))?;
            }
        }
        let mut builder = stream.launch_builder(&delay);
        builder.arg(&delay_ns);
        // SAFETY: `__kl_delay` takes one .u64, passed from a live u64.
        unsafe { builder.launch(LaunchConfig::for_num_elems(1)) }
            .map_err(driver_err("the delay kernel's launch failed"))?;
        start
            .record(&stream)
            .map_err(driver_err("cannot record a CUDA event"))?;
        launch_once()?;
        end.record(&stream).map_err(driver_err("cannot record a CUDA event"))?;
        end.synchronize().map_err(driver_err("the kernel failed on the GPU"))?;
        times.push(
            start
                .elapsed_ms(&end)
                .map_err(driver_err("cannot read the kernel time"))? as f64,
        );
    }
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median_ms = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    };
    Ok((outputs, GpuTiming { median_ms, runs }))
}
