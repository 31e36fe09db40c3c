//! Finite floating-point values (`--finite`, docs/FORMATS.md): random bytes read as fp16,
//! bf16, fp32 or fp64 include Inf and NaN (every value whose exponent bits are all ones).
//! [`apply`] clears the top exponent bit of every value (bit 6 of the element's last byte,
//! little-endian), so every value is finite and smaller than 2 in magnitude (a forward pass
//! through such weights stays finite), and every other bit is the stream's. The rule is a
//! pure function of each byte and its place in its element; the Java twin
//! (`io.dgen4j.format.Finite`) applies the same one.

/// A floating-point element type whose values [`apply`] makes finite; the codes are the
/// `DGEN4J_FINITE_*` constants of the C header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finite {
    /// IEEE half: exponent bits 0x7C00.
    F16 = 1,
    /// bfloat16: exponent bits 0x7F80.
    Bf16 = 2,
    /// IEEE single: exponent bits 0x7F80_0000.
    F32 = 3,
    /// IEEE double: exponent bits 0x7FF0_0000_0000_0000.
    F64 = 4,
}

impl Finite {
    /// The type of a header code: `Ok(None)` for 0 (no masking), `Err` for an unknown code.
    pub fn of_code(code: u32) -> Result<Option<Finite>, u32> {
        Ok(Some(match code {
            0 => return Ok(None),
            1 => Finite::F16,
            2 => Finite::Bf16,
            3 => Finite::F32,
            4 => Finite::F64,
            _ => return Err(code),
        }))
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Finite::F16 | Finite::Bf16 => 2,
            Finite::F32 => 4,
            Finite::F64 => 8,
        }
    }
}

/// The top exponent bit of every format, in the element's last (most significant) byte.
const TOP_EXPONENT_BIT: u8 = 0x40;

/// The AND mask of a little-endian 8-byte word whose first byte is byte `phase` of its `kind`
/// element: every byte 0xFF but each element's last, which loses [`TOP_EXPONENT_BIT`]. Element
/// sizes divide 8, so every word from there on has the same mask.
pub fn word_mask(kind: Finite, phase: usize) -> u64 {
    let size = kind.size();
    let mut pattern = [0xFFu8; 8];
    for (j, b) in pattern.iter_mut().enumerate() {
        if (phase + j) % size == size - 1 {
            *b = !TOP_EXPONENT_BIT;
        }
    }
    u64::from_le_bytes(pattern)
}

/// Makes finite the values of `kind` in `bytes`, `bytes[0]` being byte `phase` (below the
/// element size) of its element: clears [`TOP_EXPONENT_BIT`] of each element's last byte.
/// Elements cut by either end need nothing else (the rule is per byte).
pub fn apply(kind: Finite, phase: usize, bytes: &mut [u8]) {
    debug_assert!(phase < kind.size());
    // Element sizes divide 8, so every 8-byte word of `bytes` has the same pattern: one AND per
    // word, which LLVM vectorizes.
    let mask = word_mask(kind, phase);
    let pattern = mask.to_le_bytes();
    let mut words = bytes.chunks_exact_mut(8);
    for w in &mut words {
        let v = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]) & mask;
        w.copy_from_slice(&v.to_le_bytes());
    }
    for (b, m) in words.into_remainder().iter_mut().zip(pattern) {
        *b &= m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn every_value_becomes_finite_and_small() {
        let mut all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        apply(Finite::F16, 0, &mut all);
        for (i, w) in all.chunks_exact(2).enumerate() {
            let v = u16::from_le_bytes([w[0], w[1]]);
            assert_eq!(v, i as u16 & !0x4000);
            assert!(v & 0x7C00 != 0x7C00 && (v & 0x7C00) >> 10 <= 15, "{i:#x} -> {v:#x}: finite, below 2");
        }
        let mut bf: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        apply(Finite::Bf16, 0, &mut bf);
        // bf16 is the top half of an f32
        assert!(bf.chunks_exact(2).all(|w| f32::from_le_bytes([0, 0, w[0], w[1]]).abs() < 2.0));
        let mut r = SplitMix64::new(1);
        let mut f32s: Vec<u8> = (0..100_000).flat_map(|_| (r.next_u64() as u32).to_le_bytes()).collect();
        apply(Finite::F32, 0, &mut f32s);
        assert!(f32s.chunks_exact(4).all(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]).abs() < 2.0));
        let mut f64s: Vec<u8> = (0..100_000).flat_map(|_| (r.next_u64() | 0x7FF0 << 48).to_le_bytes()).collect();
        apply(Finite::F64, 0, &mut f64s);
        assert!(f64s.chunks_exact(8).all(|w| f64::from_le_bytes(w.try_into().unwrap()).abs() < 2.0));
    }

    #[test]
    fn cut_pieces_equal_the_whole() {
        let mut r = SplitMix64::new(2);
        let stream: Vec<u8> = (0..4096).map(|_| r.next_u64() as u8).collect();
        for kind in [Finite::F16, Finite::Bf16, Finite::F32, Finite::F64] {
            let mut whole = stream.clone();
            apply(kind, 0, &mut whole);
            for (from, to) in [(0, 4096), (1, 4095), (3, 5), (5, 6), (7, 7), (9, 4000), (4095, 4096)] {
                let mut part = stream[from..to].to_vec();
                apply(kind, from % kind.size(), &mut part);
                assert_eq!(part, &whole[from..to], "{kind:?} [{from}, {to})");
            }
        }
        assert_eq!(Finite::of_code(0), Ok(None));
        assert_eq!(Finite::of_code(3), Ok(Some(Finite::F32)));
        assert_eq!(Finite::of_code(5), Err(5));
    }
}
