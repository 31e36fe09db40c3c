//! The data model of docs/FORMAT.md sections 2 to 4: the validated [`Spec`], the number of
//! distinct blocks, the keyed Feistel permutation that maps blocks to unique blocks, the
//! content of a stripe, and [`fill`], which writes any byte range of the stream.

#[cfg(target_arch = "x86_64")]
use crate::crc32::Fold512;
use crate::error::{Error, ErrorKind};
use crate::finite::{self, Finite};
use crate::rng::{mix64, SplitMix64};
use crate::simd::{self, Level, Masks};
use crate::{crc32, crc32c};

/// `"dgen4j-1"`: the tag of the seed.
pub const T_SEED: u64 = 0x6467_656E_346A_2D31;
/// `"perm-key"`: the tag of the permutation keys.
pub const T_PERM: u64 = 0x7065_726D_2D6B_6579;
/// `"block-id"`: the tag of a unique block.
pub const T_BLOCK: u64 = 0x626C_6F63_6B2D_6964;
/// `"stripe-#"`: the tag of a stripe.
pub const T_STRIPE: u64 = 0x7374_7269_7065_2D23;

/// Bytes of a sector: the unit of the compression ratio.
pub const SECTOR: usize = 512;
/// Largest stripe: the unit of random access inside a block.
pub const MAX_STRIPE: usize = 4096;
/// Smallest block size.
pub const MIN_BLOCK: u64 = 512;
/// Largest block size (64 MiB).
pub const MAX_BLOCK: u64 = 64 << 20;
/// Largest compression ratio the format can produce, 512 / 3.5 = 1024 / 7: above it the
/// clamp of the random bytes per sector to 1 binds and the bytes no longer follow the ratio
/// (docs/FORMAT.md section 2).
pub const MAX_COMPRESS: f64 = SECTOR as f64 / 3.5;

/// A validated stream specification and every quantity derived from it.
#[derive(Clone, Debug)]
pub struct Spec {
    seed: u64,
    size: u64,
    block: u64,
    dedup: f64,
    compress: f64,
    key: u64,
    blocks: u64,
    distinct: u64,
    stripe: usize,
    random_bytes: usize,
    half: u32,
    mask: u64,
    round_keys: [u64; 4],
    masks: Box<Masks>,
}

impl Spec {
    /// Validates the five parameters of the stream and derives its quantities.
    /// `block` must be a power of two in `[512, 64 MiB]`; `dedup` and `compress` finite
    /// and `>= 1`.
    pub fn new(seed: u64, size: u64, block: u64, dedup: f64, compress: f64) -> Result<Spec, Error> {
        if !block.is_power_of_two() || !(MIN_BLOCK..=MAX_BLOCK).contains(&block) {
            return Err(Error::invalid(format!(
                "block_size {block} is not a power of two in [{MIN_BLOCK}, {MAX_BLOCK}]"
            )));
        }
        if !(dedup.is_finite() && dedup >= 1.0) {
            return Err(Error::invalid(format!("dedup {dedup} is not a finite number >= 1")));
        }
        if !(compress.is_finite() && compress >= 1.0) {
            return Err(Error::invalid(format!("compress {compress} is not a finite number >= 1")));
        }
        if compress > MAX_COMPRESS {
            return Err(Error::invalid(format!(
                "compress {compress} is above the maximum the format can produce, {MAX_COMPRESS:.4}"
            )));
        }
        let key = mix64(seed ^ T_SEED);
        let blocks = size / block + u64::from(size % block != 0);
        let distinct = if blocks == 0 {
            0
        } else {
            // Float-to-int `as` saturates; the clamp keeps the result in [1, n].
            ((blocks as f64 / dedup + 0.5).floor() as u64).clamp(1, blocks)
        };
        let random_bytes = if compress == 1.0 {
            SECTOR
        } else {
            ((SECTOR as f64 / compress + 0.5).floor() as i64 - 3).max(1) as usize
        };
        let mut k = 2u32;
        while (1u64 << k) < blocks {
            k += 2;
        }
        let half = k / 2;
        let mut sm = SplitMix64::new(key ^ T_PERM);
        let round_keys = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        Ok(Spec {
            seed,
            size,
            block,
            dedup,
            compress,
            key,
            blocks,
            distinct,
            stripe: block.min(MAX_STRIPE as u64) as usize,
            random_bytes,
            half,
            mask: (1u64 << half) - 1,
            round_keys,
            masks: Box::new(Masks::new(random_bytes)),
        })
    }

