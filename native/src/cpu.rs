//! What the machine offers: the CPUs of the process affinity mask and the CPU features
//! the generator can use.

/// Number of CPUs in the calling process's affinity mask (at least 1).
pub fn affinity_cpus() -> usize {
    sys::affinity_cpus()
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .max(1)
}

#[cfg(target_os = "linux")]
mod sys {
    use std::ffi::c_int;

    extern "C" {
        // glibc and musl: int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask);
        fn sched_getaffinity(pid: c_int, cpusetsize: usize, mask: *mut u64) -> c_int;
    }

    /// The number of bits set in the affinity mask of the calling thread's process, or
    /// `None` when the call fails even with a mask of 2^20 CPUs.
    pub fn affinity_cpus() -> Option<usize> {
        // 1024 CPUs first (glibc's cpu_set_t), then larger masks while the kernel says
        // EINVAL because its mask is wider than ours.
        let mut words = 16usize;
        while words <= (1 << 20) / 64 {
            let mut mask = vec![0u64; words];
            // SAFETY: `mask` is a live, writable buffer of exactly `words * 8` bytes, the
            // size passed; pid 0 is the calling thread; the call writes only inside it.
            let rc = unsafe { sched_getaffinity(0, words * 8, mask.as_mut_ptr()) };
            if rc == 0 {
                let n: u32 = mask.iter().map(|w| w.count_ones()).sum();
                return (n > 0).then_some(n as usize);
            }
            words *= 4;
        }
        None
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub fn affinity_cpus() -> Option<usize> {
        None
    }
}

/// The space-separated CPU features that the generator can use, among
/// `sse2 sse4.2 avx avx2 avx512f avx512bw`; empty on other architectures.
pub fn features() -> String {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        let known = [
            ("sse2", std::is_x86_feature_detected!("sse2")),
            ("sse4.2", std::is_x86_feature_detected!("sse4.2")),
            ("avx", std::is_x86_feature_detected!("avx")),
            ("avx2", std::is_x86_feature_detected!("avx2")),
            ("avx512f", std::is_x86_feature_detected!("avx512f")),
            ("avx512bw", std::is_x86_feature_detected!("avx512bw")),
        ];
        known.iter().filter(|(_, present)| *present).map(|(name, _)| *name).collect::<Vec<_>>().join(" ")
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affinity_is_positive_and_bounded() {
        let n = affinity_cpus();
        assert!(n >= 1);
        if let Ok(p) = std::thread::available_parallelism() {
            // available_parallelism also honours cgroup quotas, so it can only be lower.
            assert!(p.get() <= n, "available_parallelism {p} > affinity {n}");
        }
    }

    #[test]
    fn features_are_known_names() {
        let f = features();
        for name in f.split_whitespace() {
            assert!(["sse2", "sse4.2", "avx", "avx2", "avx512f", "avx512bw"].contains(&name));
        }
        #[cfg(target_arch = "x86_64")]
        assert!(f.starts_with("sse2"), "{f}");
    }
}
