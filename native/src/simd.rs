//! The stripe kernels of docs/FORMAT.md section 4 with runtime CPU dispatch.
//!
//! A kernel writes whole stripes: the eight xoshiro256++ lanes of the stripe advance in
//! lock step and every step stores 64 bytes (word `8t + l` from lane `l`), masked per
//! sector so that bytes `r .. 512` of every sector are zero. Three kernels produce the
//! same bytes:
//!
//! - [`Level::Scalar`]: portable Rust ([`Stripe8`]), for any CPU;
//! - [`Level::Avx2`]: the lanes in two `ymm` registers per state word (`#[target_feature]`
//!   function, so the library stays baseline x86-64 and runs on any x86-64 CPU);
//! - [`Level::Avx512`]: one `zmm` register per state word, with `vprolq` rotations.
//!
//! The vector kernels can store with non-temporal (`movntdq`) stores, which skip the
//! read-for-ownership of every cache line: out of cache they roughly double the bandwidth
//! of a fill. Small fills use ordinary stores so that the data stays in cache for its
//! reader; [`nt_threshold`] decides.
//!
//! The level is chosen once per process: the best the CPU offers
//! (`is_x86_feature_detected!`), lowered by the environment variable `DGEN4J_DISPATCH`
//! (`scalar`, `avx2`, `avx512`; a level the CPU lacks is never chosen), and then checked
//! against the scalar kernel on a few stripes: a kernel that disagrees is never used
//! (the next lower level is), so a miscompiled or untested path cannot change the bytes.

use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
use crate::crc32::Fold512;
use crate::rng::{Stripe8, LANES, STEP_BYTES};

/// Steps of the stripe generator per 512-byte sector.
pub const STEPS_PER_SECTOR: usize = 512 / STEP_BYTES;

/// The per-step byte masks of a sector: `masks.0[t]` keeps bytes `[64t, 64t + 64)` of a
/// sector that lie below `r`, as eight little-endian words.
#[derive(Clone, Debug, PartialEq, Eq)]
/// `.1` is the number of leading steps that keep any byte: the kernels compute no output
/// for the steps after them (their bytes are all zero), only the state update.
#[repr(C, align(64))]
pub struct Masks(pub [[u64; LANES]; STEPS_PER_SECTOR], pub usize);

impl Masks {
    /// The masks for `r` random bytes per sector (`1 <= r <= 512`).
    pub fn new(r: usize) -> Masks {
        let mut m = [[0u64; LANES]; STEPS_PER_SECTOR];
        for (t, step) in m.iter_mut().enumerate() {
            for (l, word) in step.iter_mut().enumerate() {
                let mut w = 0u64;
                for b in 0..8 {
                    if t * STEP_BYTES + l * 8 + b < r {
                        w |= 0xFF << (8 * b);
                    }
                }
                *word = w;
            }
        }
        let random_steps = m.iter().take_while(|step| step.iter().any(|&w| w != 0)).count();
        Masks(m, random_steps)
    }

    /// Leading steps of a sector that keep any byte; later steps are all zeros.
    pub fn random_steps(&self) -> usize {
        self.1
    }

    /// Whether the masks keep every byte (`r == 512`).
    pub fn keeps_all(&self) -> bool {
        self.0.iter().all(|s| s.iter().all(|&w| w == u64::MAX))
    }
}

/// A kernel implementation, best last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Portable Rust.
    Scalar,
    /// AVX2 (`ymm`).
    Avx2,
    /// AVX-512F (`zmm`, `vprolq`).
    Avx512,
}

impl Level {
    /// Every level, in order.
    pub const ALL: [Level; 3] = [Level::Scalar, Level::Avx2, Level::Avx512];

