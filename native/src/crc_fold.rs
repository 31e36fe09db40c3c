// The polynomial-specific half of a CRC module, shared by `crc32` (IEEE) and `crc32c`
// (Castagnoli), each of which defines `POLY` (reflected) and brings `Kernel` into scope before
// including it: the tables, the kernels and `combine`, every constant derived from `POLY`.

/// Slicing-by-8 tables: `TABLES[0]` is the classic byte table; `TABLES[k][b]` is the CRC
/// register after byte `b` followed by `k` zero bytes.
static TABLES: [[u32; 256]; 8] = tables();

const fn tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut b = 0;
    while b < 256 {
        let mut c = b as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][b] = c;
        b += 1;
    }
    let mut s = 1;
    while s < 8 {
        let mut b = 0;
        while b < 256 {
            let prev = t[s - 1][b];
            t[s][b] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            b += 1;
        }
        s += 1;
    }
    t
}

/// The CRC-32 of `data` continued from `crc`, the CRC of what came before (0 for nothing),
/// with this CPU's best kernel.
pub fn update(crc: u32, data: &[u8]) -> u32 {
    update_with(Kernel::detect(), crc, data)
}

/// [`update`] with a given kernel; a kernel this CPU lacks falls back to the next one it has.
pub fn update_with(kernel: Kernel, crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        let best = Kernel::detect();
        if kernel == Kernel::Avx512 && best == Kernel::Avx512 && data.len() >= clmul::MIN_LEN_512 {
            // SAFETY: the CPU has AVX-512F, VPCLMULQDQ, PCLMULQDQ and SSE4.1 (detected).
            return unsafe { clmul::update512(crc, data) };
        }
        if kernel != Kernel::Table && best != Kernel::Table && data.len() >= clmul::MIN_LEN {
            // SAFETY: the CPU has PCLMULQDQ and SSE4.1 (detected).
            return unsafe { clmul::update(crc, data) };
        }
    }
    let _ = kernel;
    update_table(crc, data)
}

/// The CRC-32 of `data` continued from `crc`, with the slicing-by-8 tables.
pub fn update_table(crc: u32, data: &[u8]) -> u32 {
    let mut c = !crc;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let lo = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) ^ c;
        let hi = u32::from_le_bytes([w[4], w[5], w[6], w[7]]);
        c = TABLES[7][(lo & 0xFF) as usize]
            ^ TABLES[6][((lo >> 8) & 0xFF) as usize]
            ^ TABLES[5][((lo >> 16) & 0xFF) as usize]
            ^ TABLES[4][(lo >> 24) as usize]
            ^ TABLES[3][(hi & 0xFF) as usize]
            ^ TABLES[2][((hi >> 8) & 0xFF) as usize]
            ^ TABLES[1][((hi >> 16) & 0xFF) as usize]
            ^ TABLES[0][(hi >> 24) as usize];
    }
    for &b in words.remainder() {
        c = (c >> 8) ^ TABLES[0][((c ^ b as u32) & 0xFF) as usize];
    }
    !c
}

/// A [`crate::crc32::Fold512`] of this polynomial continuing from `crc`, for a kernel that
/// sums its bytes as it produces them in 512-bit registers; `None` where the CPU lacks
/// AVX-512F with VPCLMULQDQ (then sum with [`update`]).
#[cfg(target_arch = "x86_64")]
pub fn fold_start(crc: u32) -> Option<crate::crc32::Fold512> {
    // SAFETY: the CPU has AVX-512F (Avx512 is detected with VPCLMULQDQ, PCLMULQDQ and SSE4.1).
    (Kernel::detect() == Kernel::Avx512).then(|| unsafe { clmul::fold_start(crc) })
}

/// The CRC of everything fed to `fold`, which came from this polynomial's [`fold_start`].
#[cfg(target_arch = "x86_64")]
pub fn fold_finish(fold: &crate::crc32::Fold512) -> u32 {
    // SAFETY: a Fold512 is made only by `fold_start`, on a CPU with every feature needed.
    unsafe { clmul::fold_finish(fold) }
}

