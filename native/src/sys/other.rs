//! The wrappers of `linux.rs` on other systems, where the native core is built for
//! development only: no O_DIRECT, no `fallocate`, no NUMA or affinity, heap memory instead
//! of mappings. Each falls back explicitly, with std alone.

use std::fs::File;
use std::io;

/// Always `Unsupported`: O_DIRECT is a Linux flag.
pub fn set_direct(_: &File) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "O_DIRECT is available on Linux only"))
}

/// Always `Ok(false)`: nothing reserved.
pub fn reserve(_: &File, _: i64) -> io::Result<bool> {
    Ok(false)
}

/// Does nothing: advice is a hint, and there is no portable `posix_fadvise`.
pub fn fadvise(_: &File, _: i64, _: i64, _: i32) -> io::Result<()> {
    Ok(())
}

/// 4096.
pub fn page_size() -> usize {
    4096
}

/// `len` zeroed bytes from the heap, 4096-aligned.
pub fn map(len: usize) -> io::Result<*mut u8> {
    let layout = std::alloc::Layout::from_size_align(len, 4096).map_err(|_| io::ErrorKind::InvalidInput)?;
    if layout.size() == 0 {
        return Err(io::ErrorKind::InvalidInput.into());
    }
    // SAFETY: non-zero size, valid layout.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() { Err(io::ErrorKind::OutOfMemory.into()) } else { Ok(p) }
}

/// Always `Unsupported`: memory files are Linux's.
pub fn memory_file(_: usize) -> io::Result<File> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "memory files (memfd_create) are available on Linux only"))
}

/// Always `Unsupported`.
pub fn map_file(_: &File, _: usize) -> io::Result<*mut u8> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Frees memory of [`map`].
pub fn unmap(ptr: *mut u8, len: usize) {
    // SAFETY: allocated by `map` with this layout (valid there, so valid here).
    unsafe { std::alloc::dealloc(ptr, std::alloc::Layout::from_size_align_unchecked(len, 4096)) }
}

/// Does nothing.
pub fn advise_hugepages(_: *mut u8, _: usize) {}

/// Always `None`.
pub fn resident_pages(_: *const u8, _: usize) -> Option<usize> {
    None
}

/// Always `Unsupported`.
pub fn bind(_: *mut u8, _: usize, _: usize) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Always `None`.
pub fn policy_of(_: *const u8) -> Option<(i32, Vec<usize>)> {
    None
}

/// Always `Unsupported`.
pub fn set_affinity(_: &[usize]) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Always `None`.
pub fn affinity_list() -> Option<Vec<usize>> {
    None
}
