//! dgen4j native core: the C ABI of `jextract/dgen4j.h`.
//!
//! This file holds the exported functions only, as thin wrappers: each validates its
//! arguments, runs inside `catch_unwind` so that no panic crosses the boundary, maps
//! errors to the `DGEN4J_ERR_*` codes and keeps the message for `dgen4j_last_error`.
//! The work is done by the modules: [`rng`] (primitives), [`layout`] (the byte format of
//! docs/FORMAT.md), [`pool`] (the persistent worker pool) and [`cpu`].
//!
//! The last error message is per thread and is kept until the next failure on that
//! thread (successful calls do not clear it), like `errno`.

pub mod cpu;
pub mod crc32;
pub mod crc32c;
pub mod direct_io;
pub mod error;
pub mod finite;
pub mod layout;
pub mod numa;
pub mod pool;
pub mod rng;
pub mod simd;
pub mod sys;

use std::cell::RefCell;
use std::ffi::c_char;
use std::panic::{self, AssertUnwindSafe};

use error::{Error, ErrorKind};
use layout::Spec;
use pool::Pool;

/// Success.
pub const DGEN4J_OK: i32 = 0;
/// A parameter is invalid.
pub const DGEN4J_ERR_INVALID_ARGUMENT: i32 = 1;
/// A byte range lies outside the stream.
pub const DGEN4J_ERR_OUT_OF_RANGE: i32 = 2;
/// The system refused a resource (a worker thread).
pub const DGEN4J_ERR_RESOURCE: i32 = 3;
/// A panic was caught.
pub const DGEN4J_ERR_PANIC: i32 = 4;
/// The operating system reported an I/O error (file functions).
pub const DGEN4J_ERR_IO: i32 = 5;

/// `dgen4j_generator_fill_payload` finite codes: no masking, float16, bfloat16, float32, float64.
pub const DGEN4J_FINITE_NONE: u32 = 0;
/// float16 values made finite.
pub const DGEN4J_FINITE_FLOAT16: u32 = 1;
/// bfloat16 values made finite.
pub const DGEN4J_FINITE_BFLOAT16: u32 = 2;
/// float32 values made finite.
pub const DGEN4J_FINITE_FLOAT32: u32 = 3;
/// float64 values made finite.
pub const DGEN4J_FINITE_FLOAT64: u32 = 4;

/// Version of the C contract.
pub const ABI_VERSION: u32 = 1;
/// Version of the byte format of docs/FORMAT.md.
pub const FORMAT_VERSION: u32 = 1;

/// The opaque `dgen4j_generator` of the header: a validated spec and its worker pool.
#[allow(non_camel_case_types)]
pub type dgen4j_generator = Pool;

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn code_of(kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::InvalidArgument => DGEN4J_ERR_INVALID_ARGUMENT,
        ErrorKind::OutOfRange => DGEN4J_ERR_OUT_OF_RANGE,
        ErrorKind::Resource => DGEN4J_ERR_RESOURCE,
        ErrorKind::Panic => DGEN4J_ERR_PANIC,
        ErrorKind::Io => DGEN4J_ERR_IO,
    }
}

fn set_last_error(message: &str) {
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        e.clear();
        e.push_str(message);
    });
}

/// Runs `f`, catching panics; records the message of a failure and returns its code.
fn guarded(f: impl FnOnce() -> Result<(), Error>) -> i32 {
    let result = panic::catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|payload| Err(Error::from_panic("dgen4j", payload.as_ref())));
    match result {
        Ok(()) => DGEN4J_OK,
        Err(e) => {
            set_last_error(e.message());
            code_of(e.kind())
        }
    }
}

/// Runs `f`, returning `fallback` if it panics (for the functions without an error code).
fn guarded_value<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        set_last_error(Error::from_panic("dgen4j", payload.as_ref()).message());
        fallback
    })
}

/// Copies `s` NUL-terminated, truncated to `cap` bytes, into `buf`; returns `s.len()`.
///
/// # Safety
/// `buf` must be NULL or valid for writes of `cap` bytes.
unsafe fn copy_out(s: &str, buf: *mut c_char, cap: usize) -> usize {
    if !buf.is_null() && cap > 0 {
        let n = s.len().min(cap - 1);
        // SAFETY: the caller guarantees `buf` is writable for `cap` bytes and n + 1 <= cap;
        // `s` is a Rust string, so the regions cannot overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
        }
    }
    s.len()
}