/// a * b modulo the polynomial (reflected: bit 31 is x^0).
const fn mult_mod_p(a: u32, mut b: u32) -> u32 {
    let mut m = 1u32 << 31;
    let mut p = 0u32;
    loop {
        if a & m != 0 {
            p ^= b;
            if a & (m - 1) == 0 {
                return p;
            }
        }
        m >>= 1;
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
    }
}

/// x^(2^k) modulo the polynomial, k in [0, 32).
static X2N: [u32; 32] = x2n_table();

const fn x2n_table() -> [u32; 32] {
    let mut t = [0u32; 32];
    let mut p = 1u32 << 30; // x^1
    t[0] = p;
    let mut n = 1;
    while n < 32 {
        p = mult_mod_p(p, p);
        t[n] = p;
        n += 1;
    }
    t
}

/// x^n modulo the polynomial (reflected), at compile time.
#[cfg(any(target_arch = "x86_64", test))]
const fn x_pow_mod_p(mut n: u64) -> u32 {
    let t = x2n_table();
    let mut p = 1u32 << 31;
    let mut k = 0;
    while n != 0 {
        if n & 1 != 0 {
            p = mult_mod_p(t[k & 31], p);
        }
        n >>= 1;
        k += 1;
    }
    p
}

/// The folding key for a distance of `bits` (Intel's paper: (x^bits mod P)', reflected, shifted
/// left by one bit for the reflected domain's carry-less products).
#[cfg(any(target_arch = "x86_64", test))]
const fn fold_key(bits: u64) -> i64 {
    ((x_pow_mod_p(bits) as u64) << 1) as i64
}

/// floor(x^64 / P) for the Barrett reduction, bit-reflected over its 33 bits (P with its x^32 term).
#[cfg(any(target_arch = "x86_64", test))]
const fn barrett_mu() -> i64 {
    // P unreflected: x^32 plus the reflected constant's bits in reverse order.
    let p: u64 = (1u64 << 32) | POLY.reverse_bits() as u64;
    // Long division of x^64 by P, one quotient bit per step from x^32 down to x^0.
    let mut rem: u128 = 1u128 << 64;
    let mut q: u64 = 0;
    let mut bit: i32 = 32;
    while bit >= 0 {
        if rem & (1u128 << (bit + 32)) != 0 {
            rem ^= (p as u128) << bit;
            q |= 1u64 << bit;
        }
        bit -= 1;
    }
    // reflect the 33-bit quotient
    (q.reverse_bits() >> 31) as i64
}

/// x^(n 2^k) modulo the polynomial.
fn x2n_mod_p(mut n: u64, mut k: usize) -> u32 {
    let mut p = 1u32 << 31; // x^0
    while n != 0 {
        if n & 1 != 0 {
            p = mult_mod_p(X2N[k & 31], p);
        }
        n >>= 1;
        k += 1;
    }
    p
}

/// The CRC-32 of A followed by B, from A's CRC, B's CRC and B's length in bytes (zlib's
/// `crc32_combine`).
pub fn combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    mult_mod_p(x2n_mod_p(len_b, 3), crc_a) ^ crc_b
}

#[cfg(target_arch = "x86_64")]
mod clmul {
    use std::arch::x86_64::*;

    /// Shorter inputs go to the tables (the folding needs four 16-byte blocks to start).
    pub const MIN_LEN: usize = 64;
    /// Shorter inputs go to the 128-bit folding (the wide one needs four 64-byte blocks).
    pub const MIN_LEN_512: usize = 256;

