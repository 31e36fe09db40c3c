//! The random primitives of docs/FORMAT.md section 1: `mix64`, SplitMix64, xoshiro256++,
//! and the 8-lane stripe generator of section 4.

/// The SplitMix64 increment (the golden ratio in 64-bit fixed point).
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Number of interleaved xoshiro256++ lanes of a stripe.
pub const LANES: usize = 8;

/// Bytes produced by one step of the stripe generator (one word per lane).
pub const STEP_BYTES: usize = LANES * 8;

/// The SplitMix64 finalizer: a bijection of `u64` with `mix64(0) == 0`.
#[inline(always)]
pub fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64 (Steele, Lea & Flood): `x += GOLDEN; mix64(x)`.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    x: u64,
}

impl SplitMix64 {
    /// A generator whose state starts at `state`.
    pub fn new(state: u64) -> SplitMix64 {
        SplitMix64 { x: state }
    }

    /// The next output.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.x = self.x.wrapping_add(GOLDEN);
        mix64(self.x)
    }
}

/// One xoshiro256++ generator (Blackman & Vigna); the scalar reading of the format, used by
/// the tests as the reference of [`Stripe8`].
#[derive(Clone, Debug)]
pub struct Xoshiro256pp {
    s: [u64; 4],
}

impl Xoshiro256pp {
    /// A generator with state `s`.
    pub fn new(s: [u64; 4]) -> Xoshiro256pp {
        Xoshiro256pp { s }
    }

    /// The next output.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }
}

/// Eight xoshiro256++ lanes stored as a struct of arrays (`s0[l]` is word 0 of lane `l`),
/// so that every operation of a step is one loop over the lanes that LLVM vectorises.
/// Step `t` yields the stripe words `8t .. 8t + 7` (word `j` comes from lane `j mod 8`).
#[derive(Clone, Debug)]
pub struct Stripe8 {
    s0: [u64; LANES],
    s1: [u64; LANES],
    s2: [u64; LANES],
    s3: [u64; LANES],
}

impl Stripe8 {
    /// The lanes of the stripe with key `sk`: `SplitMix64(sk)` gives four successive
    /// outputs per lane, lane 0 first (output `4l + w` is word `w` of lane `l`).
    #[inline(always)]
    pub fn new(sk: u64) -> Stripe8 {
        let mut st = Stripe8 { s0: [0; LANES], s1: [0; LANES], s2: [0; LANES], s3: [0; LANES] };
        for l in 0..LANES {
            // SplitMix64 output n (1-based) is mix64(sk + n * GOLDEN).
            let base = sk.wrapping_add(GOLDEN.wrapping_mul(4 * l as u64 + 1));
            st.s0[l] = mix64(base);
            st.s1[l] = mix64(base.wrapping_add(GOLDEN));
            st.s2[l] = mix64(base.wrapping_add(GOLDEN.wrapping_mul(2)));
            st.s3[l] = mix64(base.wrapping_add(GOLDEN.wrapping_mul(3)));
        }
        st
    }

    /// The state as four arrays: `words()[w][l]` is word `w` of lane `l`.
    #[inline(always)]
    pub fn words(&self) -> [[u64; LANES]; 4] {
        [self.s0, self.s1, self.s2, self.s3]
    }

    /// Advances every lane once and returns the eight outputs, lane 0 first.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // one index over the five lane arrays vectorises best
    pub fn step(&mut self) -> [u64; LANES] {
        let mut out = [0u64; LANES];
        for l in 0..LANES {
            let (s0, s1, s2, s3) = (self.s0[l], self.s1[l], self.s2[l], self.s3[l]);
            out[l] = s0.wrapping_add(s3).rotate_left(23).wrapping_add(s0);
            let t = s1 << 17;
            let s2 = s2 ^ s0;
            let s3 = s3 ^ s1;
            let s1 = s1 ^ s2;
            let s0 = s0 ^ s3;
            let s2 = s2 ^ t;
            let s3 = s3.rotate_left(45);
            self.s0[l] = s0;
            self.s1[l] = s1;
            self.s2[l] = s2;
            self.s3[l] = s3;
        }
        out
    }

    /// Writes the next `out.len() / 64` steps into `out` as little-endian words.
    /// `out.len()` must be a multiple of [`STEP_BYTES`].
    #[inline(always)]
    pub fn fill_steps(&mut self, out: &mut [u8]) {
        debug_assert_eq!(out.len() % STEP_BYTES, 0);
        for chunk in out.chunks_exact_mut(STEP_BYTES) {
            let words = self.step();
            for (dst, w) in chunk.chunks_exact_mut(8).zip(words) {
                dst.copy_from_slice(&w.to_le_bytes());
            }
        }
    }

    /// Advances every lane `steps` times, discarding the outputs.
    #[inline(always)]
    pub fn skip_steps(&mut self, steps: usize) {
        for _ in 0..steps {
            self.step();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix64_fixed_points_and_values() {
        assert_eq!(mix64(0), 0);
        // SplitMix64 seeded with 0: the well-known first output.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn xoshiro_reference_values() {
        // xoshiro256++ from the state [1, 2, 3, 4] (reference outputs of the C code).
        let mut x = Xoshiro256pp::new([1, 2, 3, 4]);
        let got: Vec<u64> = (0..4).map(|_| x.next_u64()).collect();
        assert_eq!(got, vec![41943041, 58720359, 3588806011781223, 3591011842654386]);
    }

    #[test]
    fn stripe8_matches_eight_scalar_lanes() {
        for sk in [0u64, 1, 0xDEAD_BEEF, u64::MAX] {
            let mut sm = SplitMix64::new(sk);
            let mut lanes: Vec<Xoshiro256pp> = (0..LANES)
                .map(|_| {
                    Xoshiro256pp::new([sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()])
                })
                .collect();
            let mut st = Stripe8::new(sk);
            let mut bytes = vec![0u8; 4096];
            st.skip_steps(3);
            for lane in lanes.iter_mut() {
                for _ in 0..3 {
                    lane.next_u64();
                }
            }
            st.fill_steps(&mut bytes);
            for (j, w) in bytes.chunks_exact(8).enumerate() {
                let want = lanes[j % LANES].next_u64();
                assert_eq!(u64::from_le_bytes(w.try_into().unwrap()), want, "sk {sk} word {j}");
            }
        }
    }
}
