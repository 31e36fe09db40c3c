//! The C functions the native core calls on Linux (glibc or musl), each behind a safe
//! wrapper. The constants come from the target's table ([`super::arch`]).

use std::ffi::{c_char, c_int, c_long, c_uint, c_void};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};

use super::arch::*;

// The prototypes are those of the C library on every LP64 Linux (`off_t` is 64 bits,
// `pid_t` is int); super checks the target is LP64.
extern "C" {
    fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
    fn fallocate(fd: c_int, mode: c_int, offset: i64, len: i64) -> c_int;
    fn posix_fadvise(fd: c_int, offset: i64, len: i64, advice: c_int) -> c_int;
    fn memfd_create(name: *const c_char, flags: c_uint) -> c_int;
    fn mmap(addr: *mut c_void, len: usize, prot: c_int, flags: c_int, fd: c_int, off: i64) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> c_int;
    fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    fn mincore(addr: *mut c_void, len: usize, vec: *mut u8) -> c_int;
    fn sysconf(name: c_int) -> c_long;
    fn syscall(num: c_long, ...) -> c_long;
    // cpu_set_t is an array of unsigned long: 64-bit words, CPU i at bit i % 64 of word i / 64.
    fn sched_setaffinity(pid: c_int, cpusetsize: usize, mask: *const u64) -> c_int;
    fn sched_getaffinity(pid: c_int, cpusetsize: usize, mask: *mut u64) -> c_int;
}

// ---- files ----

