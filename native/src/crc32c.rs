//! CRC-32C (Castagnoli: polynomial 0x1EDC6F41 reflected, initial and final value all ones), the
//! checksum S3 carries as `x-amz-checksum-crc32c` and `java.util.zip.CRC32C` computes: the same
//! kernels as [`crate::crc32`] (carry-less multiply folding, 128- or 512-bit, and slicing-by-8
//! tables) with this polynomial's constants, and [`combine`] for pieces summed by several workers.
//! The save pipeline sums each S3 part as the generator fills it, while the bytes are in cache.

use crate::crc32::Kernel;

/// The polynomial, reflected (bit 0 is the coefficient of x^31).
const POLY: u32 = 0x82F6_3B78;

include!("crc_fold.rs");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    fn bitwise(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            }
        }
        !c
    }

    fn random(len: usize, seed: u64) -> Vec<u8> {
        let mut r = SplitMix64::new(seed);
        (0..len).map(|_| r.next_u64() as u8).collect()
    }

    #[test]
    fn known_vectors() {
        for k in [Kernel::Table, Kernel::Clmul, Kernel::Avx512] {
            assert_eq!(update_with(k, 0, b""), 0);
            assert_eq!(update_with(k, 0, b"a"), 0xC1D0_4330);
            assert_eq!(update_with(k, 0, b"123456789"), 0xE306_9283);
            assert_eq!(update_with(k, 0, &[0u8; 32]), 0x8A91_36AA); // RFC 3720, B.4
            assert_eq!(update_with(k, 0, &[0xFFu8; 32]), 0x62A8_AB43);
            assert_eq!(update_with(k, 0, &[0u8; 4096]), bitwise(&[0u8; 4096]));
        }
    }

    #[test]
    fn kernels_agree_on_random_lengths_and_alignments() {
        let data = random(70_000, 22);
        let mut r = SplitMix64::new(6);
        for round in 0..900 {
            let start = (r.next_u64() % 64) as usize;
            let len = match round {
                0..=399 => round,
                _ => (r.next_u64() % 69_000) as usize,
            };
            let piece = &data[start..start + len];
            let seed = r.next_u64() as u32;
            let want = update_table(seed, piece);
            assert_eq!(update_with(Kernel::Clmul, seed, piece), want, "start {start} len {len}");
            assert_eq!(update_with(Kernel::Avx512, seed, piece), want, "avx512 start {start} len {len}");
            if len < 2048 {
                assert_eq!(bitwise(piece), update_table(0, piece), "len {len}");
            }
        }
    }

    #[test]
    fn combine_matches_the_whole() {
        let data = random(200_000, 10);
        let mut r = SplitMix64::new(12);
        for _ in 0..200 {
            let a = (r.next_u64() % 100_000) as usize;
            let b = (r.next_u64() % 100_000) as usize;
            let (x, y) = (&data[..a], &data[a..a + b]);
            assert_eq!(combine(update(0, x), update(0, y), b as u64), update(0, &data[..a + b]), "{a} {b}");
        }
    }
}