    /// The seed of the stream.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The length of the stream in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The block size (dedup granularity) in bytes.
    pub fn block_size(&self) -> u64 {
        self.block
    }

    /// The requested dedup ratio.
    pub fn dedup(&self) -> f64 {
        self.dedup
    }

    /// The requested compression ratio.
    pub fn compress(&self) -> f64 {
        self.compress
    }

    /// Number of blocks `n = ceil(size / block)`; the last one may be partial.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// Number of distinct whole blocks (section 2).
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    /// Stripe size: `min(block, 4096)`.
    pub fn stripe(&self) -> usize {
        self.stripe
    }

    /// Random bytes at the head of every 512-byte sector (`r` of section 2).
    pub fn random_bytes(&self) -> usize {
        self.random_bytes
    }

    /// Checks that `[offset, offset + len)` lies inside the stream.
    pub fn check_range(&self, offset: u64, len: u64) -> Result<(), Error> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(Error::new(
                ErrorKind::OutOfRange,
                format!("fill range [offset {offset}, len {len}) exceeds stream size {}", self.size),
            )),
        }
    }

    /// One pass of the 4-round Feistel network over `2 * half` bits.
    #[inline]
    fn feistel(&self, x: u64) -> u64 {
        let (mut left, mut right) = (x >> self.half, x & self.mask);
        for rk in self.round_keys {
            let next = left ^ (mix64(right ^ rk) & self.mask);
            left = right;
            right = next;
        }
        (left << self.half) | right
    }

    /// The keyed permutation `P` of `[0, n)` (Feistel restricted by cycle walking).
    /// `i` must be below [`Spec::blocks`].
    pub fn permute(&self, i: u64) -> u64 {
        debug_assert!(i < self.blocks);
        let mut y = self.feistel(i);
        while y >= self.blocks {
            y = self.feistel(y);
        }
        y
    }

    /// The unique block `u(i)` shown by block `i` (section 3).
    #[inline]
    pub fn unique_of(&self, i: u64) -> u64 {
        if self.distinct == self.blocks {
            i
        } else {
            self.permute(i) % self.distinct
        }
    }

    /// The key `bk` of unique block `u`.
    #[inline]
    fn block_key(&self, u: u64) -> u64 {
        mix64(self.key ^ mix64(u ^ T_BLOCK))
    }
}

/// The key `sk` of stripe `q` of the unique block with key `bk`.
#[inline]
fn stripe_key(bk: u64, q: u64) -> u64 {
    mix64(bk ^ mix64(q ^ T_STRIPE))
}

/// One stripe-sized step of a walk over a byte range of the stream ([`Spec::walk`]): `n`
/// bytes at stream offset `pos`, which are bytes `[in_stripe, in_stripe + n)` of the stripe
/// whose key is `sk`. `n` equals the stripe size exactly when the step is a whole stripe.
#[derive(Clone, Copy, Debug)]
struct Step {
    pos: u64,
    sk: u64,
    in_stripe: usize,
    n: usize,
}

/// A stripe-aligned scratch buffer: the stripes cut by either end of a range are generated here.
#[repr(C, align(64))]
struct Scratch([u8; MAX_STRIPE]);

impl Scratch {
    fn new() -> Scratch {
        Scratch([0u8; MAX_STRIPE])
    }

    /// The bytes `[s.in_stripe, s.in_stripe + s.n)` of the stripe of step `s`, generated here
    /// (only the sectors up to the end of the step are).
    fn stripe_part(&mut self, spec: &Spec, s: Step, level: Level) -> &[u8] {
        let end = (s.in_stripe + s.n).div_ceil(SECTOR) * SECTOR;
        // SAFETY: the scratch holds MAX_STRIPE >= end bytes; `end` is a multiple of 512; the
        // caller passes a supported `level` ([`supported_or_scalar`]).
        unsafe { simd::fill_stripe(level, s.sk, self.0.as_mut_ptr(), end, &spec.masks, false) };
        &self.0[s.in_stripe..s.in_stripe + s.n]
    }
}

