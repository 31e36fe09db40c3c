//! CRC-32C (Castagnoli: polynomial 0x1EDC6F41 reflected, initial and final value all ones), the
//! checksum S3 carries as `x-amz-checksum-crc32c` and `java.util.zip.CRC32C` computes: the same
//! kernels as [`crate::crc32`] (carry-less multiply folding, 128- or 512-bit, and slicing-by-8
//! tables) with this polynomial's constants, and [`combine`] for pieces summed by several workers.
//! The save pipeline sums each S3 part as the generator fills it: in registers as they are stored
//! where the CPU can ([`crate::layout::fill_summed`]), else while the bytes are in cache.

use crate::crc32::Kernel;

/// The polynomial, reflected (bit 0 is the coefficient of x^31).
const POLY: u32 = 0x82F6_3B78;

include!("crc_fold.rs");

#[cfg(test)]
mod tests {
    use super::fold_tests::bitwise;
    use super::*;

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
}