/// Version of the C contract (1).
#[no_mangle]
pub extern "C" fn dgen4j_abi_version() -> u32 {
    ABI_VERSION
}

/// Version of the byte format the generator produces (1).
#[no_mangle]
pub extern "C" fn dgen4j_format_version() -> u32 {
    FORMAT_VERSION
}

/// Copies the calling thread's last error message; returns its full length (0: none).
///
/// # Safety
/// `buf` must be NULL or valid for writes of `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_last_error(buf: *mut c_char, cap: usize) -> usize {
    guarded_value(0, || {
        LAST_ERROR.with(|e| {
            // SAFETY: forwarded from this function's contract on `buf` and `cap`.
            unsafe { copy_out(&e.borrow(), buf, cap) }
        })
    })
}

/// Number of CPUs in the process affinity mask (at least 1).
#[no_mangle]
pub extern "C" fn dgen4j_affinity_cpus() -> u32 {
    guarded_value(1, || u32::try_from(cpu::affinity_cpus()).unwrap_or(u32::MAX))
}

/// Copies the space-separated CPU features the generator can use; returns the full length.
///
/// # Safety
/// `buf` must be NULL or valid for writes of `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_cpu_features(buf: *mut c_char, cap: usize) -> usize {
    guarded_value(0, || {
        let features = cpu::features();
        // SAFETY: forwarded from this function's contract on `buf` and `cap`.
        unsafe { copy_out(&features, buf, cap) }
    })
}

/// Creates a generator and its worker pool; stores it in `*out` (NULL on failure).
///
/// # Safety
/// `out` must be NULL or valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_new(
    seed: u64,
    size: u64,
    block_size: u64,
    dedup: f64,
    compress: f64,
    threads: u32,
    out: *mut *mut dgen4j_generator,
) -> i32 {
    guarded(|| {
        if out.is_null() {
            return Err(Error::invalid("out is NULL"));
        }
        // SAFETY: `out` is non-null and, by the contract, valid for a pointer write.
        unsafe { out.write(std::ptr::null_mut()) };
        let spec = Spec::new(seed, size, block_size, dedup, compress)?;
        let pool = Pool::new(spec, threads as usize)?;
        // SAFETY: as above; ownership of the box passes to the caller until generator_free.
        unsafe { out.write(Box::into_raw(Box::new(pool))) };
        Ok(())
    })
}

/// Stops the workers and frees the generator; NULL is ignored.
///
/// # Safety
/// `gen` must be NULL or a pointer returned by `dgen4j_generator_new` not yet freed, with
/// no call on it in progress or to come.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_free(gen: *mut dgen4j_generator) {
    if gen.is_null() {
        return;
    }
    guarded_value((), || {
        // SAFETY: by the contract, `gen` came from Box::into_raw in generator_new and is
        // freed once, with no other reference alive.
        drop(unsafe { Box::from_raw(gen) });
    });
}

/// Number of threads that fills use (1 when filling on the calling thread); 0 for NULL.
///
/// # Safety
/// `gen` must be NULL or a live generator.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_threads(gen: *const dgen4j_generator) -> u32 {
    // SAFETY: by the contract, `gen` is NULL or points to a live generator.
    match unsafe { gen.as_ref() } {
        Some(g) => g.threads() as u32,
        None => 0,
    }
}

/// Number of distinct whole blocks of the stream; 0 for NULL.
///
/// # Safety
/// `gen` must be NULL or a live generator.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_distinct_blocks(gen: *const dgen4j_generator) -> u64 {
    // SAFETY: by the contract, `gen` is NULL or points to a live generator.
    match unsafe { gen.as_ref() } {
        Some(g) => g.spec().distinct(),
        None => 0,
    }
}

/// Writes stream bytes `[offset, offset + len)` into `buf[0, len)`.
///
/// # Safety
/// `gen` must be NULL or a live generator; `buf` must be NULL or valid for writes of `len`
/// bytes and not accessed by anything else during the call.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_fill(
    gen: *mut dgen4j_generator,
    offset: u64,
    buf: *mut u8,
    len: u64,
) -> i32 {
    guarded(|| {
        // SAFETY: by the contract, `gen` is NULL or points to a live generator.
        let gen = unsafe { generator_ref(gen) }?;
        let len = range_len(gen, offset, len)?;
        if len == 0 {
            return Ok(());
        }
        if buf.is_null() {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        }
        // SAFETY: `buf` is non-null and, by the contract, valid and exclusive for `len` bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(buf, len) };
        gen.fill(offset, bytes)
    })
}