    /// The lower-case name: `scalar`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The level of a name (case-insensitive).
    pub fn parse(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether this CPU can run the level.
    pub fn supported(self) -> bool {
        match self {
            Level::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => std::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The best level this CPU supports.
    pub fn best_supported() -> Level {
        Level::ALL.into_iter().rev().find(|l| l.supported()).unwrap_or(Level::Scalar)
    }
}

/// The dispatch decision of this process (see the module documentation).
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// The level the kernels run at.
    pub level: Level,
    /// The best level the CPU supports.
    pub supported: Level,
    /// `DGEN4J_DISPATCH`, when set.
    pub requested: Option<String>,
    /// Levels rejected by the self-check (normally none).
    pub rejected: Vec<Level>,
}

impl Dispatch {
    /// Chooses the level for a CPU supporting `supported`, a `DGEN4J_DISPATCH` value
    /// `requested`, and a self-check `check`.
    pub fn choose(supported: Level, requested: Option<String>, check: impl Fn(Level) -> bool) -> Dispatch {
        let cap = requested.as_deref().and_then(Level::parse).unwrap_or(supported).min(supported);
        let mut rejected = Vec::new();
        let mut level = Level::Scalar;
        for l in Level::ALL.into_iter().rev().filter(|&l| l <= cap) {
            if l == Level::Scalar || check(l) {
                level = l;
                break;
            }
            rejected.push(l);
        }
        Dispatch { level, supported, requested, rejected }
    }

    /// The decision of this process, made on first use.
    pub fn get() -> &'static Dispatch {
        static DISPATCH: OnceLock<Dispatch> = OnceLock::new();
        DISPATCH.get_or_init(|| {
            Dispatch::choose(Level::best_supported(), std::env::var("DGEN4J_DISPATCH").ok(), self_check)
        })
    }

    /// One line for humans: `avx2 (cpu supports avx2)`, plus any override or rejection.
    pub fn describe(&self) -> String {
        let mut s = format!("{} (cpu supports {})", self.level.name(), self.supported.name());
        if let Some(r) = &self.requested {
            s.push_str(&format!(", DGEN4J_DISPATCH={r}"));
        }
        for l in &self.rejected {
            s.push_str(&format!(", {} failed its self-check", l.name()));
        }
        s
    }
}

/// Whether the kernel of `level` writes the same bytes as the scalar kernel on a few
/// stripes (every sector size, compressible and not, aligned and not, both store kinds).
pub fn self_check(level: Level) -> bool {
    if !level.supported() {
        return false;
    }
    #[repr(C, align(64))]
    struct Buf([u8; 4096 + 64]);
    let mut want = Buf([0; 4096 + 64]);
    let mut got = Buf([0; 4096 + 64]);
    for (k, r) in [512usize, 168, 1, 63, 64, 65, 253, 448, 511].into_iter().enumerate() {
        let masks = Masks::new(r);
        let sk = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(k as u64 + 1);
        for &len in &[4096usize, 512, 1024] {
            for (at, nt) in [(0usize, false), (0, true), (8, false), (1, false)] {
                // SAFETY: both buffers hold `at + len <= 4096 + 64` bytes.
                unsafe {
                    fill_stripe(Level::Scalar, sk, want.0.as_mut_ptr().add(at), len, &masks, false);
                    got.0.fill(0xA5);
                    fill_stripe(level, sk, got.0.as_mut_ptr().add(at), len, &masks, nt);
                    store_fence();
                }
                if want.0[at..at + len] != got.0[at..at + len] || got.0[at + len] != 0xA5 {
                    return false;
                }
                if !match_check(level, sk, &mut got.0[at..at + len], &masks) {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether the match kernel of `level` accepts the stripe's own bytes `bytes` and rejects
/// them with any one of a few bytes flipped (first, last, in the random head and in the zero
/// tail of a sector, and around every step boundary of the first sector).
fn match_check(level: Level, sk: u64, bytes: &mut [u8], masks: &Masks) -> bool {
    let len = bytes.len();
    // SAFETY: `bytes` is readable for `len` bytes, a multiple of 512; `level` is supported.
    let matches = |b: &[u8]| unsafe { stripe_matches(level, sk, b.as_ptr(), len, masks) };
    if !matches(bytes) {
        return false;
    }
    let probes = [0usize, 1, 7, 8, 63, 64, 65, 127, 255, 256, 400, 511, 512, len / 2, len - 1];
    for at in probes.into_iter().filter(|&at| at < len) {
        bytes[at] ^= 0x10;
        let rejected = !matches(bytes);
        bytes[at] ^= 0x10;
        if !rejected {
            return false;
        }
    }
    true
}

/// Fills below this many bytes use ordinary stores; larger ones non-temporal stores.
/// `DGEN4J_NT_THRESHOLD` overrides it (bytes; `0` = always, a huge value = never).
pub fn nt_threshold() -> u64 {
    static T: OnceLock<u64> = OnceLock::new();
    *T.get_or_init(|| {
        std::env::var("DGEN4J_NT_THRESHOLD").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_NT_THRESHOLD)
    })
}

/// Default of [`nt_threshold`]: fills from 4 MiB on bypass the caches. Smaller ones are
/// likely read back soon (a write syscall, a checksum) and may fit in the last level cache.
pub const DEFAULT_NT_THRESHOLD: u64 = 4 << 20;

/// Orders non-temporal stores before later stores (`sfence`); call it after a fill that
/// used them and before another thread may read the bytes.
#[inline]
pub fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence is part of SSE, which every x86-64 CPU has; it has no operands.
    unsafe {
        std::arch::x86_64::_mm_sfence();
    }
}

/// Writes the first `len` bytes (a multiple of 512) of the stripe with key `sk` to `dst`,
/// masked by `masks`, with the kernel of `level`; `nt` asks for non-temporal stores,
/// which are used when `dst` is 64-byte aligned.
///
/// # Safety
/// `dst` must be valid for writes of `len` bytes; `level` must be supported by the CPU.
#[inline]
pub unsafe fn fill_stripe(level: Level, sk: u64, dst: *mut u8, len: usize, masks: &Masks, nt: bool) {
    debug_assert_eq!(len % 512, 0);
    let all = masks.keeps_all_fast();
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => {
            let nt = nt && (dst as usize).is_multiple_of(64);
            // SAFETY: forwarded: `dst` holds `len` bytes and the CPU has AVX2.
            unsafe {
                match (all, nt) {
                    (true, false) => x86::stripe_avx2::<false, false>(sk, dst, len, masks),
                    (true, true) => x86::stripe_avx2::<false, true>(sk, dst, len, masks),
                    (false, false) => x86::stripe_avx2::<true, false>(sk, dst, len, masks),
                    (false, true) => x86::stripe_avx2::<true, true>(sk, dst, len, masks),
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => {
            let nt = nt && (dst as usize).is_multiple_of(64);
            // SAFETY: forwarded: `dst` holds `len` bytes and the CPU has AVX-512F.
            unsafe {
                match (all, nt) {
                    (true, false) => x86::stripe_avx512::<false, false>(sk, dst, len, masks),
                    (true, true) => x86::stripe_avx512::<false, true>(sk, dst, len, masks),
                    (false, false) => x86::stripe_avx512::<true, false>(sk, dst, len, masks),
                    (false, true) => x86::stripe_avx512::<true, true>(sk, dst, len, masks),
                }
            }
        }
        _ => {
            // SAFETY: forwarded: `dst` holds `len` bytes.
            let out = unsafe { std::slice::from_raw_parts_mut(dst, len) };
            stripe_scalar(sk, out, masks, all);
        }
    }
}

/// [`fill_stripe`] with the AVX-512 kernel that also sums the bytes it stores into `fold`,
/// each 64-byte register folded into the CRC as it is stored: the bytes need no second pass,
/// so they can bypass the caches (`nt`, used when `dst` is 64-byte aligned) even when they are
/// summed. The bytes are [`fill_stripe`]'s at [`Level::Avx512`].
///
/// # Safety
/// `dst` must be valid for writes of `len` bytes (a multiple of 512) and the CPU must have
/// AVX-512F and VPCLMULQDQ (it has them where a [`Fold512`] exists).
#[cfg(target_arch = "x86_64")]
#[inline]
pub unsafe fn fill_stripe_summed(sk: u64, dst: *mut u8, len: usize, masks: &Masks, nt: bool, fold: &mut Fold512) {
    debug_assert_eq!(len % 512, 0);
    let nt = nt && (dst as usize).is_multiple_of(64);
    // SAFETY: forwarded: `dst` holds `len` bytes and the CPU has AVX-512F and VPCLMULQDQ.
    unsafe {
        match (masks.keeps_all_fast(), nt) {
            (true, false) => x86::stripe_avx512_summed::<false, false>(sk, dst, len, masks, fold),
            (true, true) => x86::stripe_avx512_summed::<false, true>(sk, dst, len, masks, fold),
            (false, false) => x86::stripe_avx512_summed::<true, false>(sk, dst, len, masks, fold),
            (false, true) => x86::stripe_avx512_summed::<true, true>(sk, dst, len, masks, fold),
        }
    }
}

/// Whether the `len` bytes (a multiple of 512) at `src` equal the first `len` bytes of the
/// stripe with key `sk` masked by `masks`, computed with the kernel of `level`: the stripe is
/// regenerated in registers and compared with `src` as it goes, with no store.
///
/// # Safety
/// `src` must be valid for reads of `len` bytes; `level` must be supported by the CPU.
#[inline]
pub unsafe fn stripe_matches(level: Level, sk: u64, src: *const u8, len: usize, masks: &Masks) -> bool {
    debug_assert_eq!(len % 512, 0);
    let all = masks.keeps_all_fast();
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: forwarded: `src` holds `len` bytes and the CPU has AVX2.
        Level::Avx2 => unsafe {
            if all {
                x86::match_avx2::<false>(sk, src, len, masks)
            } else {
                x86::match_avx2::<true>(sk, src, len, masks)
            }
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: forwarded: `src` holds `len` bytes and the CPU has AVX-512F.
        Level::Avx512 => unsafe {
            if all {
                x86::match_avx512::<false>(sk, src, len, masks)
            } else {
                x86::match_avx512::<true>(sk, src, len, masks)
            }
        },
        _ => {
            // SAFETY: forwarded: `src` holds `len` bytes.
            let data = unsafe { std::slice::from_raw_parts(src, len) };
            matches_scalar(sk, data, masks, all)
        }
    }
}

/// The portable match kernel.
fn matches_scalar(sk: u64, data: &[u8], masks: &Masks, all: bool) -> bool {
    let mut lanes = Stripe8::new(sk);
    for sector in data.chunks_exact(512) {
        for (t, chunk) in sector.chunks_exact(STEP_BYTES).enumerate() {
            let words = lanes.step();
            let mut diff = 0u64;
            for l in 0..LANES {
                let w = if all { words[l] } else { words[l] & masks.0[t][l] };
                diff |= w ^ u64::from_le_bytes(chunk[8 * l..8 * l + 8].try_into().expect("8 bytes"));
            }
            if diff != 0 {
                return false;
            }
        }
    }
    true
}

impl Masks {
    #[inline(always)]
    fn keeps_all_fast(&self) -> bool {
        // Step 7 of a sector covers bytes 448..512: all kept only when r == 512.
        self.0[STEPS_PER_SECTOR - 1][LANES - 1] == u64::MAX
    }
}

/// The portable kernel.
fn stripe_scalar(sk: u64, out: &mut [u8], masks: &Masks, all: bool) {
    let mut lanes = Stripe8::new(sk);
    for sector in out.chunks_exact_mut(512) {
        for (t, chunk) in sector.chunks_exact_mut(STEP_BYTES).enumerate() {
            let words = lanes.step();
            for l in 0..LANES {
                let w = if all { words[l] } else { words[l] & masks.0[t][l] };
                chunk[8 * l..8 * l + 8].copy_from_slice(&w.to_le_bytes());
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{Masks, STEPS_PER_SECTOR};
    use crate::crc32::Fold512;
    use crate::rng::{Stripe8, LANES};

    /// The eight lanes' initial state as four arrays (`s[w][l]` = word `w` of lane `l`).
    #[inline(always)]
    fn initial_state(sk: u64) -> [[u64; LANES]; 4] {
        Stripe8::new(sk).words()
    }

    #[inline(always)]
    unsafe fn rotl_avx2<const L: i32, const R: i32>(x: __m256i) -> __m256i {
        _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x))
    }

    /// AVX2 kernel: lanes 0-3 in the `a` registers, lanes 4-7 in the `b` registers.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn stripe_avx2<const MASK: bool, const NT: bool>(
        sk: u64,
        dst: *mut u8,
        len: usize,
        masks: &Masks,
    ) {
        let s = initial_state(sk);
        let ld = |w: usize, h: usize| _mm256_loadu_si256(s[w].as_ptr().add(4 * h).cast());
        let (mut s0a, mut s0b) = (ld(0, 0), ld(0, 1));
        let (mut s1a, mut s1b) = (ld(1, 0), ld(1, 1));
        let (mut s2a, mut s2b) = (ld(2, 0), ld(2, 1));
        let (mut s3a, mut s3b) = (ld(3, 0), ld(3, 1));
        let m = masks.0.as_ptr().cast::<__m256i>();
        let rs = if MASK { masks.random_steps() } else { STEPS_PER_SECTOR };
        let zero = _mm256_setzero_si256();
        let mut p = dst.cast::<__m256i>();
        macro_rules! advance {
            () => {{
                let ta = _mm256_slli_epi64::<17>(s1a);
                let tb = _mm256_slli_epi64::<17>(s1b);
                s2a = _mm256_xor_si256(s2a, s0a);
                s2b = _mm256_xor_si256(s2b, s0b);
                s3a = _mm256_xor_si256(s3a, s1a);
                s3b = _mm256_xor_si256(s3b, s1b);
                s1a = _mm256_xor_si256(s1a, s2a);
                s1b = _mm256_xor_si256(s1b, s2b);
                s0a = _mm256_xor_si256(s0a, s3a);
                s0b = _mm256_xor_si256(s0b, s3b);
                s2a = _mm256_xor_si256(s2a, ta);
                s2b = _mm256_xor_si256(s2b, tb);
                s3a = rotl_avx2::<45, 19>(s3a);
                s3b = rotl_avx2::<45, 19>(s3b);
            }};
        }
        macro_rules! store {
            ($ra:expr, $rb:expr) => {{
                if NT {
                    _mm256_stream_si256(p, $ra);
                    _mm256_stream_si256(p.add(1), $rb);
                } else {
                    _mm256_storeu_si256(p, $ra);
                    _mm256_storeu_si256(p.add(1), $rb);
                }
                p = p.add(2);
            }};
        }
        for _ in 0..len / 512 {
            for t in 0..rs {
                let mut ra = _mm256_add_epi64(rotl_avx2::<23, 41>(_mm256_add_epi64(s0a, s3a)), s0a);
                let mut rb = _mm256_add_epi64(rotl_avx2::<23, 41>(_mm256_add_epi64(s0b, s3b)), s0b);
                advance!();
                if MASK {
                    ra = _mm256_and_si256(ra, _mm256_load_si256(m.add(2 * t)));
                    rb = _mm256_and_si256(rb, _mm256_load_si256(m.add(2 * t + 1)));
                }
                store!(ra, rb);
            }
            // The sector's zero tail: the lanes still step, but no output is computed.
            for _ in rs..STEPS_PER_SECTOR {
                advance!();
                store!(zero, zero);
            }
        }
    }

    /// Prefetches the cache line two stripes (8 KiB) ahead of `p`: the hardware prefetchers stop at
    /// 4 KiB boundaries, so a match kernel that only loads would stall at the start of every
    /// stripe (measured out of cache, one thread, huge-page buffer: verify 0.78-0.82 x fill with
    /// 2 KiB, 0.88-0.93 x with 4 KiB, 0.95-0.98 x with 8 KiB, 0.90-0.95 x with 16 KiB ahead).
    /// A prefetch never faults, so the address may lie past the end of the caller's bytes (hence
    /// `wrapping_add`: no pointer arithmetic that must stay in bounds).
    #[inline(always)]
    unsafe fn prefetch_next_stripe(p: *const i8) {
        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(8192));
    }

    /// AVX2 match kernel: the fill kernel's steps, each output xor-ed with the caller's
    /// bytes and or-ed into one accumulator, tested once at the end of the stripe.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn match_avx2<const MASK: bool>(sk: u64, src: *const u8, len: usize, masks: &Masks) -> bool {
        let s = initial_state(sk);
        let ld = |w: usize, h: usize| _mm256_loadu_si256(s[w].as_ptr().add(4 * h).cast());
        let (mut s0a, mut s0b) = (ld(0, 0), ld(0, 1));
        let (mut s1a, mut s1b) = (ld(1, 0), ld(1, 1));
        let (mut s2a, mut s2b) = (ld(2, 0), ld(2, 1));
        let (mut s3a, mut s3b) = (ld(3, 0), ld(3, 1));
        let m = masks.0.as_ptr().cast::<__m256i>();
        let rs = if MASK { masks.random_steps() } else { STEPS_PER_SECTOR };
        let mut acca = _mm256_setzero_si256();
        let mut accb = _mm256_setzero_si256();
        let mut p = src.cast::<__m256i>();
        macro_rules! advance {
            () => {{
                let ta = _mm256_slli_epi64::<17>(s1a);
                let tb = _mm256_slli_epi64::<17>(s1b);
                s2a = _mm256_xor_si256(s2a, s0a);
                s2b = _mm256_xor_si256(s2b, s0b);
                s3a = _mm256_xor_si256(s3a, s1a);
                s3b = _mm256_xor_si256(s3b, s1b);
                s1a = _mm256_xor_si256(s1a, s2a);
                s1b = _mm256_xor_si256(s1b, s2b);
                s0a = _mm256_xor_si256(s0a, s3a);
                s0b = _mm256_xor_si256(s0b, s3b);
                s2a = _mm256_xor_si256(s2a, ta);
                s2b = _mm256_xor_si256(s2b, tb);
                s3a = rotl_avx2::<45, 19>(s3a);
                s3b = rotl_avx2::<45, 19>(s3b);
            }};
        }
        for _ in 0..len / 512 {
            for t in 0..rs {
                let mut ra = _mm256_add_epi64(rotl_avx2::<23, 41>(_mm256_add_epi64(s0a, s3a)), s0a);
                let mut rb = _mm256_add_epi64(rotl_avx2::<23, 41>(_mm256_add_epi64(s0b, s3b)), s0b);
                advance!();
                if MASK {
                    ra = _mm256_and_si256(ra, _mm256_load_si256(m.add(2 * t)));
                    rb = _mm256_and_si256(rb, _mm256_load_si256(m.add(2 * t + 1)));
                }
                prefetch_next_stripe(p.cast());
                acca = _mm256_or_si256(acca, _mm256_xor_si256(ra, _mm256_loadu_si256(p)));
                accb = _mm256_or_si256(accb, _mm256_xor_si256(rb, _mm256_loadu_si256(p.add(1))));
                p = p.add(2);
            }
            // The sector's zero tail: the caller's bytes must be zero.
            for _ in rs..STEPS_PER_SECTOR {
                advance!();
                prefetch_next_stripe(p.cast());
                acca = _mm256_or_si256(acca, _mm256_loadu_si256(p));
                accb = _mm256_or_si256(accb, _mm256_loadu_si256(p.add(1)));
                p = p.add(2);
            }
        }
        let acc = _mm256_or_si256(acca, accb);
        _mm256_testz_si256(acc, acc) == 1
    }

    /// The eight lanes of a stripe's generator in AVX-512 registers, one register per state
    /// word: the step every AVX-512 kernel takes (fill, fill and sum, compare).
    #[derive(Clone, Copy)]
    struct Lanes512([__m512i; 4]);

    impl Lanes512 {
        /// The lanes of the stripe with key `sk` before its first step.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn new(sk: u64) -> Lanes512 {
            let s = initial_state(sk);
            // SAFETY: each `s[w]` is eight u64, 64 readable bytes; loadu needs no alignment.
            unsafe {
                Lanes512([
                    _mm512_loadu_si512(s[0].as_ptr().cast()),
                    _mm512_loadu_si512(s[1].as_ptr().cast()),
                    _mm512_loadu_si512(s[2].as_ptr().cast()),
                    _mm512_loadu_si512(s[3].as_ptr().cast()),
                ])
            }
        }

        /// The eight lanes' output of this step (before they advance).
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn output(&self) -> __m512i {
            let [s0, _, _, s3] = self.0;
            _mm512_add_epi64(_mm512_rol_epi64::<23>(_mm512_add_epi64(s0, s3)), s0)
        }

        /// Every lane one step on.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn advance(&mut self) {
            let [mut s0, mut s1, mut s2, mut s3] = self.0;
            let tt = _mm512_slli_epi64::<17>(s1);
            s2 = _mm512_xor_si512(s2, s0);
            s3 = _mm512_xor_si512(s3, s1);
            s1 = _mm512_xor_si512(s1, s2);
            s0 = _mm512_xor_si512(s0, s3);
            s2 = _mm512_xor_si512(s2, tt);
            s3 = _mm512_rol_epi64::<45>(s3);
            self.0 = [s0, s1, s2, s3];
        }
    }

    /// AVX-512 match kernel: as [`match_avx2`] with one register per state word.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn match_avx512<const MASK: bool>(sk: u64, src: *const u8, len: usize, masks: &Masks) -> bool {
        let mut lanes = Lanes512::new(sk);
        let m = masks.0.as_ptr().cast::<__m512i>();
        let rs = if MASK { masks.random_steps() } else { STEPS_PER_SECTOR };
        let mut acc = _mm512_setzero_si512();
        let mut p = src.cast::<__m512i>();
        for _ in 0..len / 512 {
            for t in 0..rs {
                let mut r = lanes.output();
                lanes.advance();
                if MASK {
                    r = _mm512_and_si512(r, _mm512_load_si512(m.add(t).cast()));
                }
                prefetch_next_stripe(p.cast());
                acc = _mm512_or_si512(acc, _mm512_xor_si512(r, _mm512_loadu_si512(p.cast())));
                p = p.add(1);
            }
            // The sector's zero tail: the caller's bytes must be zero.
            for _ in rs..STEPS_PER_SECTOR {
                lanes.advance();
                prefetch_next_stripe(p.cast());
                acc = _mm512_or_si512(acc, _mm512_loadu_si512(p.cast()));
                p = p.add(1);
            }
        }
        _mm512_test_epi64_mask(acc, acc) == 0
    }

    /// AVX-512 kernel: one register per state word, rotations with `vprolq`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn stripe_avx512<const MASK: bool, const NT: bool>(
        sk: u64,
        dst: *mut u8,
        len: usize,
        masks: &Masks,
    ) {
        let mut lanes = Lanes512::new(sk);
        let m = masks.0.as_ptr().cast::<__m512i>();
        let rs = if MASK { masks.random_steps() } else { STEPS_PER_SECTOR };
        let zero = _mm512_setzero_si512();
        let mut p = dst.cast::<__m512i>();
        macro_rules! store {
            ($r:expr) => {{
                if NT {
                    _mm512_stream_si512(p.cast(), $r);
                } else {
                    _mm512_storeu_si512(p.cast(), $r);
                }
                p = p.add(1);
            }};
        }
        for _ in 0..len / 512 {
            for t in 0..rs {
                let mut r = lanes.output();
                lanes.advance();
                if MASK {
                    r = _mm512_and_si512(r, _mm512_load_si512(m.add(t).cast()));
                }
                store!(r);
            }
            // The sector's zero tail: the lanes still step, but no output is computed.
            for _ in rs..STEPS_PER_SECTOR {
                lanes.advance();
                store!(zero);
            }
        }
    }