/// `level` when this CPU supports it, else the scalar kernel.
fn supported_or_scalar(level: Level) -> Level {
    if level.supported() {
        level
    } else {
        Level::Scalar
    }
}

impl Spec {
    /// This stream as `--finite` payloads hold it: a copy whose sector masks also clear the top
    /// exponent bit of every `kind` value ([`finite::apply`]), stream byte `p` being byte
    /// `(phase0 + p) % size` of its element. The kernels apply the masks as they generate, so
    /// fills and fused compares of the copy give and check the masked bytes in their one pass.
    /// (Sectors start at multiples of 512, which every element size divides: one word mask serves
    /// every word of every sector.)
    pub fn with_finite(&self, kind: Finite, phase0: usize) -> Spec {
        let mut s = self.clone();
        let m = finite::word_mask(kind, phase0 % kind.size());
        for step in s.masks.0.iter_mut() {
            for w in step.iter_mut() {
                *w &= m;
            }
        }
        s
    }
}

impl Spec {
    /// Walks the stream bytes `[offset, offset + len)` stripe by stripe, in order: the one walk
    /// that both [`fill_with`] and [`first_mismatch_with`] take, so that what is generated and
    /// what is checked can never disagree. The key of a block is computed once per block.
    /// `step` returns `Some` to stop the walk early with that value.
    #[inline(always)]
    fn walk<T>(&self, offset: u64, len: usize, mut step: impl FnMut(Step) -> Option<T>) -> Option<T> {
        let stripe = self.stripe;
        let mut cached: Option<(u64, u64)> = None; // (block index, block key)
        let mut pos = offset;
        let mut left = len;
        while left > 0 {
            let i = pos / self.block;
            let bk = match cached {
                Some((ci, bk)) if ci == i => bk,
                _ => {
                    let bk = self.block_key(self.unique_of(i));
                    cached = Some((i, bk));
                    bk
                }
            };
            let in_block = pos % self.block;
            let q = in_block / stripe as u64;
            let in_stripe = (in_block % stripe as u64) as usize;
            let n = (stripe - in_stripe).min(left);
            if let Some(out) = step(Step { pos, sk: stripe_key(bk, q), in_stripe, n }) {
                return Some(out);
            }
            left -= n;
            pos += n as u64;
        }
        None
    }
}

/// Writes the stream bytes `[offset, offset + buf.len())` into `buf` with this process's
/// kernel ([`simd::Dispatch`]) and ordinary stores. Fails with `OutOfRange` when the range
/// exceeds the stream.
pub fn fill(spec: &Spec, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
    fill_with(spec, offset, buf, simd::Dispatch::get().level, false)
}

/// Writes the stream bytes `[offset, offset + buf.len())` into `buf` with the kernel of
/// `level` (which the CPU must support; an unsupported one falls back to scalar), and
/// non-temporal stores when `nt` (followed by a store fence). Whole stripes are generated
/// in place; a stripe cut by either end of the range goes through a 4 KiB scratch buffer.
pub fn fill_with(spec: &Spec, offset: u64, buf: &mut [u8], level: Level, nt: bool) -> Result<(), Error> {
    spec.check_range(offset, buf.len() as u64)?;
    let level = supported_or_scalar(level);
    let mut scratch = Scratch::new();
    let mut out = buf;
    spec.walk(offset, out.len(), |s| {
        let (dst, rest) = std::mem::take(&mut out).split_at_mut(s.n);
        if s.n == spec.stripe {
            // SAFETY: `dst` is an exclusive slice of exactly one stripe (a multiple of 512
            // bytes), and `level` is supported (checked above).
            unsafe { simd::fill_stripe(level, s.sk, dst.as_mut_ptr(), s.n, &spec.masks, nt) };
        } else {
            dst.copy_from_slice(scratch.stripe_part(spec, s, level));
        }
        out = rest;
        None::<()>
    });
    if nt {
        simd::store_fence();
    }
    Ok(())
}