/// Compares `buf[0, len)` with stream bytes `[offset, offset + len)` (regenerated in
/// registers, no intermediate store, on the generator's pool for large ranges) and stores in
/// `*mismatch` the stream offset of the first differing byte, or `offset + len` when they
/// are all equal.
///
/// # Safety
/// `gen` must be NULL or a live generator; `buf` must be NULL or valid for reads of `len`
/// bytes and not written by anything else during the call; `mismatch` must be NULL or
/// valid for a write of one u64.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_verify(
    gen: *mut dgen4j_generator,
    offset: u64,
    buf: *const u8,
    len: u64,
    mismatch: *mut u64,
) -> i32 {
    guarded(|| {
        // SAFETY: by the contract, `gen` is NULL or points to a live generator.
        let gen = unsafe { generator_ref(gen) }?;
        if mismatch.is_null() {
            return Err(Error::invalid("mismatch is NULL"));
        }
        let n = range_len(gen, offset, len)?;
        let found = if n == 0 {
            None
        } else if buf.is_null() {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        } else {
            // SAFETY: `buf` is non-null and, by the contract, readable and unchanged for `len` bytes.
            gen.first_mismatch(offset, unsafe { std::slice::from_raw_parts(buf, n) })?
        };
        // SAFETY: `mismatch` is non-null and, by the contract, valid for a u64 write.
        unsafe { mismatch.write(found.unwrap_or(offset + len)) };
        Ok(())
    })
}

/// The float type of a payload's `finite` code (`None` for 0) after checking that `phase`, the
/// element byte its first byte is, lies inside one element.
fn payload_kind(finite: u32, phase: u32) -> Result<Option<finite::Finite>, Error> {
    let kind = finite::Finite::of_code(finite)
        .map_err(|c| Error::invalid(format!("finite {c} is not a DGEN4J_FINITE_* code (0 to 4)")))?;
    let size = kind.map_or(1, finite::Finite::size);
    if phase as usize >= size {
        return Err(Error::invalid(format!("phase {phase} is not below the element size {size}")));
    }
    Ok(kind)
}

/// `dgen4j_generator_verify` of a payload as `dgen4j_generator_fill_payload` writes it: the values of
/// `finite` (a `DGEN4J_FINITE_*` code, 0 for none) made finite, `buf[0]` being byte `phase` of its
/// element, compared in the fused compare's one pass (the kernels mask as they generate). When `crc`
/// is not NULL and every byte is equal, `*crc` (the CRC-32 of what came before, 0 to start) is
/// continued over `buf[0, len)`: each block is summed right after its compare, while in cache;
/// `*crc` is left as it was when a byte differs.
///
/// # Safety
/// As `dgen4j_generator_verify`; `crc` must be NULL or valid for a read and a write of one u32.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_verify_payload(
    gen: *mut dgen4j_generator,
    offset: u64,
    buf: *const u8,
    len: u64,
    finite: u32,
    phase: u32,
    mismatch: *mut u64,
    crc: *mut u32,
) -> i32 {
    guarded(|| {
        // SAFETY: by the contract, `gen` is NULL or points to a live generator.
        let gen = unsafe { generator_ref(gen) }?;
        if mismatch.is_null() {
            return Err(Error::invalid("mismatch is NULL"));
        }
        let kind = payload_kind(finite, phase)?;
        let n = range_len(gen, offset, len)?;
        let (found, of_bytes) = if n == 0 {
            (None, 0)
        } else if buf.is_null() {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        } else {
            // SAFETY: `buf` is non-null and, by the contract, readable and unchanged for `len` bytes.
            let data = unsafe { std::slice::from_raw_parts(buf, n) };
            gen.verify_payload(offset, data, kind, phase as usize, !crc.is_null())?
        };
        if found.is_none() && !crc.is_null() {
            // SAFETY: `crc` is non-null and, by the contract, valid for a u32 read and write.
            unsafe { crc.write(crc32::combine(crc.read(), of_bytes, len)) };
        }
        // SAFETY: `mismatch` is non-null and, by the contract, valid for a u64 write.
        unsafe { mismatch.write(found.unwrap_or(offset + len)) };
        Ok(())
    })
}

