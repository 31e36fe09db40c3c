//! Rough fill and fused-verify throughput: `cargo run --release --offline --example fill_speed
//! [MiB] [threads]` (defaults: 1024 MiB, 1 thread). The buffer is touched before timing, so page
//! faults are not counted; prints the best of seven interleaved fills and verifies per configuration.

use std::time::Instant;

use dgen4j::layout::Spec;
use dgen4j::pool::Pool;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).map_or(1024, |s| s.parse().expect("MiB"));
    let threads: usize = args.get(2).map_or(1, |s| s.parse().expect("threads"));
    let size = mib << 20;
    // A mapping like the Java buffer pool's (dgen4j_numa_alloc: page-aligned, huge pages asked for).
    let ptr = dgen4j::numa::alloc(size, None).expect("mmap");
    // SAFETY: `ptr` is a fresh private mapping of `size` bytes, used only through this slice.
    let buf = unsafe { std::slice::from_raw_parts_mut(ptr, size) };
    buf.fill(1);
    for (block, dedup, compress) in [(4096u64, 1.0, 1.0), (4096, 2.0, 3.0), (512, 1.0, 1.0), (1 << 20, 2.0, 3.0)] {
        let pool = Pool::new(Spec::new(1, size as u64, block, dedup, compress).unwrap(), threads).unwrap();
        // Fills and verifies interleaved, so that both see the same conditions; best of seven.
        let (mut best, mut best_verify) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..7 {
            let t = Instant::now();
            pool.fill(0, buf).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            assert_eq!(pool.first_mismatch(0, buf).unwrap(), None);
            best_verify = best_verify.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{mib} MiB, {} thread(s), block {block}, dedup {dedup}, compress {compress}: fill {:.3} s, {:.2} GiB/s; \
             verify {:.3} s, {:.2} GiB/s ({:.2} x fill)",
            pool.threads(),
            best,
            mib as f64 / 1024.0 / best,
            best_verify,
            mib as f64 / 1024.0 / best_verify,
            best / best_verify
        );
    }
}