/// The checksum a fill computes as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sum {
    /// CRC-32 (IEEE: zip's, gzip's).
    Crc32,
    /// CRC-32C (Castagnoli: S3's `x-amz-checksum-crc32c`).
    Crc32c,
}

impl Sum {
    /// `crc` continued over `data`.
    pub fn update(self, crc: u32, data: &[u8]) -> u32 {
        match self {
            Sum::Crc32 => crc32::update(crc, data),
            Sum::Crc32c => crc32c::update(crc, data),
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn fold_start(self, crc: u32) -> Option<Fold512> {
        match self {
            Sum::Crc32 => crc32::fold_start(crc),
            Sum::Crc32c => crc32c::fold_start(crc),
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn fold_finish(self, fold: &Fold512) -> u32 {
        match self {
            Sum::Crc32 => crc32::fold_finish(fold),
            Sum::Crc32c => crc32c::fold_finish(fold),
        }
    }
}

/// Whether [`fill_summed`] sums in registers as it generates with the kernel of `level`: the
/// AVX-512 generator on a CPU with VPCLMULQDQ, once the fused kernel has reproduced the scalar
/// kernel's bytes and the tables' CRCs on a few stripes (checked once per process, as
/// [`simd::Dispatch`] checks each kernel: a kernel that disagrees is never used).
pub fn sums_in_registers(level: Level) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static AGREES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        level == Level::Avx512
            && supported_or_scalar(level) == level
            && crc32::Kernel::detect() == crc32::Kernel::Avx512
            && *AGREES.get_or_init(summed_kernel_agrees)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = level;
        false
    }
}

/// The fused kernel against the scalar kernel and the tables: both mask kinds, both store
/// kinds, both sums, over a range with cut stripes at both ends.
#[cfg(target_arch = "x86_64")]
fn summed_kernel_agrees() -> bool {
    let (offset, len) = (1000u64, 10 * 4096 + 700);
    let mut backing = vec![0u8; len + 64];
    let at = backing.as_ptr().align_offset(64);
    let got = &mut backing[at..at + len];
    let mut want = vec![0u8; len];
    [1.0, 3.0].into_iter().all(|compress| {
        let Ok(spec) = Spec::new(0x5EED, 1 << 20, 4096, 1.0, compress) else { return false };
        if fill_with(&spec, offset, &mut want, Level::Scalar, false).is_err() {
            return false;
        }
        [false, true].into_iter().all(|nt| {
            [(Sum::Crc32, crc32::update_table(7, &want)), (Sum::Crc32c, crc32c::update_table(7, &want))]
                .into_iter()
                .all(|(sum, crc)| {
                    got.fill(0xA5);
                    fill_summed_in_registers(&spec, offset, got, nt, sum, 7).is_ok_and(|c| c == crc) && *got == want[..]
                })
        })
    })
}

/// [`fill_with`] that also returns the `sum` of the bytes written, continued from `crc`.
/// Where [`sums_in_registers`] is true for `level`, each whole stripe is summed as the
/// generator stores it ([`simd::fill_stripe_summed`]), so the bytes are never read back and
/// may bypass the caches (`nt`); otherwise, and for the stripes cut by either end of the
/// range, the bytes are summed after they are written.
pub fn fill_summed(spec: &Spec, offset: u64, buf: &mut [u8], level: Level, nt: bool, sum: Sum, crc: u32) -> Result<u32, Error> {
    #[cfg(target_arch = "x86_64")]
    if sums_in_registers(level) {
        return fill_summed_in_registers(spec, offset, buf, nt, sum, crc);
    }
    fill_with(spec, offset, buf, level, nt)?;
    Ok(sum.update(crc, buf))
}

/// [`fill_summed`] with the AVX-512 kernels (the caller checked that the CPU has them).
#[cfg(target_arch = "x86_64")]
fn fill_summed_in_registers(spec: &Spec, offset: u64, buf: &mut [u8], nt: bool, sum: Sum, crc: u32) -> Result<u32, Error> {
    spec.check_range(offset, buf.len() as u64)?;
    let mut scratch = Scratch::new();
    let mut crc = crc;
    let mut fold: Option<Fold512> = None;
    let mut out = buf;
    spec.walk(offset, out.len(), |s| {
        let (dst, rest) = std::mem::take(&mut out).split_at_mut(s.n);
        if s.n == spec.stripe {
            let f = match fold.as_mut() {
                Some(f) => f,
                None => fold.insert(sum.fold_start(crc).expect("the CPU folds with AVX-512 (checked by the caller)")),
            };
            // SAFETY: `dst` is an exclusive slice of exactly one stripe (a multiple of 512
            // bytes); the CPU has AVX-512F and VPCLMULQDQ (a Fold512 exists).
            unsafe { simd::fill_stripe_summed(s.sk, dst.as_mut_ptr(), s.n, &spec.masks, nt, f) };
        } else {
            if let Some(f) = fold.take() {
                crc = sum.fold_finish(&f);
            }
            dst.copy_from_slice(scratch.stripe_part(spec, s, Level::Avx512));
            crc = sum.update(crc, dst);
        }
        out = rest;
        None::<()>
    });
    if nt {
        simd::store_fence();
    }
    Ok(fold.map_or(crc, |f| sum.fold_finish(&f)))
}

/// The stream offset of the first byte of `data` that differs from stream bytes
/// `[offset, offset + data.len())`, or `None` when they are equal, with this process's
/// kernel ([`simd::Dispatch`]). Fails with `OutOfRange` when the range exceeds the stream.
pub fn first_mismatch(spec: &Spec, offset: u64, data: &[u8]) -> Result<Option<u64>, Error> {
    first_mismatch_with(spec, offset, data, simd::Dispatch::get().level)
}

/// [`first_mismatch`] with the kernel of `level` (an unsupported one falls back to scalar).
/// Whole stripes are regenerated in registers and compared as they are generated
/// ([`simd::stripe_matches`]), with no store; a stripe cut by either end of the range, or
/// one that differs (to find the exact byte), goes through a 4 KiB scratch buffer.
pub fn first_mismatch_with(spec: &Spec, offset: u64, data: &[u8], level: Level) -> Result<Option<u64>, Error> {
    spec.check_range(offset, data.len() as u64)?;
    let level = supported_or_scalar(level);
    let mut scratch = Scratch::new();
    let mut rest = data;
    Ok(spec.walk(offset, data.len(), |s| {
        let (got, tail) = rest.split_at(s.n);
        rest = tail;
        // SAFETY: `got` holds exactly one stripe (a multiple of 512 bytes) when n is the
        // stripe size; `level` is supported (checked above).
        let whole_ok =
            s.n == spec.stripe && unsafe { simd::stripe_matches(level, s.sk, got.as_ptr(), s.n, &spec.masks) };
        if whole_ok {
            return None;
        }
        let want = scratch.stripe_part(spec, s, level);
        want.iter().zip(got).position(|(a, b)| a != b).map(|at| s.pos + at as u64)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(size: u64, block: u64, dedup: f64, compress: f64) -> Spec {
        Spec::new(1, size, block, dedup, compress).unwrap()
    }

    #[test]
    fn derived_quantities() {
        assert_eq!(spec(0, 4096, 2.0, 1.0).distinct(), 0);
        assert_eq!(spec(1, 4096, 2.0, 1.0).blocks(), 1);
        assert_eq!(spec(1000 * 4096, 4096, 1.5, 1.0).distinct(), 667);
        assert_eq!(spec(1000 * 4096, 4096, 2.0, 1.0).distinct(), 500);
        assert_eq!(spec(1000 * 4096 - 1, 4096, 1.0, 1.0).distinct(), 1000);
        assert_eq!(spec(1000 * 4096, 4096, 5000.0, 1.0).distinct(), 1);
        assert_eq!(spec(4096, 4096, 1.0, 1.0).random_bytes(), 512);
        assert_eq!(spec(4096, 4096, 1.0, 2.0).random_bytes(), 253);
        assert_eq!(spec(4096, 4096, 1.0, 3.0).random_bytes(), 168);
        assert_eq!(spec(4096, 4096, 1.0, MAX_COMPRESS).random_bytes(), 1);
        assert!(Spec::new(1, 4096, 4096, 1.0, 1e300).is_err(), "above the maximum");
        assert_eq!(spec(4096, 1024, 1.0, 1.0).stripe(), 1024);
        assert_eq!(spec(4096, 1 << 20, 1.0, 1.0).stripe(), 4096);
        // The largest stream: 2^55 blocks of 512 bytes (k = 56).
        assert_eq!(spec(u64::MAX, 512, 1.0, 1.0).blocks(), 1 << 55);
    }

    #[test]
    fn validation_messages() {
        let e = Spec::new(0, 0, 1000, 1.0, 1.0).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(e.message(), "block_size 1000 is not a power of two in [512, 67108864]");
        for b in [0, 256, 128 << 20, u64::MAX] {
            assert!(Spec::new(0, 0, b, 1.0, 1.0).is_err(), "block {b}");
        }
        for d in [f64::NAN, f64::INFINITY, 0.5, -1.0, 0.0] {
            assert!(Spec::new(0, 0, 4096, d, 1.0).is_err(), "dedup {d}");
            assert!(Spec::new(0, 0, 4096, 1.0, d).is_err(), "compress {d}");
        }
        assert!(Spec::new(0, 0, 4096, 1.0, MAX_COMPRESS).is_ok());
        assert_eq!(Spec::new(0, 0, 4096, 1.0, MAX_COMPRESS).unwrap().random_bytes, 1);
        let e = Spec::new(0, 0, 4096, 1.0, 147.0).unwrap_err();
        assert_eq!(e.message(), "compress 147 is above the maximum the format can produce, 146.2857");
        let e = Spec::new(0, 16, 4096, 1.0, 1.0).unwrap().check_range(10, 20).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
        assert_eq!(e.message(), "fill range [offset 10, len 20) exceeds stream size 16");
        assert!(spec(16, 4096, 1.0, 1.0).check_range(u64::MAX, 2).is_err());
        assert!(spec(16, 4096, 1.0, 1.0).check_range(16, 0).is_ok());
    }

    #[test]
    fn permutation_is_a_bijection() {
        for n in [1u64, 2, 3, 4, 5, 15, 16, 17, 100, 1000, 4097] {
            let s = spec(n * 512, 512, 2.0, 1.0);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let y = s.permute(i) as usize;
                assert!(!seen[y], "n {n}: {y} hit twice");
                seen[y] = true;
            }
        }
    }

    #[test]
    fn unique_of_hits_every_unique_block() {
        let s = spec(1000 * 512, 512, 3.0, 1.0);
        let mut counts = vec![0u32; s.distinct() as usize];
        for i in 0..s.blocks() {
            counts[s.unique_of(i) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c == 3 || c == 4), "{counts:?}");
    }

    #[test]
    fn partial_stripes_match_whole_stripes() {
        let s = spec(3 * 4096 + 700, 4096, 1.0, 3.0);
        let mut whole = vec![0u8; s.size() as usize];
        fill(&s, 0, &mut whole).unwrap();
        for (a, b) in [(0, 1), (1, 2), (511, 513), (1000, 9000), (4095, 4097), (12000, 12988)] {
            let mut part = vec![0u8; b - a];
            fill(&s, a as u64, &mut part).unwrap();
            assert_eq!(part, whole[a..b], "[{a}, {b})");
        }
        assert!(fill(&s, 12000, &mut [0u8; 989]).is_err());
    }

    #[test]
    fn summed_fills_write_the_fill_bytes_and_return_their_crc_through_every_kernel() {
        use crate::finite::Finite;
        // 64-byte aligned, as the pool's buffers are: the non-temporal stores need it.
        let mut backing = vec![0u8; (1 << 20) + 9000 + 64];
        let at = backing.as_ptr().align_offset(64);
        let aligned = &mut backing[at..at + (1 << 20) + 9000];
        for (block, dedup, compress, finite) in [
            (4096u64, 1.0, 1.0, None),
            (4096, 2.0, 3.0, None),
            (1 << 20, 1.5, 7.3, None),
            (512, 1.0, 2.0, None),
            (2048, 1.0, 1.0, Some(Finite::Bf16)),
            (4096, 1.0, 1.5, Some(Finite::F32)),
        ] {
            let plain = spec(8 << 20, block, dedup, compress);
            let s = match finite {
                Some(kind) => plain.with_finite(kind, 1),
                None => plain,
            };
            for (offset, len) in [(0u64, (1usize << 20) + 9000), (12345, 300_001), (4096 * 3, 1 << 20), (1, 4095), (7777, 257), (4096, 0)] {
                let mut want = vec![0u8; len];
                fill_with(&s, offset, &mut want, Level::Scalar, false).unwrap();
                let crc32 = crc32::update_table(0x1234_5678, &want);
                let crc32c = crc32c::update_table(0x1234_5678, &want);
                for level in Level::ALL.into_iter().filter(|l| l.supported()) {
                    for nt in [false, true] {
                        for (sum, crc) in [(Sum::Crc32, crc32), (Sum::Crc32c, crc32c)] {
                            let got = &mut aligned[..len];
                            got.fill(0xA5);
                            let c = fill_summed(&s, offset, got, level, nt, sum, 0x1234_5678).unwrap();
                            let what = format!("{level:?} nt {nt} {sum:?} block {block} {finite:?} at {offset} len {len}");
                            assert!(*got == want[..], "{what}: bytes");
                            assert_eq!(c, crc, "{what}: crc");
                        }
                    }
                }
            }
        }
        // Beyond the stream: refused, as fill_with refuses it.
        let s = spec(4096, 4096, 1.0, 1.0);
        assert!(fill_summed(&s, 1, &mut [0u8; 4096], Level::Scalar, false, Sum::Crc32c, 0).is_err());
    }

    #[test]
    fn sums_in_registers_with_the_avx512_kernel_and_vpclmulqdq_only() {
        #[cfg(target_arch = "x86_64")]
        let folds = std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("vpclmulqdq")
            && std::is_x86_feature_detected!("pclmulqdq")
            && std::is_x86_feature_detected!("sse4.1");
        #[cfg(not(target_arch = "x86_64"))]
        let folds = false;
        for level in Level::ALL {
            assert_eq!(sums_in_registers(level), folds && level == Level::Avx512, "{level:?}");
        }
    }

    #[test]
    fn first_mismatch_finds_the_first_flipped_byte_through_every_kernel() {
        let s = spec(5 * 4096 + 900, 2048, 1.5, 2.5);
        let mut whole = vec![0u8; s.size() as usize];
        fill(&s, 0, &mut whole).unwrap();
        for level in Level::ALL.into_iter().filter(|l| l.supported()) {
            for (a, b) in [(0usize, whole.len()), (1, 2), (511, 513), (1000, 9000), (4096, 12288), (12000, 21380)] {
                let mut part = whole[a..b].to_vec();
                assert_eq!(first_mismatch_with(&s, a as u64, &part, level).unwrap(), None, "{level:?} [{a}, {b})");
                let len = b - a;
                for at in [0, len - 1, len / 2, len / 3, len.saturating_sub(300)] {
                    part[at] ^= 0x80;
                    let got = first_mismatch_with(&s, a as u64, &part, level).unwrap();
                    assert_eq!(got, Some((a + at) as u64), "{level:?} [{a}, {b}) flip {at}");
                    // A second, later flip does not hide the first.
                    if at + 700 < len {
                        part[at + 700] ^= 1;
                        assert_eq!(first_mismatch_with(&s, a as u64, &part, level).unwrap(), Some((a + at) as u64));
                        part[at + 700] ^= 1;
                    }
                    part[at] ^= 0x80;
                }
            }
        }
        let e = first_mismatch(&s, 21000, &[0u8; 381]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
        assert_eq!(first_mismatch(&s, s.size(), &[]).unwrap(), None);
    }
}