/// `dgen4j_generator_fill`, then the values of `finite` (a `DGEN4J_FINITE_*` code) made
/// finite, `buf[0]` being byte `phase` of its element; when `crc` is not NULL, `*crc` (the
/// CRC-32 of what came before, 0 to start) is continued over the bytes written.
///
/// # Safety
/// As `dgen4j_generator_fill`; `crc` must be NULL or valid for a read and a write of one u32.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_fill_payload(
    gen: *mut dgen4j_generator,
    offset: u64,
    buf: *mut u8,
    len: u64,
    finite: u32,
    phase: u32,
    crc: *mut u32,
) -> i32 {
    guarded(|| {
        // SAFETY: by the contract, `gen` is NULL or points to a live generator.
        let gen = unsafe { generator_ref(gen) }?;
        let kind = payload_kind(finite, phase)?;
        let n = range_len(gen, offset, len)?;
        // SAFETY: a non-null `crc` is, by the contract, valid for a u32 read and write.
        let before = if crc.is_null() { 0 } else { unsafe { crc.read() } };
        let sum = if n == 0 {
            before
        } else if buf.is_null() {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        } else {
            // SAFETY: `buf` is non-null and, by the contract, valid and exclusive for `len` bytes.
            let bytes = unsafe { std::slice::from_raw_parts_mut(buf, n) };
            let of_bytes = gen.fill_payload(offset, bytes, kind, phase as usize, !crc.is_null())?;
            crc32::combine(before, of_bytes, len)
        };
        if !crc.is_null() {
            // SAFETY: `crc` is non-null and, by the contract, valid for a u32 write.
            unsafe { crc.write(sum) };
        }
        Ok(())
    })
}

/// `dgen4j_generator_fill`, and `*crc` (the CRC-32C of what came before, 0 to start) continued
/// over the bytes written: S3's part checksum, summed as the bytes are generated (in registers
/// where the CPU has AVX-512 with VPCLMULQDQ, else each cache-sized block right after it is
/// written), on the generator's threads.
///
/// # Safety
/// As `dgen4j_generator_fill`; `crc` must be valid for a read and a write of one u32.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_fill_crc32c(
    gen: *mut dgen4j_generator,
    offset: u64,
    buf: *mut u8,
    len: u64,
    crc: *mut u32,
) -> i32 {
    guarded(|| {
        // SAFETY: by the contract, `gen` is NULL or points to a live generator.
        let gen = unsafe { generator_ref(gen) }?;
        if crc.is_null() {
            return Err(Error::invalid("crc is NULL"));
        }
        let n = range_len(gen, offset, len)?;
        // SAFETY: `crc` is non-null and, by the contract, valid for a u32 read.
        let before = unsafe { crc.read() };
        let sum = if n == 0 {
            before
        } else if buf.is_null() {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        } else {
            // SAFETY: `buf` is non-null and, by the contract, valid and exclusive for `len` bytes.
            let bytes = unsafe { std::slice::from_raw_parts_mut(buf, n) };
            crc32c::combine(before, gen.fill_crc32c(offset, bytes)?, len)
        };
        // SAFETY: as above, valid for a u32 write.
        unsafe { crc.write(sum) };
        Ok(())
    })
}

/// The CRC-32 (zip's) of `buf[0, len)` continued from `crc` (0 to start), like zlib's crc32.
/// NULL with len 0 returns `crc`.
///
/// # Safety
/// `buf` must be NULL or valid for reads of `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_crc32(crc: u32, buf: *const u8, len: u64) -> u32 {
    guarded_value(0, || {
        let Ok(n) = usize::try_from(len) else { return 0 };
        if buf.is_null() || n == 0 {
            return crc;
        }
        // SAFETY: `buf` is non-null and, by the contract, readable for `len` bytes.
        crc32::update(crc, unsafe { std::slice::from_raw_parts(buf, n) })
    })
}

/// The CRC-32 of A followed by B from A's CRC, B's CRC and B's length (zlib's crc32_combine).
#[no_mangle]
pub extern "C" fn dgen4j_crc32_combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    guarded_value(0, || crc32::combine(crc_a, crc_b, len_b))
}

// ---- file I/O ----------------------------------------------------------------------------

