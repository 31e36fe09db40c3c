//! Throughput of the CRC-32 kernels and of a fill with and without the CRC (CRC-32, and CRC-32C
//! as an S3 part's), on this machine:
//! `cargo run --release --example crc_speed -- [MiB] [threads]` (default 256 MiB, 1 thread).

use std::time::Instant;

use dgen4j::crc32::{self, Kernel};
use dgen4j::layout::Spec;
use dgen4j::pool::Pool;

fn best<T>(rounds: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(256);
    let threads: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let n = mib << 20;
    let spec = Spec::new(1, n as u64, 4096, 1.0, 1.0).unwrap();
    let pool = Pool::new(spec, threads).unwrap();
    // 64-byte aligned, as the pool's buffers are: the non-temporal stores need it.
    let mut backing = vec![0u8; n + 64];
    let at = backing.as_ptr().align_offset(64);
    let buf = &mut backing[at..at + n];
    pool.fill(0, buf).unwrap();
    let gbps = |s: f64| n as f64 / s / 1e9;
    let small = &buf[..16 << 10];
    let reps = n / small.len();
    println!("crc kernel detected: {}", Kernel::detect().name());
    let t = best(9, || (0..reps).fold(0, |c, _| crc32::update_with(Kernel::Avx512, c, small)));
    println!("crc vpclmulqdq, 16 KiB in cache  {:6.2} GB/s", gbps(t));
    let t = best(9, || (0..reps).fold(0, |c, _| crc32::update_with(Kernel::Clmul, c, small)));
    println!("crc pclmulqdq, 16 KiB in cache   {:6.2} GB/s", gbps(t));
    let t = best(9, || (0..reps).fold(0, |c, _| crc32::update_table(c, small)));
    println!("crc table, 16 KiB in cache       {:6.2} GB/s", gbps(t));
    let t = best(9, || crc32::update(0, buf));
    println!("crc best kernel, {mib} MiB from memory {:6.2} GB/s", gbps(t));
    let t = best(9, || pool.fill(0, buf).unwrap());
    println!("fill ({threads} thr)                     {:6.2} GB/s", gbps(t));
    let t = best(9, || pool.fill_payload(0, buf, None, 0, true).unwrap());
    println!("fill + crc in one pass ({threads} thr)   {:6.2} GB/s", gbps(t));
    let t = best(9, || {
        pool.fill(0, buf).unwrap();
        crc32::update(0, buf)
    });
    println!("fill, then crc pass ({threads} thr)     {:6.2} GB/s", gbps(t));
    let t = best(9, || pool.fill_crc32c(0, buf).unwrap());
    println!("fill + crc32c, S3 part ({threads} thr)   {:6.2} GB/s", gbps(t));
    let t = best(9, || pool.fill_payload(0, buf, Some(dgen4j::finite::Finite::Bf16), 0, false).unwrap());
    println!("fill + finite bf16 ({threads} thr)       {:6.2} GB/s", gbps(t));
    let t = best(9, || pool.fill_payload(0, buf, Some(dgen4j::finite::Finite::Bf16), 0, true).unwrap());
    println!("fill + finite bf16 + crc ({threads} thr) {:6.2} GB/s", gbps(t));
}
