//! Finite floating-point values (`--finite`, docs/FORMATS.md): random bytes read as fp16,
//! bf16, fp32 or fp64 include Inf and NaN (every value whose exponent bits are all ones).
//! [`apply`] clears the top exponent bit of exactly those values, so every value is finite
//! and every other byte is the stream's. The rule is a pure function of the bytes and the
//! dtype; the Java twin (`io.dgen4j.format.Finite`) applies the same one.

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

    /// Masks the whole little-endian elements of `bytes` (a multiple of [`Finite::size`]).
    pub fn apply_whole(self, bytes: &mut [u8]) {
        debug_assert_eq!(bytes.len() % self.size(), 0);
        match self {
            Finite::F16 => mask::<2>(bytes, 0x7C00, 0x4000),
            Finite::Bf16 => mask::<2>(bytes, 0x7F80, 0x4000),
            Finite::F32 => mask::<4>(bytes, 0x7F80_0000, 0x4000_0000),
            Finite::F64 => mask::<8>(bytes, 0x7FF0_0000_0000_0000, 0x4000_0000_0000_0000),
        }
    }
}

/// Clears `top` in every N-byte little-endian word whose `exp` bits are all set. Written
/// branch-free over words so that LLVM vectorizes it.
#[inline]
fn mask<const N: usize>(bytes: &mut [u8], exp: u64, top: u64) {
    for w in bytes.chunks_exact_mut(N) {
        let mut b = [0u8; 8];
        b[..N].copy_from_slice(w);
        let v = u64::from_le_bytes(b);
        let bad = u64::from(v & exp == exp);
        let v = v & !(top * bad);
        w.copy_from_slice(&v.to_le_bytes()[..N]);
    }
}

/// Makes finite the values of `kind` in `bytes`, which hold the stream's bytes from stream
/// offset `offset`, `bytes[0]` being byte `phase` (< the element size) of its element. An
/// element cut by either end of `bytes` is completed from `stream(start, element)`, which
/// must write the stream bytes at `start` into `element`, so that the result depends on the
/// element alone, never on where a fill was cut.
pub fn apply(kind: Finite, offset: u64, phase: usize, bytes: &mut [u8], mut stream: impl FnMut(u64, &mut [u8])) {
    let size = kind.size();
    debug_assert!(phase < size);
    let mut element = [0u8; 8];
    let mut at = 0usize;
    if phase != 0 {
        let n = (size - phase).min(bytes.len());
        stream(offset - phase as u64, &mut element[..size]);
        kind.apply_whole(&mut element[..size]);
        bytes[..n].copy_from_slice(&element[phase..phase + n]);
        at = n;
    }
    let whole = (bytes.len() - at) / size * size;
    kind.apply_whole(&mut bytes[at..at + whole]);
    at += whole;
    if at < bytes.len() {
        let n = bytes.len() - at;
        stream(offset + at as u64, &mut element[..size]);
        kind.apply_whole(&mut element[..size]);
        bytes[at..].copy_from_slice(&element[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    fn finite_f16(bits: u16) -> bool {
        bits & 0x7C00 != 0x7C00
    }

    #[test]
    fn every_value_becomes_finite_and_finite_ones_stay() {
        let mut all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let before = all.clone();
        Finite::F16.apply_whole(&mut all);
        for (i, w) in all.chunks_exact(2).enumerate() {
            let v = u16::from_le_bytes([w[0], w[1]]);
            assert!(finite_f16(v), "{i:#x} -> {v:#x}");
            if finite_f16(i as u16) {
                assert_eq!(&before[2 * i..2 * i + 2], w);
            } else {
                assert_eq!(v, i as u16 & !0x4000);
            }
        }
        let mut r = SplitMix64::new(1);
        let mut f32s: Vec<u8> = (0..100_000).flat_map(|_| (r.next_u64() as u32).to_le_bytes()).collect();
        Finite::F32.apply_whole(&mut f32s);
        assert!(f32s.chunks_exact(4).all(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]).is_finite()));
        let mut f64s: Vec<u8> = (0..100_000).flat_map(|_| (r.next_u64() | 0x7FF0 << 48).to_le_bytes()).collect();
        Finite::F64.apply_whole(&mut f64s);
        assert!(f64s.chunks_exact(8).all(|w| f64::from_le_bytes(w.try_into().unwrap()).is_finite()));
        let mut bf: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        Finite::Bf16.apply_whole(&mut bf);
        // bf16 is the top half of an f32
        assert!(bf.chunks_exact(2).all(|w| f32::from_le_bytes([0, 0, w[0], w[1]]).is_finite()));
    }

    #[test]
    fn cut_elements_equal_the_whole() {
        let mut r = SplitMix64::new(2);
        let stream: Vec<u8> = (0..4096).map(|_| r.next_u64() as u8 | 0x7F).collect();
        for kind in [Finite::F16, Finite::Bf16, Finite::F32, Finite::F64] {
            let mut whole = stream.clone();
            kind.apply_whole(&mut whole);
            for (from, to) in [(0, 4096), (1, 4095), (3, 5), (5, 6), (7, 7), (9, 4000), (4095, 4096)] {
                let mut part = stream[from..to].to_vec();
                apply(kind, from as u64, from % kind.size(), &mut part, |at, e| {
                    e.copy_from_slice(&stream[at as usize..at as usize + e.len()]);
                });
                assert_eq!(part, &whole[from..to], "{kind:?} [{from}, {to})");
            }
        }
        assert_eq!(Finite::of_code(0), Ok(None));
        assert_eq!(Finite::of_code(3), Ok(Some(Finite::F32)));
        assert_eq!(Finite::of_code(5), Err(5));
    }
}