/// The opaque `dgen4j_file` of the header.
#[allow(non_camel_case_types)]
pub type dgen4j_file = direct_io::DirectFile;

/// Opens a checkpoint file; stores the handle in `*out` (NULL on failure).
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `out` must be NULL or valid for a write of
/// one pointer.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_file_open(
    path: *const c_char,
    flags: u32,
    preallocate: u64,
    out: *mut *mut dgen4j_file,
) -> i32 {
    guarded(|| {
        if out.is_null() {
            return Err(Error::invalid("out is NULL"));
        }
        // SAFETY: `out` is non-null and, by the contract, valid for a pointer write.
        unsafe { out.write(std::ptr::null_mut()) };
        if path.is_null() {
            return Err(Error::invalid("path is NULL"));
        }
        // SAFETY: by the contract, a non-null `path` is NUL-terminated and readable.
        let path = unsafe { std::ffi::CStr::from_ptr(path) };
        let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path.to_bytes()));
        let file = direct_io::DirectFile::open(path, flags, preallocate)?;
        // SAFETY: as above; ownership of the box passes to the caller until file_close.
        unsafe { out.write(Box::into_raw(Box::new(file))) };
        Ok(())
    })
}

/// Closes the file (without fsync: call dgen4j_file_sync first); NULL is ignored.
///
/// # Safety
/// `file` must be NULL or a handle from `dgen4j_file_open` not yet closed, with no call on it
/// in progress or to come.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_file_close(file: *mut dgen4j_file) {
    if file.is_null() {
        return;
    }
    guarded_value((), || {
        // SAFETY: by the contract, `file` came from Box::into_raw in file_open and is freed once.
        drop(unsafe { Box::from_raw(file) });
    });
}

/// 1 when the file's data path uses O_DIRECT, 0 when buffered or NULL.
///
/// # Safety
/// `file` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_file_is_direct(file: *const dgen4j_file) -> i32 {
    // SAFETY: by the contract, `file` is NULL or points to a live handle.
    match unsafe { file.as_ref() } {
        Some(f) => i32::from(f.is_direct()),
        None => 0,
    }
}

/// Resolves a live generator handle or reports NULL. Fills and verifies take only a shared
/// reference: the pool serialises them internally.
///
/// # Safety
/// `gen` must be NULL or a live generator.
unsafe fn generator_ref<'a>(gen: *mut dgen4j_generator) -> Result<&'a dgen4j_generator, Error> {
    // SAFETY: forwarded from the caller's contract.
    unsafe { gen.cast_const().as_ref() }.ok_or_else(|| Error::invalid("gen is NULL"))
}

/// `len` as a `usize`, once `[offset, offset + len)` is checked against the generator's range.
fn range_len(gen: &dgen4j_generator, offset: u64, len: u64) -> Result<usize, Error> {
    gen.spec().check_range(offset, len)?;
    usize::try_from(len).map_err(|_| Error::invalid(format!("len {len} does not fit in the address space")))
}

/// Resolves a live file handle or reports NULL.
///
/// # Safety
/// `file` must be NULL or a live handle.
unsafe fn file_ref<'a>(file: *const dgen4j_file) -> Result<&'a dgen4j_file, Error> {
    // SAFETY: forwarded from the caller's contract.
    unsafe { file.as_ref() }.ok_or_else(|| Error::invalid("file is NULL"))
}

/// Writes `buf[0, len)` at `offset`, retrying short writes.
///
/// # Safety
/// `file` must be NULL or a live handle; `buf` must be NULL or readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_file_pwrite(file: *mut dgen4j_file, offset: u64, buf: *const u8, len: u64) -> i32 {
    guarded(|| {
        // SAFETY: forwarded from this function's contract.
        let f = unsafe { file_ref(file) }?;
        let len = usize::try_from(len).map_err(|_| Error::invalid("len does not fit in the address space"))?;
        if len == 0 {
            return Ok(());
        }
        if buf.is_null() {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        }
        // SAFETY: `buf` is non-null and, by the contract, readable for `len` bytes.
        f.write_at(offset, unsafe { std::slice::from_raw_parts(buf, len) })
    })
}