    /// [`stripe_avx512`] that folds each register it stores into `fold` (the CRC folding of
    /// `crc32`'s AVX-512 kernel: block `i` of a sector into accumulator `i % 4`, a sector
    /// being 8 blocks), so the bytes are summed without being read back.
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    pub(super) unsafe fn stripe_avx512_summed<const MASK: bool, const NT: bool>(
        sk: u64,
        dst: *mut u8,
        len: usize,
        masks: &Masks,
        fold: &mut Fold512,
    ) {
        let mut lanes = Lanes512::new(sk);
        let m = masks.0.as_ptr().cast::<__m512i>();
        let rs = if MASK { masks.random_steps() } else { STEPS_PER_SECTOR };
        let zero = _mm512_setzero_si512();
        let mut p = dst.cast::<__m512i>();
        let mut x = fold.x;
        let mut first = fold.first;
        let k4 = fold.k4;
        for _ in 0..len / 512 {
            // A sector is 8 registers, so its register t goes into accumulator t % 4 (a
            // constant once the loop is unrolled).
            for t in 0..STEPS_PER_SECTOR {
                let mut r = zero;
                if t < rs {
                    r = lanes.output();
                    if MASK {
                        r = _mm512_and_si512(r, _mm512_load_si512(m.add(t).cast()));
                    }
                }
                // In the sector's zero tail the lanes still step, but no output is computed.
                lanes.advance();
                if NT {
                    _mm512_stream_si512(p.cast(), r);
                } else {
                    _mm512_storeu_si512(p.cast(), r);
                }
                p = p.add(1);
                if t == 0 {
                    r = _mm512_xor_si512(r, first);
                    first = zero;
                }
                let a = x[t % 4];
                let lo = _mm512_clmulepi64_epi128::<0x00>(a, k4);
                let hi = _mm512_clmulepi64_epi128::<0x11>(a, k4);
                x[t % 4] = _mm512_ternarylogic_epi64::<0x96>(r, lo, hi); // r ^ lo ^ hi
            }
        }
        fold.x = x;
        fold.first = first;
        fold.fed += len as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_keep_the_first_r_bytes() {
        for r in [1usize, 7, 8, 63, 64, 65, 168, 253, 511, 512] {
            let m = Masks::new(r);
            let bytes: Vec<u8> = m.0.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
            assert_eq!(bytes.len(), 512);
            assert!(bytes[..r].iter().all(|&b| b == 0xFF), "r {r}");
            assert!(bytes[r..].iter().all(|&b| b == 0), "r {r}");
            assert_eq!(m.keeps_all(), r == 512);
            assert_eq!(m.keeps_all_fast(), r == 512);
        }
    }

    #[test]
    fn every_supported_level_matches_the_scalar_kernel() {
        for level in Level::ALL {
            if level.supported() {
                assert!(self_check(level), "{level:?} disagrees with the scalar kernel");
            } else {
                eprintln!("note: this CPU cannot run {}; its kernel is checked where it can", level.name());
                assert!(!self_check(level));
            }
        }
    }

    #[test]
    fn dispatch_honours_the_request_and_the_check() {
        let ok = |_: Level| true;
        assert_eq!(Dispatch::choose(Level::Avx512, None, ok).level, Level::Avx512);
        assert_eq!(Dispatch::choose(Level::Avx2, Some("avx512".into()), ok).level, Level::Avx2);
        assert_eq!(Dispatch::choose(Level::Avx512, Some("AVX2".into()), ok).level, Level::Avx2);
        assert_eq!(Dispatch::choose(Level::Avx512, Some("scalar".into()), ok).level, Level::Scalar);
        assert_eq!(Dispatch::choose(Level::Avx2, Some("bogus".into()), ok).level, Level::Avx2);
        let d = Dispatch::choose(Level::Avx512, None, |l| l != Level::Avx512);
        assert_eq!((d.level, d.rejected.clone()), (Level::Avx2, vec![Level::Avx512]));
        assert!(d.describe().contains("avx512 failed its self-check"), "{}", d.describe());
        let d = Dispatch::choose(Level::Avx512, None, |_| false);
        assert_eq!(d.level, Level::Scalar);
        assert_eq!(Level::parse(" Avx2 "), Some(Level::Avx2));
        assert!(Dispatch::get().level.supported());
    }

    #[test]
    fn match_kernels_accept_the_stripe_and_reject_any_flipped_byte() {
        let mut want = vec![0u8; 4096 + 64];
        for level in Level::ALL.into_iter().filter(|l| l.supported()) {
            for k in 0..40u64 {
                let sk = crate::rng::mix64(k ^ 0x5678);
                let masks = Masks::new(if k % 3 == 0 { 512 } else { 1 + (k as usize * 53) % 512 });
                let at = (k as usize * 7) % 64;
                let len = [4096usize, 512, 1024, 3584][k as usize % 4];
                let buf = &mut want[at..at + len];
                // SAFETY: `buf` holds `len` bytes, a multiple of 512; `level` is supported.
                unsafe { fill_stripe(Level::Scalar, sk, buf.as_mut_ptr(), len, &masks, false) };
                // SAFETY: as above.
                let ok = |b: &[u8]| unsafe { stripe_matches(level, sk, b.as_ptr(), len, &masks) };
                assert!(ok(buf), "{level:?} key {k}");
                for pos in (0..len).step_by(1 + (k as usize % 13)) {
                    buf[pos] ^= 1 << (pos % 8);
                    assert!(!ok(buf), "{level:?} key {k}: flipped byte {pos} not seen");
                    buf[pos] ^= 1 << (pos % 8);
                }
            }
        }
    }

    #[test]
    fn vector_kernels_match_over_many_keys() {
        let mut want = vec![0u8; 4096];
        let mut got = vec![0u8; 4096 + 64];
        let off = got.as_ptr().align_offset(64);
        for level in Level::ALL.into_iter().filter(|l| *l != Level::Scalar && l.supported()) {
            for k in 0..200u64 {
                let sk = crate::rng::mix64(k ^ 0x1234);
                let masks = Masks::new(1 + (k as usize * 37) % 512);
                // SAFETY: the buffers hold 4096 bytes from the offsets used.
                unsafe {
                    fill_stripe(Level::Scalar, sk, want.as_mut_ptr(), 4096, &masks, false);
                    fill_stripe(level, sk, got.as_mut_ptr().add(off), 4096, &masks, k % 2 == 0);
                }
                store_fence();
                assert!(want[..] == got[off..off + 4096], "{level:?} key {k}");
            }
        }
    }
}