/// Switches `file` to O_DIRECT. A filesystem that refuses it (F_SETFL fails with EINVAL, or
/// the flag does not read back) gives an error of kind `Unsupported`.
pub fn set_direct(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: F_GETFL takes no further argument and only reads the descriptor's flags.
    let flags = unsafe { fcntl(fd, F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: F_SETFL takes one int argument; it changes only this descriptor's status flags.
    if unsafe { fcntl(fd, F_SETFL, flags | O_DIRECT) } != 0 {
        let e = io::Error::last_os_error();
        return Err(if e.raw_os_error() == Some(EINVAL) {
            io::Error::new(io::ErrorKind::Unsupported, "O_DIRECT not supported (EINVAL)")
        } else {
            e
        });
    }
    // F_SETFL ignores the bits it cannot change (a wrong O_DIRECT value would be one of them):
    // only a flag that reads back means direct I/O.
    // SAFETY: as for the first F_GETFL.
    let now = unsafe { fcntl(fd, F_GETFL) };
    if now < 0 {
        return Err(io::Error::last_os_error());
    }
    if now & O_DIRECT == 0 {
        return Err(io::Error::new(io::ErrorKind::Unsupported, "O_DIRECT did not take effect (F_GETFL lacks it)"));
    }
    Ok(())
}

/// Reserves `len` bytes from offset 0 of `file` without changing its size (`fallocate` with
/// FALLOC_FL_KEEP_SIZE). `Ok(false)`: the filesystem has no `fallocate` (EOPNOTSUPP).
pub fn reserve(file: &File, len: i64) -> io::Result<bool> {
    // SAFETY: fallocate only reads its integer arguments; the descriptor is owned by `file`.
    let rc = unsafe { fallocate(file.as_raw_fd(), FALLOC_FL_KEEP_SIZE, 0, len) };
    if rc == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(EOPNOTSUPP) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// `posix_fadvise(file, offset, len, advice)`; `advice` is a POSIX_FADV_* value.
pub fn fadvise(file: &File, offset: i64, len: i64, advice: c_int) -> io::Result<()> {
    // SAFETY: posix_fadvise only reads its integer arguments; the descriptor is owned by `file`.
    let rc = unsafe { posix_fadvise(file.as_raw_fd(), offset, len, advice) };
    // posix_fadvise returns the error number instead of setting errno.
    if rc == 0 { Ok(()) } else { Err(io::Error::from_raw_os_error(rc)) }
}

// ---- memory ----

/// The page size (4096 when sysconf fails).
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory effects.
    let p = unsafe { sysconf(_SC_PAGESIZE) };
    if p > 0 { p as usize } else { 4096 }
}

/// A private anonymous read-write mapping of `len` bytes (a multiple of the page size),
/// without swap reservation; untouched, so not resident until written.
pub fn map(len: usize) -> io::Result<*mut u8> {
    // SAFETY: an anonymous private mapping at an address the kernel picks touches no
    // existing memory.
    let p = unsafe {
        mmap(std::ptr::null_mut(), len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
    };
    // MAP_FAILED is (void *) -1.
    if p as isize == -1 || p.is_null() {
        Err(io::Error::last_os_error())
    } else {
        Ok(p.cast())
    }
}

/// A new memory file of `len` bytes (`memfd_create` with MFD_CLOEXEC, then `ftruncate`): anonymous
/// memory that has a file descriptor, so that `sendfile` can send its pages to a socket without
/// copying them. It is not counted against a tmpfs mount's size (as a file in /dev/shm is).
pub fn memory_file(len: usize) -> io::Result<File> {
    // SAFETY: the name is a NUL-terminated string literal; memfd_create only reads it.
    let fd = unsafe { memfd_create(c"dgen4j-buffer".as_ptr(), MFD_CLOEXEC as c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: memfd_create returned a new descriptor that nothing else owns.
    let file = unsafe { File::from_raw_fd(fd) };
    file.set_len(len as u64)?;
    Ok(file)
}

/// A shared read-write mapping of the first `len` bytes (a multiple of the page size) of
/// `file`; untouched, so not resident until written. It stays valid after `file` is closed.
pub fn map_file(file: &File, len: usize) -> io::Result<*mut u8> {
    // SAFETY: a new shared mapping of our own descriptor at an address the kernel picks
    // touches no existing memory.
    let p = unsafe { mmap(std::ptr::null_mut(), len, PROT_READ | PROT_WRITE, MAP_SHARED, file.as_raw_fd(), 0) };
    if p as isize == -1 || p.is_null() {
        Err(io::Error::last_os_error())
    } else {
        Ok(p.cast())
    }
}

/// Unmaps a mapping of [`map`] or [`map_file`].
pub fn unmap(ptr: *mut u8, len: usize) {
    // SAFETY: callers pass a mapping made by `map` or `map_file` with its length, no longer used.
    unsafe { munmap(ptr.cast(), len) };
}

/// Asks for transparent huge pages on a mapping of [`map`] or [`map_file`].
pub fn advise_hugepages(ptr: *mut u8, len: usize) {
    // SAFETY: advice on our own mapping; failure (THP disabled) is harmless.
    unsafe { madvise(ptr.cast(), len, MADV_HUGEPAGE) };
}

/// How many pages of `[ptr, ptr + len)` are resident (`mincore`); `None` when the call fails.
pub fn resident_pages(ptr: *const u8, len: usize) -> Option<usize> {
    let page = page_size();
    let mut vec = vec![0u8; len.div_ceil(page)];
    // SAFETY: `vec` holds one byte per page of the range, as mincore requires.
    let rc = unsafe { mincore(ptr as *mut c_void, len, vec.as_mut_ptr()) };
    (rc == 0).then(|| vec.iter().filter(|&&b| b & 1 == 1).count())
}

// ---- NUMA and CPU affinity ----

/// A mask of `unsigned long` words with the bits of `ids` set.
fn mask_of(ids: &[usize]) -> Vec<u64> {
    let words = ids.iter().max().map_or(1, |m| m / 64 + 1);
    let mut mask = vec![0u64; words];
    for &i in ids {
        mask[i / 64] |= 1 << (i % 64);
    }
    mask
}

/// The set bits of a mask of words.
fn ids_of(mask: &[u64]) -> Vec<usize> {
    (0..mask.len() * 64).filter(|i| mask[i / 64] >> (i % 64) & 1 == 1).collect()
}

/// Binds a mapping of [`map`] to NUMA node `node` (`mbind` with MPOL_BIND).
pub fn bind(ptr: *mut u8, len: usize, node: usize) -> io::Result<()> {
    let mask = mask_of(&[node]);
    // The kernel reads maxnode - 1 bits.
    let maxnode = (mask.len() * 64 + 1) as c_long;
    // SAFETY: mbind(addr, len, mode, nodemask, maxnode, flags) on our own mapping; the mask
    // holds mask.len() words, covering maxnode - 1 bits. Every variadic argument is passed
    // as a long or a pointer, as syscall(2) reads them.
    let rc = unsafe {
        syscall(SYS_mbind, ptr as c_long, len as c_long, MPOL_BIND as c_long, mask.as_ptr(), maxnode, 0 as c_long)
    };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// The memory policy mode and nodes of the page at `ptr` (`get_mempolicy` with MPOL_F_ADDR).
pub fn policy_of(ptr: *const u8) -> Option<(i32, Vec<usize>)> {
    let mut mode: c_int = -1;
    let mut mask = [0u64; 16];
    // SAFETY: get_mempolicy(mode, nodemask, maxnode, addr, flags) writes one int and at most
    // maxnode - 1 bits into our buffers; `addr` only selects the mapping to look up, it is
    // never dereferenced (so it goes as an integer). The variadic arguments are longs and
    // pointers, as syscall(2) reads them.
    let rc = unsafe {
        syscall(
            SYS_get_mempolicy,
            &mut mode as *mut c_int,
            mask.as_mut_ptr(),
            (16 * 64 + 1) as c_long,
            ptr as c_long,
            MPOL_F_ADDR as c_long,
        )
    };
    (rc == 0).then(|| (mode, ids_of(&mask)))
}

/// Pins the calling thread to `cpus`.
pub fn set_affinity(cpus: &[usize]) -> io::Result<()> {
    let mask = mask_of(cpus);
    // SAFETY: pid 0 is the calling thread; the mask holds mask.len() * 8 bytes.
    let rc = unsafe { sched_setaffinity(0, mask.len() * 8, mask.as_ptr()) };
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// The CPUs of the calling thread's affinity mask, or `None` when the call fails even with
/// a mask of 2^20 CPUs (or the mask is empty).
pub fn affinity_list() -> Option<Vec<usize>> {
    // 1024 CPUs first (glibc's cpu_set_t), then larger masks while the kernel says EINVAL
    // because its mask is wider than ours.
    let mut words = 16usize;
    while words <= (1 << 20) / 64 {
        let mut mask = vec![0u64; words];
        // SAFETY: `mask` is a live, writable buffer of exactly `words * 8` bytes, the size
        // passed; pid 0 is the calling thread; the call writes only inside it.
        if unsafe { sched_getaffinity(0, words * 8, mask.as_mut_ptr()) } == 0 {
            let cpus = ids_of(&mask);
            return (!cpus.is_empty()).then_some(cpus);
        }
        words *= 4;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_are_words_of_64_cpus() {
        assert_eq!(mask_of(&[0, 3, 64, 130]), vec![0b1001, 1, 1 << 2]);
        assert_eq!(mask_of(&[]), vec![0]);
        assert_eq!(ids_of(&mask_of(&[0, 3, 64, 130])), vec![0, 3, 64, 130]);
    }

    #[test]
    fn o_direct_reads_back_when_set() {
        let dir = std::env::temp_dir().join(format!("dgen4j-sys-direct-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = File::create(dir.join("f")).unwrap();
        match set_direct(&f) {
            Ok(()) => {
                // SAFETY: F_GETFL only reads the descriptor's flags.
                let flags = unsafe { fcntl(f.as_raw_fd(), F_GETFL) };
                assert_ne!(flags & O_DIRECT, 0, "O_DIRECT set, flags {flags:#o}");
            }
            // A temp directory on a filesystem without O_DIRECT (old tmpfs).
            Err(e) => assert_eq!(e.kind(), io::ErrorKind::Unsupported, "{e}"),
        }
        drop(f);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