/// Reads up to `len` bytes at `offset` into `buf`; stores the count in `*done` (short only at
/// end of file).
///
/// # Safety
/// `file` must be NULL or a live handle; `buf` must be NULL or writable for `len` bytes;
/// `done` must be NULL or valid for a write of one u64.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_file_pread(
    file: *mut dgen4j_file,
    offset: u64,
    buf: *mut u8,
    len: u64,
    done: *mut u64,
) -> i32 {
    guarded(|| {
        // SAFETY: forwarded from this function's contract.
        let f = unsafe { file_ref(file) }?;
        if done.is_null() {
            return Err(Error::invalid("done is NULL"));
        }
        let len = usize::try_from(len).map_err(|_| Error::invalid("len does not fit in the address space"))?;
        let n = if len == 0 {
            0
        } else if buf.is_null() {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        } else {
            // SAFETY: `buf` is non-null and, by the contract, writable and exclusive for `len` bytes.
            f.read_at(offset, unsafe { std::slice::from_raw_parts_mut(buf, len) })?
        };
        // SAFETY: `done` is non-null and, by the contract, valid for a u64 write.
        unsafe { done.write(n as u64) };
        Ok(())
    })
}

/// Gives the kernel `advice` (POSIX_FADV_*: 0 normal, 2 sequential, 4 dontneed, ...) for a range.
///
/// # Safety
/// `file` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_file_fadvise(file: *mut dgen4j_file, offset: u64, len: u64, advice: i32) -> i32 {
    guarded(|| {
        // SAFETY: forwarded from this function's contract.
        unsafe { file_ref(file) }?.fadvise(offset, len, advice)
    })
}

/// Makes the written data durable (fsync).
///
/// # Safety
/// `file` must be NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_file_sync(file: *mut dgen4j_file) -> i32 {
    guarded(|| {
        // SAFETY: forwarded from this function's contract.
        unsafe { file_ref(file) }?.sync()
    })
}

// ---- NUMA topology, node-local memory, benchmarks ----

/// `DGEN4J_NUMA_AUTO`: pin workers only when the run spans several nodes or is bound to one.
pub const DGEN4J_NUMA_AUTO: i32 = 0;
/// `DGEN4J_NUMA_FORCE`: pin workers even on a single-node machine.
pub const DGEN4J_NUMA_FORCE: i32 = 1;
/// `DGEN4J_NUMA_OFF`: never pin.
pub const DGEN4J_NUMA_OFF: i32 = 2;

/// Reads a NUL-terminated UTF-8 string argument; `None` for NULL.
///
/// # Safety
/// `s` must be NULL or a valid NUL-terminated string.
unsafe fn str_arg<'a>(s: *const c_char, name: &str) -> Result<Option<&'a str>, Error> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract.
    let c = unsafe { std::ffi::CStr::from_ptr(s) };
    c.to_str().map(Some).map_err(|_| Error::invalid(format!("{name} is not valid UTF-8")))
}

fn node_arg(node: i32) -> Result<Option<usize>, Error> {
    match node {
        -1 => Ok(None),
        n if n >= 0 => Ok(Some(n as usize)),
        n => Err(Error::invalid(format!("node {n} is invalid (-1 = none, else a node id)"))),
    }
}

fn mode_arg(mode: i32) -> Result<numa::Mode, Error> {
    numa::Mode::from_code(mode)
        .ok_or_else(|| Error::invalid(format!("NUMA mode {mode} is not DGEN4J_NUMA_AUTO, _FORCE or _OFF")))
}

/// Copies the kernel dispatch decision, e.g. `avx2 (cpu supports avx2)`; returns its length.
///
/// # Safety
/// `buf` must be NULL or valid for writes of `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_dispatch_level(buf: *mut c_char, cap: usize) -> usize {
    guarded_value(0, || {
        let d = simd::Dispatch::get().describe();
        // SAFETY: forwarded from this function's contract on `buf` and `cap`.
        unsafe { copy_out(&d, buf, cap) }
    })
}

/// Copies the NUMA topology under `sysfs_root` (NULL = this machine's `/sys`), one line
/// per node; returns its length.
///
/// # Safety
/// `sysfs_root` must be NULL or a NUL-terminated string; `buf` NULL or valid for `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_numa_topology(sysfs_root: *const c_char, buf: *mut c_char, cap: usize) -> usize {
    guarded_value(0, || {
        // SAFETY: forwarded from this function's contract.
        let text = match unsafe { str_arg(sysfs_root, "sysfs_root") } {
            Ok(Some(root)) => numa::Topology::read(std::path::Path::new(root), cpu::affinity_cpus()).describe(),
            Ok(None) => numa::Topology::current().describe(),
            Err(e) => {
                set_last_error(e.message());
                return 0;
            }
        };
        // SAFETY: forwarded from this function's contract on `buf` and `cap`.
        unsafe { copy_out(&text, buf, cap) }
    })
}