    // Folding constants of the reflected IEEE polynomial: x^(4*128+64) and x^(4*128) mod P
    // (fold by 512 bits), x^(128+64) and x^128 mod P (fold by 128), x^64 mod P (128 -> 64
    // bits), then P and floor(x^64 / P) for the Barrett reduction; each bit-reflected and
    // shifted left by one as the reflected domain requires.
    // The same derived from the polynomial: fold_key(d + 32) for the low and fold_key(d - 32)
    // for the high half of a 128-bit lane folded over a distance of d bits.
    const K512_LO: i64 = super::fold_key(2048 + 32);
    const K512_HI: i64 = super::fold_key(2048 - 32);
    const K128X4_LO: i64 = super::fold_key(512 + 32);
    const K128X4_HI: i64 = super::fold_key(512 - 32);
    const K384_LO: i64 = super::fold_key(384 + 32);
    const K384_HI: i64 = super::fold_key(384 - 32);
    const K256_LO: i64 = super::fold_key(256 + 32);
    const K256_HI: i64 = super::fold_key(256 - 32);
    const K1: i64 = super::fold_key(4 * 128 + 32);
    const K2: i64 = super::fold_key(4 * 128 - 32);
    const K3: i64 = super::fold_key(128 + 32);
    const K4: i64 = super::fold_key(128 - 32);
    const K5: i64 = super::fold_key(64);
    const P_X: i64 = ((super::POLY as u64) << 1 | 1) as i64;
    const U_PRIME: i64 = super::barrett_mu();

    /// The CRC-32 of `data` (at least [`MIN_LEN`] bytes) continued from `crc`.
    ///
    /// # Safety
    /// The CPU must have PCLMULQDQ and SSE4.1.
    #[target_feature(enable = "pclmulqdq,sse2,sse4.1")]
    pub unsafe fn update(crc: u32, data: &[u8]) -> u32 {
        debug_assert!(data.len() >= MIN_LEN);
        let mut blocks = data.chunks_exact(16);
        let mut next = || {
            let b = blocks.next().expect("a 16-byte block");
            // SAFETY: `b` is 16 readable bytes; loadu has no alignment requirement.
            unsafe { _mm_loadu_si128(b.as_ptr().cast::<__m128i>()) }
        };
        let mut x3 = next();
        let mut x2 = next();
        let mut x1 = next();
        let mut x0 = next();
        // The register of the CRC so far enters as the first 32 bits of the data.
        x3 = _mm_xor_si128(x3, _mm_cvtsi32_si128(!crc as i32));
        let mut left = data.len() / 16 - 4;
        let k1k2 = _mm_set_epi64x(K2, K1);
        while left >= 4 {
            x3 = fold(x3, next(), k1k2);
            x2 = fold(x2, next(), k1k2);
            x1 = fold(x1, next(), k1k2);
            x0 = fold(x0, next(), k1k2);
            left -= 4;
        }
        let k3k4 = _mm_set_epi64x(K4, K3);
        let mut x = fold(x3, x2, k3k4);
        x = fold(x, x1, k3k4);
        x = fold(x, x0, k3k4);
        while left > 0 {
            x = fold(x, next(), k3k4);
            left -= 1;
        }
        // SAFETY: same features.
        unsafe { reduce(x, &data[data.len() / 16 * 16..]) }
    }

