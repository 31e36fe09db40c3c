//! The operating system below the native core: every constant, syscall number and C
//! function the crate takes from Linux and its C library is declared here and nowhere else.
//!
//! Constants live in one table per architecture, [`linux_x86_64`] and [`linux_aarch64`],
//! each value copied from that architecture's kernel UAPI or glibc header (named beside it),
//! because the architectures differ: `O_DIRECT` is `0o40000` on x86-64 but `0o200000` on
//! aarch64, where `0o40000` is `O_DIRECTORY`; `mbind` is syscall 237 on x86-64 and 235 on
//! aarch64. Both tables are compiled on every target, so each one type-checks everywhere; a
//! compile-time check below keeps their names and types identical; `tests/sys_constants.rs`
//! compares them with the C headers (the host's through `cc`, the other architecture's
//! through Debian's cross compiler). [`arch`] is the current target's table, re-exported
//! here. Linux on another architecture does not compile: add its table first.
//!
//! Functions: the C declarations with safe wrappers (`linux.rs`); on other systems the same
//! wrappers fall back explicitly (`other.rs`: no O_DIRECT, no NUMA, heap memory).

/// One constant of a table: its C name, Rust type, value and the header it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Constant {
    /// The C name, which is also the Rust name.
    pub name: &'static str,
    /// The Rust type (`c_int`, `c_long`).
    pub ty: &'static str,
    /// The value.
    pub value: i64,
    /// Where the value comes from (kernel UAPI or glibc header path).
    pub header: &'static str,
}

/// Declares the constants of an architecture and `ALL`, the list the tests compare with
/// the C headers.
macro_rules! constants {
    ($($(#[$doc:meta])* $name:ident: $ty:ident = $value:expr; $header:literal)*) => {
        $($(#[$doc])* pub const $name: $ty = $value;)*

        /// Every constant of this table, in declaration order.
        pub const ALL: &[$crate::sys::Constant] = &[$($crate::sys::Constant {
            name: stringify!($name),
            ty: stringify!($ty),
            value: $name as i64,
            header: $header,
        }),*];
    };
}

pub mod linux_aarch64;
pub mod linux_x86_64;

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub use linux_x86_64 as arch;

#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
pub use linux_aarch64 as arch;

#[cfg(all(target_os = "linux", not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
compile_error!(
    "dgen4j's native core knows the Linux constants of x86_64 and aarch64 only: add \
     native/src/sys/linux_<arch>.rs with the values of that architecture's kernel and libc \
     headers, select it in native/src/sys/mod.rs and compare it in native/tests/sys_constants.rs"
);

#[cfg(target_os = "linux")]
pub use arch::*;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::*;

#[cfg(not(target_os = "linux"))]
mod other;
#[cfg(not(target_os = "linux"))]
pub use other::*;

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two tables declare the same names with the same types in the same order.
const fn same_shape(a: &[Constant], b: &[Constant]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !same_str(a[i].name, b[i].name) || !same_str(a[i].ty, b[i].ty) {
            return false;
        }
        i += 1;
    }
    true
}

// Code written against one table compiles against the other: the aarch64 build is checked
// by every x86-64 build (and the reverse).
const _: () = assert!(
    same_shape(linux_x86_64::ALL, linux_aarch64::ALL),
    "native/src/sys/linux_x86_64.rs and linux_aarch64.rs must declare the same constants \
     with the same types, in the same order"
);

// The wrappers pass `off_t` as i64 and CPU and node masks as 64-bit words (`unsigned long`):
// true of LP64 Linux, which is all the tables describe.
#[cfg(target_os = "linux")]
const _: () = assert!(usize::BITS == 64 && std::mem::size_of::<std::ffi::c_long>() == 8);

// The fallback of other systems uses std alone; compiling it here keeps it compiling.
#[cfg(all(test, target_os = "linux"))]
#[path = "other.rs"]
#[allow(dead_code)]
mod other;

#[cfg(test)]
mod tests {
    use super::*;

    fn value(table: &[Constant], name: &str) -> i64 {
        table.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no {name}")).value
    }

    #[test]
    fn o_direct_differs_between_the_architectures() {
        // The bug this module exists for: 0o40000 is O_DIRECTORY on aarch64, which F_SETFL
        // ignores, so a hand-typed x86-64 value silently gave buffered I/O there.
        assert_eq!(linux_x86_64::O_DIRECT, 0o40000);
        assert_eq!(linux_aarch64::O_DIRECT, 0o200000);
        assert_eq!((linux_x86_64::SYS_mbind, linux_aarch64::SYS_mbind), (237, 235));
        assert_eq!((linux_x86_64::SYS_get_mempolicy, linux_aarch64::SYS_get_mempolicy), (239, 236));
    }

    #[test]
    fn the_fadvise_codes_of_the_c_abi_are_the_kernels() {
        // jextract/dgen4j.h documents dgen4j_file_fadvise's advice as 0 normal, 1 random,
        // 2 sequential, 3 willneed, 4 dontneed, 5 noreuse, and the Java side passes these
        // numbers through: they must be the kernel's on every architecture we build for.
        for table in [linux_x86_64::ALL, linux_aarch64::ALL] {
            let codes: Vec<i64> = ["NORMAL", "RANDOM", "SEQUENTIAL", "WILLNEED", "DONTNEED", "NOREUSE"]
                .iter()
                .map(|n| value(table, &format!("POSIX_FADV_{n}")))
                .collect();
            assert_eq!(codes, vec![0, 1, 2, 3, 4, 5]);
        }
    }

    #[test]
    fn every_constant_names_its_header() {
        for table in [linux_x86_64::ALL, linux_aarch64::ALL] {
            for c in table {
                assert!(c.header.contains(".h"), "{}: header {:?}", c.name, c.header);
            }
        }
        assert!(same_shape(linux_x86_64::ALL, linux_aarch64::ALL));
        assert!(!same_shape(linux_x86_64::ALL, &linux_aarch64::ALL[1..]));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_target_table_is_selected() {
        let want = match std::env::consts::ARCH {
            "x86_64" => linux_x86_64::ALL,
            "aarch64" => linux_aarch64::ALL,
            other => panic!("no table for {other}"),
        };
        assert_eq!(arch::ALL, want);
        assert_eq!(i64::from(O_DIRECT), value(want, "O_DIRECT"));
    }

    #[test]
    fn the_fallback_of_other_systems_works() {
        assert_eq!(other::page_size(), 4096);
        let p = other::map(8192).unwrap();
        assert_eq!(p as usize % 4096, 0);
        // SAFETY: `map` returned 8192 zeroed, writable bytes.
        assert!(unsafe { std::slice::from_raw_parts(p, 8192) }.iter().all(|&b| b == 0));
        other::unmap(p, 8192);
        assert_eq!(other::affinity_list(), None);
        assert!(other::bind(std::ptr::null_mut(), 0, 0).is_err());
        let path = std::env::temp_dir().join(format!("dgen4j-sys-other-{}", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        assert_eq!(other::set_direct(&f).unwrap_err().kind(), std::io::ErrorKind::Unsupported);
        assert!(!other::reserve(&f, 4096).unwrap());
        drop(f);
        std::fs::remove_file(&path).unwrap();
    }
}