/// Computes the pinning plan of a pool and copies its text into `buf`; stores the full
/// length in `*len` (when not NULL).
///
/// # Safety
/// The strings must be NULL or NUL-terminated; `buf` NULL or valid for `cap` bytes; `len`
/// NULL or valid for one write.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dgen4j_numa_plan(
    sysfs_root: *const c_char,
    affinity: *const c_char,
    threads: u32,
    mode: i32,
    node: i32,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> i32 {
    guarded(|| {
        // SAFETY: forwarded from this function's contract.
        let root = unsafe { str_arg(sysfs_root, "sysfs_root") }?;
        // SAFETY: forwarded from this function's contract.
        let affinity = match unsafe { str_arg(affinity, "affinity") }? {
            Some(list) => numa::parse_list(list)
                .filter(|l| !l.is_empty())
                .ok_or_else(|| Error::invalid(format!("affinity '{list}' is not a CPU list such as 0-3,8")))?,
            None => numa::affinity_list(),
        };
        let owned;
        let topo = match root {
            Some(r) => {
                owned = numa::Topology::read(std::path::Path::new(r), affinity.len());
                &owned
            }
            None => numa::Topology::current(),
        };
        let plan = numa::plan(
            topo,
            &affinity,
            threads as usize,
            mode_arg(mode)?,
            node_arg(node)?,
            numa::local_ranks(),
            pool::MAX_THREADS,
        )?;
        let text = plan.describe();
        // SAFETY: forwarded from this function's contract on `buf`, `cap` and `len`.
        unsafe {
            let n = copy_out(&text, buf, cap);
            if !len.is_null() {
                len.write(n);
            }
        }
        Ok(())
    })
}

/// Number of MPI ranks on this host (`OMPI_COMM_WORLD_LOCAL_SIZE`, `MPI_LOCALNRANKS`,
/// `MV2_COMM_WORLD_LOCAL_SIZE`; 1 when none is set).
#[no_mangle]
pub extern "C" fn dgen4j_local_ranks() -> u32 {
    guarded_value(1, || numa::local_ranks().min(u32::MAX as usize) as u32)
}

/// The default thread count: affinity CPUs / local ranks, at least 1.
#[no_mangle]
pub extern "C" fn dgen4j_default_threads() -> u32 {
    guarded_value(1, || numa::process_default_threads().min(u32::MAX as usize) as u32)
}

/// Maps `size` bytes, page-aligned and untouched, bound to `node` (-1 = none) when the
/// machine has several nodes; stores the address in `*out` (NULL on failure).
///
/// # Safety
/// `out` must be NULL or valid for a write of one pointer.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_numa_alloc(size: u64, node: i32, out: *mut *mut u8) -> i32 {
    guarded(|| {
        if out.is_null() {
            return Err(Error::invalid("out is NULL"));
        }
        // SAFETY: non-null and valid for a pointer write by the contract.
        unsafe { out.write(std::ptr::null_mut()) };
        let size = usize::try_from(size).map_err(|_| Error::invalid(format!("size {size} is too large")))?;
        let p = numa::alloc(size, node_arg(node)?)?;
        // SAFETY: as above.
        unsafe { out.write(p) };
        Ok(())
    })
}

/// Like `dgen4j_numa_alloc`, on a memory file of its own (`memfd_create`, mapped shared):
/// stores the address in `*out` and the file's descriptor in `*fd` (offset 0 is the buffer's
/// first byte; open until `dgen4j_numa_free`), so that `sendfile` can send the buffer's pages
/// without copying them. NULL and -1 on failure.
///
/// # Safety
/// `out` and `fd` must each be NULL or valid for a write of one pointer and one int.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_numa_alloc_shared(size: u64, node: i32, out: *mut *mut u8, fd: *mut i32) -> i32 {
    guarded(|| {
        if out.is_null() || fd.is_null() {
            return Err(Error::invalid("out or fd is NULL"));
        }
        // SAFETY: both non-null and valid for their writes by the contract.
        unsafe {
            out.write(std::ptr::null_mut());
            fd.write(-1);
        }
        let size = usize::try_from(size).map_err(|_| Error::invalid(format!("size {size} is too large")))?;
        let (p, f) = numa::alloc_shared(size, node_arg(node)?)?;
        // SAFETY: as above.
        unsafe {
            out.write(p);
            fd.write(f);
        }
        Ok(())
    })
}