    /// The CRC-32 of `data` (at least [`MIN_LEN_512`] bytes) continued from `crc`, folding
    /// four 512-bit accumulators (256 bytes a round), then one, then its four 128-bit lanes
    /// into one, and finishing as [`update`] does.
    ///
    /// # Safety
    /// The CPU must have AVX-512F, VPCLMULQDQ, PCLMULQDQ and SSE4.1.
    #[target_feature(enable = "avx512f,vpclmulqdq,pclmulqdq,sse2,sse4.1")]
    pub unsafe fn update512(crc: u32, data: &[u8]) -> u32 {
        debug_assert!(data.len() >= MIN_LEN_512);
        let mut blocks = data.chunks_exact(64);
        let mut next = || {
            let b = blocks.next().expect("a 64-byte block");
            // SAFETY: `b` is 64 readable bytes; loadu has no alignment requirement.
            unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
        };
        let mut x0 = next();
        let mut x1 = next();
        let mut x2 = next();
        let mut x3 = next();
        x0 = _mm512_xor_si512(x0, _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, !crc as i32));
        let mut left = data.len() / 64 - 4;
        let k4 = _mm512_set_epi64(K512_HI, K512_LO, K512_HI, K512_LO, K512_HI, K512_LO, K512_HI, K512_LO);
        while left >= 4 {
            x0 = fold512(x0, next(), k4);
            x1 = fold512(x1, next(), k4);
            x2 = fold512(x2, next(), k4);
            x3 = fold512(x3, next(), k4);
            left -= 4;
        }
        let mut x = merge512([x0, x1, x2, x3]);
        let k1 = key128x4();
        while left > 0 {
            x = fold512(x, next(), k1);
            left -= 1;
        }
        let lanes = lanes512(x);
        let done = data.len() / 64 * 64;
        let rest = &data[done..];
        let k3k4 = _mm_set_epi64x(K4, K3);
        let mut y = lanes;
        let mut blocks = rest.chunks_exact(16);
        for b in &mut blocks {
            // SAFETY: `b` is 16 readable bytes.
            y = fold(y, unsafe { _mm_loadu_si128(b.as_ptr().cast()) }, k3k4);
        }
        // SAFETY: same features.
        unsafe { reduce(y, blocks.remainder()) }
    }

    /// The key that folds each 128-bit lane of a 512-bit accumulator over one 64-byte block.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn key128x4() -> __m512i {
        _mm512_set_epi64(K128X4_HI, K128X4_LO, K128X4_HI, K128X4_LO, K128X4_HI, K128X4_LO, K128X4_HI, K128X4_LO)
    }

    /// Four accumulators whose last blocks are consecutive (`x[0]`'s first) folded into one.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn merge512(x: [__m512i; 4]) -> __m512i {
        let k1 = key128x4();
        let mut m = fold512(x[0], x[1], k1);
        m = fold512(m, x[2], k1);
        fold512(m, x[3], k1)
    }

    /// The four 128-bit lanes of `x`, the first earliest in the data, each folded over its
    /// distance from the last into one.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq,pclmulqdq,sse2")]
    fn lanes512(x: __m512i) -> __m128i {
        let l0 = _mm512_extracti32x4_epi32::<0>(x);
        let l1 = _mm512_extracti32x4_epi32::<1>(x);
        let l2 = _mm512_extracti32x4_epi32::<2>(x);
        let l3 = _mm512_extracti32x4_epi32::<3>(x);
        _mm_xor_si128(
            _mm_xor_si128(l3, times(l0, _mm_set_epi64x(K384_HI, K384_LO))),
            _mm_xor_si128(times(l1, _mm_set_epi64x(K256_HI, K256_LO)), times(l2, _mm_set_epi64x(K4, K3))),
        )
    }

    /// A [`crate::crc32::Fold512`] of this polynomial continuing from `crc`, nothing fed yet.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn fold_start(crc: u32) -> crate::crc32::Fold512 {
        crate::crc32::Fold512 {
            x: [_mm512_setzero_si512(); 4],
            first: _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, !crc as i32),
            k4: _mm512_set_epi64(K512_HI, K512_LO, K512_HI, K512_LO, K512_HI, K512_LO, K512_HI, K512_LO),
            fed: 0,
            start: crc,
        }
    }

    /// The CRC of everything fed to `f` (from [`fold_start`] of this polynomial): its
    /// accumulators folded into one, then into 128 bits, reduced as [`update512`] does.
    /// Zero-filled accumulators fold to zero, so the state needs no first four blocks.
    ///
    /// # Safety
    /// The CPU must have AVX-512F, VPCLMULQDQ, PCLMULQDQ and SSE4.1.
    #[target_feature(enable = "avx512f,vpclmulqdq,pclmulqdq,sse2,sse4.1")]
    pub unsafe fn fold_finish(f: &crate::crc32::Fold512) -> u32 {
        debug_assert_eq!(f.fed % 256, 0);
        if f.fed == 0 {
            return f.start;
        }
        // SAFETY: same features.
        unsafe { reduce(lanes512(merge512(f.x)), &[]) }
    }

    /// a's two 64-bit halves times the keys' (low with low, high with high), added.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn times(a: __m128i, keys: __m128i) -> __m128i {
        _mm_xor_si128(_mm_clmulepi64_si128::<0x00>(a, keys), _mm_clmulepi64_si128::<0x11>(a, keys))
    }

    /// Each 128-bit lane of a folded over the keys' distance into b.
    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn fold512(a: __m512i, b: __m512i, keys: __m512i) -> __m512i {
        let lo = _mm512_clmulepi64_epi128::<0x00>(a, keys);
        let hi = _mm512_clmulepi64_epi128::<0x11>(a, keys);
        _mm512_ternarylogic_epi64::<0x96>(b, lo, hi) // b ^ lo ^ hi
    }

    /// The 128-bit remainder `x` reduced to the CRC register, then `tail` (under 16 bytes) by table.
    ///
    /// # Safety
    /// The CPU must have PCLMULQDQ and SSE4.1.
    #[target_feature(enable = "pclmulqdq,sse2,sse4.1")]
    unsafe fn reduce(x: __m128i, tail: &[u8]) -> u32 {
        let k3k4 = _mm_set_epi64x(K4, K3);
        let low32 = _mm_set_epi32(0, 0, 0, !0);
        // 128 -> 64 bits.
        let x = _mm_xor_si128(_mm_clmulepi64_si128::<0x10>(x, k3k4), _mm_srli_si128::<8>(x));
        let x = _mm_xor_si128(
            _mm_clmulepi64_si128::<0x00>(_mm_and_si128(x, low32), _mm_set_epi64x(0, K5)),
            _mm_srli_si128::<4>(x),
        );
        // Barrett reduction to 32 bits.
        let pu = _mm_set_epi64x(U_PRIME, P_X);
        let t1 = _mm_clmulepi64_si128::<0x10>(_mm_and_si128(x, low32), pu);
        let t2 = _mm_clmulepi64_si128::<0x00>(_mm_and_si128(t1, low32), pu);
        let register = _mm_extract_epi32::<1>(_mm_xor_si128(x, t2)) as u32;
        super::update_table(!register, tail)
    }

    /// a folded over 128 bits (times the keys) into b.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn fold(a: __m128i, b: __m128i, keys: __m128i) -> __m128i {
        let lo = _mm_clmulepi64_si128::<0x00>(a, keys);
        let hi = _mm_clmulepi64_si128::<0x11>(a, keys);
        _mm_xor_si128(_mm_xor_si128(b, lo), hi)
    }
}

