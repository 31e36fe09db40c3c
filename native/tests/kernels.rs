//! The golden values of docs/FORMAT.md section 6 through every kernel this CPU can run
//! (scalar, AVX2, AVX-512), with ordinary and non-temporal stores, into buffers at every
//! alignment mod 64: the dispatch never changes a byte.

mod common;

use common::sha256_hex;
use dgen4j::layout::{fill_with, Spec};
use dgen4j::simd::Level;

const GOLDEN: &[(u64, u64, u64, f64, f64, u64, u64, &str)] = &[
    (7, 65536, 4096, 1.0, 1.0, 0, 65536, "f4f5c255b62585875437eb3bf62bde19b261e2ada5221992a0a7debeb3bc89cf"),
    (7, 65536, 4096, 2.0, 3.0, 0, 65536, "2e75df196fb011dad7710acd95e5647974a49ab12dda18da775727297c3eaa38"),
    (7, 65536, 4096, 2.0, 3.0, 1000, 3000, "cdd4added3f16ab62687eacb46fbebd00c74fdcf80e6f7a9c8b5593bbea0520f"),
    (42, 100000, 512, 1.5, 1.0, 0, 100000, "078d32a9d391542abfaa4180529f33cc49fafe065c9f3d7445d7b252a4a44ff9"),
    (0, 300000, 65536, 3.0, 8.0, 0, 300000, "6c804e3608a18b4147ef56ff037d662d681a9bccf24661ff1e79ef68a702bcbb"),
    (u64::MAX, 40960, 1024, 7.3, 2.5, 123, 40000, "55ee8dfe19845cfa49ee4f008ae74bca638777aa32677d1acda42480a3a97b3b"),
    (123456789, 1048576, 2048, 4.0, 4.0, 0, 1048576, "b49195e7f831e50c760171f58c56139e66738c53b8dcb9cbecef2159198f9261"),
    (99, 200000, 4096, 1.0, 1.1, 1, 199998, "c5fca4b101e3046eede652d1b8a260a1797ec1deaa4443885b387447c33ec48d"),
];

#[test]
fn golden_values_through_every_kernel_store_kind_and_alignment() {
    let mut checked = Vec::new();
    for level in Level::ALL {
        if !level.supported() {
            eprintln!("note: this CPU cannot run the {} kernel; not checked here", level.name());
            continue;
        }
        checked.push(level.name());
        for &(seed, size, block, dedup, compress, offset, len, sha) in GOLDEN {
            let spec = Spec::new(seed, size, block, dedup, compress).unwrap();
            let mut backing = vec![0u8; len as usize + 128];
            for (shift, nt) in [(0usize, false), (0, true), (64 - (offset % 64) as usize, true), (13, true), (8, false)] {
                let base = backing.as_ptr().align_offset(64) + shift;
                let buf = &mut backing[base..base + len as usize];
                buf.fill(0xEE);
                fill_with(&spec, offset, buf, level, nt).unwrap();
                assert_eq!(sha256_hex(buf), sha, "{} nt {nt} shift {shift}: seed {seed} size {size}", level.name());
            }
        }
    }
    assert!(checked.contains(&"scalar"));
}

/// The fused verify agrees with fill through every kernel: for pseudo-random specs, ranges and
/// buffer alignments, the filled bytes verify, and a single flipped byte anywhere (first, last,
/// middle, in the unaligned head and tail, in a sector's zero tail) is the reported mismatch.
#[test]
fn verify_agrees_with_fill_for_random_ranges_alignments_and_specs() {
    use dgen4j::layout::first_mismatch_with;
    let mut x = 0x1234_5678_9ABC_DEF0u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..24 {
        let block = 512u64 << (next() % 6);
        let size = 1 + next() % (300 << 10);
        let dedup = 1.0 + (next() % 40) as f64 / 10.0;
        let compress = [1.0, 1.1, 2.0, 3.0, 8.0][(next() % 5) as usize];
        let spec = Spec::new(next(), size, block, dedup, compress).unwrap();
        let offset = next() % size;
        let len = (1 + next() % (size - offset)) as usize;
        let mut backing = vec![0u8; len + 64];
        let shift = (next() % 64) as usize;
        let buf = &mut backing[shift..shift + len];
        fill_with(&spec, offset, buf, Level::Scalar, false).unwrap();
        let positions = [0, len - 1, len / 2, (next() % len as u64) as usize, len.saturating_sub(100)];
        for level in Level::ALL.into_iter().filter(|l| l.supported()) {
            let what = format!("round {round} {} block {block} size {size} [{offset}, +{len}) shift {shift}", level.name());
            assert_eq!(first_mismatch_with(&spec, offset, buf, level).unwrap(), None, "{what}");
            for at in positions {
                buf[at] ^= 0x01;
                let got = first_mismatch_with(&spec, offset, buf, level).unwrap();
                buf[at] ^= 0x01;
                assert_eq!(got, Some(offset + at as u64), "{what} flip {at}");
            }
        }
    }
}
