//! What the machine offers: the CPUs of the process affinity mask and the CPU features
//! the generator can use.

/// Number of CPUs in the calling process's affinity mask (at least 1).
pub fn affinity_cpus() -> usize {
    crate::sys::affinity_list()
        .map(|cpus| cpus.len())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .max(1)
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