/// Unmaps a buffer of `dgen4j_numa_alloc` or `dgen4j_numa_alloc_shared` (`size` as allocated)
/// and closes the latter's descriptor. NULL is ignored.
///
/// # Safety
/// `ptr` must not be used after this call.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_numa_free(ptr: *mut u8, size: u64) -> i32 {
    guarded(|| {
        if ptr.is_null() {
            return Ok(());
        }
        numa::free(ptr, usize::try_from(size).unwrap_or(usize::MAX))
    })
}

/// Like `dgen4j_generator_new`, with a NUMA mode (`DGEN4J_NUMA_*`) and a node to bind
/// the workers to (-1 = none).
///
/// # Safety
/// `out` must be NULL or valid for a write of one pointer.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn dgen4j_generator_new_numa(
    seed: u64,
    size: u64,
    block_size: u64,
    dedup: f64,
    compress: f64,
    threads: u32,
    mode: i32,
    node: i32,
    out: *mut *mut dgen4j_generator,
) -> i32 {
    guarded(|| {
        if out.is_null() {
            return Err(Error::invalid("out is NULL"));
        }
        // SAFETY: `out` is non-null and, by the contract, valid for a pointer write.
        unsafe { out.write(std::ptr::null_mut()) };
        let spec = Spec::new(seed, size, block_size, dedup, compress)?;
        let pool = Pool::with_numa(spec, threads as usize, mode_arg(mode)?, node_arg(node)?)?;
        // SAFETY: as above; ownership of the box passes to the caller until generator_free.
        unsafe { out.write(Box::into_raw(Box::new(pool))) };
        Ok(())
    })
}

/// Copies the pinning plan of a generator (the text of `dgen4j_numa_plan`); returns its
/// length, 0 for NULL.
///
/// # Safety
/// `gen` must be NULL or a live generator; `buf` NULL or valid for `cap` bytes.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_generator_plan(gen: *const dgen4j_generator, buf: *mut c_char, cap: usize) -> usize {
    guarded_value(0, || {
        // SAFETY: by the contract, `gen` is NULL or points to a live generator.
        match unsafe { gen.as_ref() } {
            // SAFETY: forwarded from this function's contract on `buf` and `cap`.
            Some(g) => unsafe { copy_out(&g.plan().describe(), buf, cap) },
            None => 0,
        }
    })
}

/// Fills `[offset, offset + len)` into `buf` `iterations` times and stores the elapsed
/// nanoseconds in `*nanos`: the in-Rust reference of the FFM call overhead benchmark.
///
/// # Safety
/// As `dgen4j_generator_fill`; `nanos` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn dgen4j_bench_fill(
    gen: *mut dgen4j_generator,
    offset: u64,
    buf: *mut u8,
    len: u64,
    iterations: u64,
    nanos: *mut u64,
) -> i32 {
    guarded(|| {
        // SAFETY: by the contract, `gen` is NULL or points to a live generator.
        let gen = unsafe { generator_ref(gen) }?;
        if nanos.is_null() {
            return Err(Error::invalid("nanos is NULL"));
        }
        gen.spec().check_range(offset, len)?;
        let len = usize::try_from(len).map_err(|_| Error::invalid("len does not fit in the address space"))?;
        if buf.is_null() && len > 0 {
            return Err(Error::invalid(format!("buf is NULL but len is {len}")));
        }
        // SAFETY: `buf` is non-null (or len is 0) and valid and exclusive for `len` bytes.
        let bytes: &mut [u8] = if len == 0 { &mut [] } else { unsafe { std::slice::from_raw_parts_mut(buf, len) } };
        let start = std::time::Instant::now();
        for _ in 0..iterations {
            gen.fill(offset, bytes)?;
            std::hint::black_box(&mut *bytes);
        }
        let ns = start.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        // SAFETY: non-null and valid for one write by the contract.
        unsafe { nanos.write(ns) };
        Ok(())
    })
}