/// The tests every polynomial's module shares: the kernels against the tables and the
/// definition, continuation, and `combine`.
#[cfg(test)]
mod fold_tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Bit by bit, straight from the definition.
    pub(super) fn bitwise(data: &[u8]) -> u32 {
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
    fn kernels_agree_on_random_lengths_and_alignments() {
        let data = random(70_000, 21);
        let mut r = SplitMix64::new(5);
        for round in 0..900 {
            let start = (r.next_u64() % 64) as usize;
            let len = match round {
                0..=399 => round, // every short length, around the 64- and 256-byte thresholds
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
    fn update_continues() {
        let data = random(10_000, 3);
        for cut in [0, 1, 63, 64, 65, 4096, 9_999, 10_000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(update(update(0, a), b), update(0, &data), "cut {cut}");
        }
    }

    #[test]
    fn combine_matches_the_whole() {
        let data = random(200_000, 9);
        let mut r = SplitMix64::new(11);
        for _ in 0..200 {
            let a = (r.next_u64() % 100_000) as usize;
            let b = (r.next_u64() % 100_000) as usize;
            let (x, y) = (&data[..a], &data[a..a + b]);
            assert_eq!(combine(update(0, x), update(0, y), b as u64), update(0, &data[..a + b]), "{a} {b}");
        }
        assert_eq!(combine(0x1234_5678, 0, 0), 0x1234_5678);
        // Lengths beyond memory: combine of zeros equals the CRC continued over zeros.
        let zeros = vec![0u8; 1 << 20];
        let z = update(0, &zeros);
        let mut whole = 0;
        for _ in 0..3 {
            whole = update(whole, &zeros);
        }
        assert_eq!(combine(combine(z, z, 1 << 20), z, 1 << 20), whole);
    }
}
