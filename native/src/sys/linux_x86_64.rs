//! Linux x86-64: the constants of [`super`].
//!
//! Values of the x86-64 kernel UAPI and glibc headers (Debian 12: linux-libc-dev 6.1,
//! libc6-dev 2.36), kernel source paths named beside each. `tests/sys_constants.rs` compiles
//! and runs a C program against the host's headers and compares every value.

#![allow(non_upper_case_globals)]

use std::ffi::{c_int, c_long};

constants! {
    /// `fcntl(F_SETFL)` flag: I/O bypasses the page cache (x86 keeps the generic value).
    O_DIRECT: c_int = 0o40000; "include/uapi/asm-generic/fcntl.h; glibc bits/fcntl-linux.h"
    /// `fcntl` command: read the file status flags.
    F_GETFL: c_int = 3; "include/uapi/asm-generic/fcntl.h"
    /// `fcntl` command: set the file status flags.
    F_SETFL: c_int = 4; "include/uapi/asm-generic/fcntl.h"
    /// `fallocate` mode: reserve blocks without changing the file size.
    FALLOC_FL_KEEP_SIZE: c_int = 1; "include/uapi/linux/falloc.h"
    /// `posix_fadvise`: no advice.
    POSIX_FADV_NORMAL: c_int = 0; "include/uapi/linux/fadvise.h; glibc bits/fcntl-linux.h"
    /// `posix_fadvise`: random access.
    POSIX_FADV_RANDOM: c_int = 1; "include/uapi/linux/fadvise.h; glibc bits/fcntl-linux.h"
    /// `posix_fadvise`: sequential access.
    POSIX_FADV_SEQUENTIAL: c_int = 2; "include/uapi/linux/fadvise.h; glibc bits/fcntl-linux.h"
    /// `posix_fadvise`: read ahead.
    POSIX_FADV_WILLNEED: c_int = 3; "include/uapi/linux/fadvise.h; glibc bits/fcntl-linux.h"
    /// `posix_fadvise`: drop the range from the page cache (6 on s390x only).
    POSIX_FADV_DONTNEED: c_int = 4; "include/uapi/linux/fadvise.h; glibc bits/fcntl-linux.h"
    /// `posix_fadvise`: data used once (7 on s390x only).
    POSIX_FADV_NOREUSE: c_int = 5; "include/uapi/linux/fadvise.h; glibc bits/fcntl-linux.h"
    /// errno: invalid argument (how F_SETFL refuses O_DIRECT).
    EINVAL: c_int = 22; "include/uapi/asm-generic/errno-base.h"
    /// errno: operation not supported (a filesystem without `fallocate`).
    EOPNOTSUPP: c_int = 95; "include/uapi/asm-generic/errno.h"
    /// `mmap` protection: readable.
    PROT_READ: c_int = 0x1; "include/uapi/asm-generic/mman-common.h"
    /// `mmap` protection: writable.
    PROT_WRITE: c_int = 0x2; "include/uapi/asm-generic/mman-common.h"
    /// `mmap` flag: a mapping shared with the file (and every other mapping of it).
    MAP_SHARED: c_int = 0x01; "include/uapi/linux/mman.h"
    /// `memfd_create` flag: close the descriptor on exec.
    MFD_CLOEXEC: c_int = 0x0001; "include/uapi/linux/memfd.h"
    /// `mmap` flag: private copy-on-write mapping.
    MAP_PRIVATE: c_int = 0x02; "include/uapi/linux/mman.h"
    /// `mmap` flag: no file behind the mapping.
    MAP_ANONYMOUS: c_int = 0x20; "include/uapi/asm-generic/mman-common.h"
    /// `mmap` flag: no swap reservation.
    MAP_NORESERVE: c_int = 0x4000; "include/uapi/asm-generic/mman.h, via arch/x86/include/uapi/asm/mman.h"
    /// `madvise`: back the range with transparent huge pages.
    MADV_HUGEPAGE: c_int = 14; "include/uapi/asm-generic/mman-common.h"
    /// `sysconf` name: the page size (a glibc enum value, the same on every architecture).
    _SC_PAGESIZE: c_int = 30; "glibc posix/bits/confname.h"
    /// Memory policy mode: allocate only on the given nodes.
    MPOL_BIND: c_int = 2; "include/uapi/linux/mempolicy.h, an enum"
    /// `get_mempolicy` flag: the policy of the page at an address.
    MPOL_F_ADDR: c_int = 1 << 1; "include/uapi/linux/mempolicy.h"
    /// Syscall number of `mbind` (glibc has no wrapper; libnuma's is not linked).
    SYS_mbind: c_long = 237; "arch/x86/entry/syscalls/syscall_64.tbl, asm/unistd_64.h"
    /// Syscall number of `get_mempolicy`.
    SYS_get_mempolicy: c_long = 239; "arch/x86/entry/syscalls/syscall_64.tbl, asm/unistd_64.h"
}
