//! The C ABI of jextract/dgen4j.h, called directly: versions, validation codes and
//! messages, last-error copying, fills and NULL handling.

mod common;

use std::ffi::c_char;
use std::ptr;

use common::sha256_hex;
use dgen4j::*;

fn last_error() -> String {
    // SAFETY: NULL with cap 0 asks for the length only.
    let len = unsafe { dgen4j_last_error(ptr::null_mut(), 0) };
    let mut buf = vec![0u8; len + 1];
    // SAFETY: `buf` holds the `buf.len()` bytes passed as cap.
    let got = unsafe { dgen4j_last_error(buf.as_mut_ptr().cast::<c_char>(), buf.len()) };
    assert_eq!(got, len);
    assert_eq!(buf[len], 0);
    String::from_utf8(buf[..len].to_vec()).unwrap()
}

fn new_gen(seed: u64, size: u64, block: u64, dedup: f64, compress: f64, threads: u32) -> (i32, *mut dgen4j_generator) {
    let mut gen = 1usize as *mut dgen4j_generator; // not NULL: must be overwritten
    // SAFETY: `gen` is a valid place for the out pointer.
    let rc = unsafe { dgen4j_generator_new(seed, size, block, dedup, compress, threads, &mut gen) };
    (rc, gen)
}

fn expect_new_error(seed: u64, size: u64, block: u64, dedup: f64, compress: f64, threads: u32, message: &str) {
    let (rc, gen) = new_gen(seed, size, block, dedup, compress, threads);
    assert_eq!(rc, DGEN4J_ERR_INVALID_ARGUMENT, "{message}");
    assert!(gen.is_null(), "*out must be NULL after a failure");
    assert_eq!(last_error(), message);
}

#[test]
fn versions() {
    assert_eq!(dgen4j_abi_version(), 1);
    assert_eq!(dgen4j_format_version(), 1);
}

#[test]
fn no_error_yet_is_empty() {
    std::thread::spawn(|| {
        // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
        assert_eq!(unsafe { dgen4j_last_error(ptr::null_mut(), 0) }, 0);
        let mut buf = [0x55 as c_char; 4];
        // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
        assert_eq!(unsafe { dgen4j_last_error(buf.as_mut_ptr(), buf.len()) }, 0);
        assert_eq!(buf[0], 0);
    })
    .join()
    .unwrap();
}

#[test]
fn validation_codes_and_messages() {
    expect_new_error(1, 100, 1000, 1.0, 1.0, 1, "block_size 1000 is not a power of two in [512, 67108864]");
    expect_new_error(1, 100, 256, 1.0, 1.0, 1, "block_size 256 is not a power of two in [512, 67108864]");
    expect_new_error(1, 100, 128 << 20, 1.0, 1.0, 1, "block_size 134217728 is not a power of two in [512, 67108864]");
    expect_new_error(1, 100, 0, 1.0, 1.0, 1, "block_size 0 is not a power of two in [512, 67108864]");
    expect_new_error(1, 100, 4096, f64::NAN, 1.0, 1, "dedup NaN is not a finite number >= 1");
    expect_new_error(1, 100, 4096, f64::INFINITY, 1.0, 1, "dedup inf is not a finite number >= 1");
    expect_new_error(1, 100, 4096, 0.5, 1.0, 1, "dedup 0.5 is not a finite number >= 1");
    expect_new_error(1, 100, 4096, 1.0, 0.99, 1, "compress 0.99 is not a finite number >= 1");
    expect_new_error(1, 100, 4096, 1.0, f64::NEG_INFINITY, 1, "compress -inf is not a finite number >= 1");
    expect_new_error(1, 100, 4096, 1.0, 147.0, 1, "compress 147 is above the maximum the format can produce, 146.2857");
    expect_new_error(1, 100, 4096, 1.0, 1.0, 5000, "threads 5000 exceeds the maximum 4096");
    // SAFETY: a NULL out pointer is a documented error.
    let rc = unsafe { dgen4j_generator_new(1, 100, 4096, 1.0, 1.0, 1, ptr::null_mut()) };
    assert_eq!(rc, DGEN4J_ERR_INVALID_ARGUMENT);
    assert_eq!(last_error(), "out is NULL");
}

#[test]
fn last_error_truncation() {
    expect_new_error(1, 100, 1000, 1.0, 1.0, 1, "block_size 1000 is not a power of two in [512, 67108864]");
    let full = "block_size 1000 is not a power of two in [512, 67108864]";
    for cap in [1usize, 2, 5, full.len(), full.len() + 1, full.len() + 10] {
        let mut buf = vec![0x55 as c_char; cap + 4];
        // SAFETY: `buf` holds at least `cap` bytes.
        let len = unsafe { dgen4j_last_error(buf.as_mut_ptr(), cap) };
        assert_eq!(len, full.len());
        let n = full.len().min(cap - 1);
        let got: Vec<u8> = buf[..n].iter().map(|&c| c as u8).collect();
        assert_eq!(got, full.as_bytes()[..n], "cap {cap}");
        assert_eq!(buf[n], 0, "cap {cap}: NUL");
        assert!(buf[n + 1..].iter().all(|&c| c == 0x55), "cap {cap}: wrote past the NUL");
    }
    // cap 0 with a non-NULL buffer writes nothing.
    let mut byte = 0x55 as c_char;
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    assert_eq!(unsafe { dgen4j_last_error(&mut byte, 0) }, full.len());
    assert_eq!(byte, 0x55);
    // The message stays until the next failure; successful calls leave it.
    let (rc, gen) = new_gen(1, 100, 4096, 1.0, 1.0, 1);
    assert_eq!(rc, DGEN4J_OK);
    assert_eq!(last_error(), full);
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    unsafe { dgen4j_generator_free(gen) };
}

#[test]
fn last_error_is_per_thread() {
    expect_new_error(1, 100, 1000, 1.0, 1.0, 1, "block_size 1000 is not a power of two in [512, 67108864]");
    std::thread::spawn(|| assert_eq!(last_error(), "")).join().unwrap();
}

#[test]
fn fill_matches_the_golden_value() {
    for threads in [1u32, 2, 4] {
        let (rc, gen) = new_gen(7, 65536, 4096, 2.0, 3.0, threads);
        assert_eq!(rc, DGEN4J_OK);
        // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
        unsafe {
            assert_eq!(dgen4j_generator_threads(gen), threads);
            assert_eq!(dgen4j_generator_distinct_blocks(gen), 8);
            let mut buf = vec![0u8; 65536];
            assert_eq!(dgen4j_generator_fill(gen, 0, buf.as_mut_ptr(), 65536), DGEN4J_OK);
            assert_eq!(sha256_hex(&buf), "2e75df196fb011dad7710acd95e5647974a49ab12dda18da775727297c3eaa38");
            let mut part = vec![0u8; 3000];
            assert_eq!(dgen4j_generator_fill(gen, 1000, part.as_mut_ptr(), 3000), DGEN4J_OK);
            assert_eq!(sha256_hex(&part), "cdd4added3f16ab62687eacb46fbebd00c74fdcf80e6f7a9c8b5593bbea0520f");
            dgen4j_generator_free(gen);
        }
    }
}

#[test]
fn fill_errors() {
    let (rc, gen) = new_gen(1, 16, 4096, 1.0, 1.0, 2);
    assert_eq!(rc, DGEN4J_OK);
    let mut buf = [0u8; 64];
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    unsafe {
        assert_eq!(dgen4j_generator_fill(gen, 10, buf.as_mut_ptr(), 20), DGEN4J_ERR_OUT_OF_RANGE);
        assert_eq!(last_error(), "fill range [offset 10, len 20) exceeds stream size 16");
        assert_eq!(dgen4j_generator_fill(gen, u64::MAX, buf.as_mut_ptr(), 2), DGEN4J_ERR_OUT_OF_RANGE);
        assert_eq!(last_error(), format!("fill range [offset {}, len 2) exceeds stream size 16", u64::MAX));
        assert_eq!(dgen4j_generator_fill(gen, 17, buf.as_mut_ptr(), 0), DGEN4J_ERR_OUT_OF_RANGE);
        assert_eq!(dgen4j_generator_fill(gen, 0, ptr::null_mut(), 5), DGEN4J_ERR_INVALID_ARGUMENT);
        assert_eq!(last_error(), "buf is NULL but len is 5");
        assert_eq!(dgen4j_generator_fill(gen, 16, ptr::null_mut(), 0), DGEN4J_OK);
        assert_eq!(dgen4j_generator_fill(ptr::null_mut(), 0, buf.as_mut_ptr(), 1), DGEN4J_ERR_INVALID_ARGUMENT);
        assert_eq!(last_error(), "gen is NULL");
        // The generator still works after the errors.
        assert_eq!(dgen4j_generator_fill(gen, 0, buf.as_mut_ptr(), 16), DGEN4J_OK);
        dgen4j_generator_free(gen);
    }
}

#[test]
fn null_generators() {
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    unsafe {
        dgen4j_generator_free(ptr::null_mut());
        assert_eq!(dgen4j_generator_threads(ptr::null()), 0);
        assert_eq!(dgen4j_generator_distinct_blocks(ptr::null()), 0);
    }
}

#[test]
fn empty_stream_and_default_threads() {
    let (rc, gen) = new_gen(3, 0, 512, 1.0, 1.0, 0);
    assert_eq!(rc, DGEN4J_OK);
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    unsafe {
        assert_eq!(dgen4j_generator_threads(gen), dgen4j_affinity_cpus());
        assert_eq!(dgen4j_generator_distinct_blocks(gen), 0);
        assert_eq!(dgen4j_generator_fill(gen, 0, ptr::null_mut(), 0), DGEN4J_OK);
        dgen4j_generator_free(gen);
    }
}

#[test]
fn cpu_queries() {
    assert!(dgen4j_affinity_cpus() >= 1);
    let want = dgen4j::cpu::features();
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    let len = unsafe { dgen4j_cpu_features(ptr::null_mut(), 0) };
    assert_eq!(len, want.len());
    let mut buf = vec![0 as c_char; len + 1];
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    assert_eq!(unsafe { dgen4j_cpu_features(buf.as_mut_ptr(), buf.len()) }, len);
    let got: Vec<u8> = buf[..len].iter().map(|&c| c as u8).collect();
    assert_eq!(got, want.as_bytes());
    assert_eq!(buf[len], 0);
    #[cfg(target_arch = "x86_64")]
    assert!(want.split(' ').any(|f| f == "sse2"), "{want}");
}

#[test]
fn concurrent_fills_through_the_abi() {
    let (rc, gen) = new_gen(8, 6 << 20, 4096, 1.0, 1.0, 3);
    assert_eq!(rc, DGEN4J_OK);
    let want = common::stream(8, 6 << 20, 4096, 1.0, 1.0, 0, 6 << 20);
    let gen_addr = gen as usize;
    std::thread::scope(|s| {
        for t in 0..4usize {
            let want = &want;
            s.spawn(move || {
                let gen = gen_addr as *mut dgen4j_generator;
                for round in 0..4usize {
                    let a = t * 1_000_003 + round * 77_777;
                    let len = (300 << 10) + t * 4099 + round;
                    let mut buf = vec![0u8; len];
                    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
                    let rc = unsafe { dgen4j_generator_fill(gen, a as u64, buf.as_mut_ptr(), len as u64) };
                    assert_eq!(rc, DGEN4J_OK);
                    assert!(buf == want[a..a + len], "thread {t} round {round}");
                }
            });
        }
    });
    // SAFETY: the generators are live or NULL, the buffers hold the lengths passed.
    unsafe { dgen4j_generator_free(gen) };
}

#[test]
fn verify_through_the_abi() {
    let size = 3u64 << 20;
    for threads in [1u32, 2, 3] {
        let (rc, gen) = new_gen(11, size, 4096, 1.5, 2.0, threads);
        assert_eq!(rc, DGEN4J_OK);
        let mut data = vec![0u8; size as usize];
        let mut at = u64::MAX;
        // SAFETY: the generator is live, the buffers hold the lengths passed, `at` is writable.
        unsafe {
            assert_eq!(dgen4j_generator_fill(gen, 0, data.as_mut_ptr(), size), DGEN4J_OK);
            assert_eq!(dgen4j_generator_verify(gen, 0, data.as_ptr(), size, &mut at), DGEN4J_OK);
            assert_eq!(at, size, "all equal: offset + len");
            for (a, b, flip) in [(0u64, size, 0u64), (0, size, size - 1), (5, size - 7, 1 << 20), (777, 900_000, 899_999)] {
                data[flip as usize] ^= 0x40;
                let rc = dgen4j_generator_verify(gen, a, data.as_ptr().add(a as usize), b - a, &mut at);
                assert_eq!((rc, at), (DGEN4J_OK, flip), "threads {threads} [{a}, {b}) flip {flip}");
                data[flip as usize] ^= 0x40;
            }
            // Errors: like fill.
            assert_eq!(dgen4j_generator_verify(gen, 1, data.as_ptr(), size, &mut at), DGEN4J_ERR_OUT_OF_RANGE);
            assert_eq!(last_error(), format!("fill range [offset 1, len {size}) exceeds stream size {size}"));
            assert_eq!(dgen4j_generator_verify(gen, 0, ptr::null(), 5, &mut at), DGEN4J_ERR_INVALID_ARGUMENT);
            assert_eq!(last_error(), "buf is NULL but len is 5");
            assert_eq!(dgen4j_generator_verify(gen, 0, data.as_ptr(), 5, ptr::null_mut()), DGEN4J_ERR_INVALID_ARGUMENT);
            assert_eq!(last_error(), "mismatch is NULL");
            assert_eq!(dgen4j_generator_verify(ptr::null_mut(), 0, data.as_ptr(), 5, &mut at), DGEN4J_ERR_INVALID_ARGUMENT);
            assert_eq!(last_error(), "gen is NULL");
            assert_eq!(dgen4j_generator_verify(gen, size, ptr::null(), 0, &mut at), DGEN4J_OK);
            assert_eq!(at, size);
            dgen4j_generator_free(gen);
        }
    }
}

#[test]
fn verify_payload_with_crc_through_the_abi() {
    let size = 3u64 << 20;
    for threads in [1u32, 3] {
        let (rc, gen) = new_gen(13, size, 4096, 1.5, 2.0, threads);
        assert_eq!(rc, DGEN4J_OK);
        let mut data = vec![0u8; size as usize];
        let mut at = u64::MAX;
        // SAFETY: the generator is live, the buffers hold the lengths passed, `at` and `crc` are writable.
        unsafe {
            assert_eq!(dgen4j_generator_fill(gen, 0, data.as_mut_ptr(), size), DGEN4J_OK);
            // Two calls continue one CRC: the CRC-32 of the whole, as dgen4j_crc32 sums it.
            let whole = dgen4j_crc32(0, data.as_ptr(), size);
            let mut crc = 0u32;
            let cut = 1_000_003u64;
            assert_eq!(dgen4j_generator_verify_payload(gen, 0, data.as_ptr(), cut, 0, 0, &mut at, &mut crc), DGEN4J_OK);
            assert_eq!(at, cut);
            let rc = dgen4j_generator_verify_payload(gen, cut, data.as_ptr().add(cut as usize), size - cut, 0, 0, &mut at, &mut crc);
            assert_eq!((rc, at, crc), (DGEN4J_OK, size, whole), "threads {threads}");
            for flip in [0u64, 65_535, 65_536, 1 << 20, size - 1] {
                data[flip as usize] ^= 0x40;
                let mut c = 7u32;
                let rc = dgen4j_generator_verify_payload(gen, 0, data.as_ptr(), size, 0, 0, &mut at, &mut c);
                assert_eq!((rc, at, c), (DGEN4J_OK, flip, 7), "threads {threads} flip {flip}: crc left as it was");
                data[flip as usize] ^= 0x40;
            }
            let mut c = 5u32;
            assert_eq!(dgen4j_generator_verify_payload(gen, size, ptr::null(), 0, 0, 0, &mut at, &mut c), DGEN4J_OK);
            assert_eq!((at, c), (size, 5));
            // NULL crc: the compare alone.
            assert_eq!(dgen4j_generator_verify_payload(gen, 0, data.as_ptr(), size, 0, 0, &mut at, ptr::null_mut()), DGEN4J_OK);
            assert_eq!(at, size);
            assert_eq!(dgen4j_generator_verify_payload(gen, 1, data.as_ptr(), size, 0, 0, &mut at, &mut c), DGEN4J_ERR_OUT_OF_RANGE);
            dgen4j_generator_free(gen);
        }
    }
}

#[test]
fn verify_payload_of_finite_values_through_the_abi() {
    let size = 3u64 << 20;
    for threads in [1u32, 3] {
        let (rc, gen) = new_gen(14, size, 4096, 1.0, 1.5, threads);
        assert_eq!(rc, DGEN4J_OK);
        for (code, elem) in [(DGEN4J_FINITE_FLOAT16, 2u64), (DGEN4J_FINITE_BFLOAT16, 2), (DGEN4J_FINITE_FLOAT32, 4), (DGEN4J_FINITE_FLOAT64, 8)] {
            // A payload starting at stream byte 4099 whose first byte is byte 1 of its element (odd
            // offsets and phases: the sector masks' pattern is the stream's, not the buffer's).
            let start = 4099u64;
            let phase = 1u32 % elem as u32;
            let n = size - start;
            let mut got = vec![0u8; n as usize];
            let mut at = u64::MAX;
            // SAFETY: the generator is live, the buffers hold the lengths passed, `at` and `crc` are writable.
            unsafe {
                let mut crc = 0u32;
                assert_eq!(dgen4j_generator_fill_payload(gen, start, got.as_mut_ptr(), n, code, phase, &mut crc), DGEN4J_OK);
                let mut sum = 0u32;
                let rc = dgen4j_generator_verify_payload(gen, start, got.as_ptr(), n, code, phase, &mut at, &mut sum);
                assert_eq!((rc, at, sum), (DGEN4J_OK, start + n, crc), "finite {code} threads {threads}");
                let rc = dgen4j_generator_verify_payload(gen, start, got.as_ptr(), n, code, phase, &mut at, ptr::null_mut());
                assert_eq!((rc, at), (DGEN4J_OK, start + n));
                // Unmasked, the masked bytes differ somewhere; with the wrong phase too.
                assert_eq!(dgen4j_generator_verify_payload(gen, start, got.as_ptr(), n, 0, 0, &mut at, ptr::null_mut()), DGEN4J_OK);
                assert!(at < start + n, "finite {code}: masking changed no byte");
                if elem > 1 {
                    let wrong = (phase + 1) % elem as u32;
                    assert_eq!(dgen4j_generator_verify_payload(gen, start, got.as_ptr(), n, code, wrong, &mut at, ptr::null_mut()), DGEN4J_OK);
                    assert!(at < start + n, "finite {code}: the wrong phase matched");
                }
                // A flipped byte anywhere is found where it is, and leaves the CRC as it was.
                for flip in [0u64, 1, 65_535, 1 << 20, n - 1] {
                    got[flip as usize] ^= 0x01;
                    let mut c = 9u32;
                    let rc = dgen4j_generator_verify_payload(gen, start, got.as_ptr(), n, code, phase, &mut at, &mut c);
                    assert_eq!((rc, at, c), (DGEN4J_OK, start + flip, 9), "finite {code} threads {threads} flip {flip}");
                    got[flip as usize] ^= 0x01;
                }
                assert_eq!(dgen4j_generator_verify_payload(gen, 0, got.as_ptr(), 8, 9, 0, &mut at, ptr::null_mut()), DGEN4J_ERR_INVALID_ARGUMENT);
                assert_eq!(last_error(), "finite 9 is not a DGEN4J_FINITE_* code (0 to 4)");
                assert_eq!(dgen4j_generator_verify_payload(gen, 0, got.as_ptr(), 8, code, elem as u32, &mut at, ptr::null_mut()), DGEN4J_ERR_INVALID_ARGUMENT);
                assert_eq!(last_error(), format!("phase {elem} is not below the element size {elem}"));
            }
        }
        // SAFETY: the generator is live and not used after.
        unsafe { dgen4j_generator_free(gen) };
    }
}

/// S3's part checksum as the generator fills: the stream's bytes, their CRC-32C (the known
/// value of the bytes, continued across calls), and the errors of a bad call.
#[test]
fn fill_with_crc32c_through_the_abi() {
    let size = 5u64 << 20;
    for threads in [1u32, 3] {
        let (rc, gen) = new_gen(13, size, 4096, 2.0, 1.5, threads);
        assert_eq!(rc, DGEN4J_OK);
        let mut plain = vec![0u8; size as usize];
        let mut got = vec![0u8; size as usize];
        // SAFETY: the generator is live, the buffers hold the lengths passed, `crc` is writable.
        unsafe {
            assert_eq!(dgen4j_generator_fill(gen, 0, plain.as_mut_ptr(), size), DGEN4J_OK);
            let mut crc = 0u32;
            assert_eq!(dgen4j_generator_fill_crc32c(gen, 0, got.as_mut_ptr(), 3_000_001, &mut crc), DGEN4J_OK);
            let rest = size - 3_000_001;
            let tail = got.as_mut_ptr().add(3_000_001);
            assert_eq!(dgen4j_generator_fill_crc32c(gen, 3_000_001, tail, rest, &mut crc), DGEN4J_OK);
            assert!(got == plain, "threads {threads}");
            assert_eq!(crc, dgen4j::crc32c::update_table(0, &plain), "threads {threads}");
            let mut empty = 7u32;
            assert_eq!(dgen4j_generator_fill_crc32c(gen, 0, got.as_mut_ptr(), 0, &mut empty), DGEN4J_OK);
            assert_eq!(empty, 7, "nothing filled, nothing summed");
            assert_eq!(dgen4j_generator_fill_crc32c(gen, 0, got.as_mut_ptr(), 8, ptr::null_mut()), DGEN4J_ERR_INVALID_ARGUMENT);
            assert_eq!(dgen4j_generator_fill_crc32c(gen, size - 4, got.as_mut_ptr(), 8, &mut crc), DGEN4J_ERR_OUT_OF_RANGE);
            dgen4j_generator_free(gen);
        }
    }
}

#[test]
fn payload_fill_and_crc_through_the_abi() {
    let size = 3u64 << 20;
    for threads in [1u32, 3] {
        let (rc, gen) = new_gen(12, size, 4096, 1.0, 1.0, threads);
        assert_eq!(rc, DGEN4J_OK);
        let mut plain = vec![0u8; size as usize];
        let mut got = vec![0u8; size as usize];
        // SAFETY: the generator is live, the buffers hold the lengths passed, `crc` is writable.
        unsafe {
            assert_eq!(dgen4j_generator_fill(gen, 0, plain.as_mut_ptr(), size), DGEN4J_OK);
            // No masking: the stream's bytes and their CRC, continued across two calls.
            let mut crc = 0u32;
            assert_eq!(dgen4j_generator_fill_payload(gen, 0, got.as_mut_ptr(), 1_000_001, 0, 0, &mut crc), DGEN4J_OK);
            let rest = size - 1_000_001;
            let tail = got.as_mut_ptr().add(1_000_001);
            assert_eq!(dgen4j_generator_fill_payload(gen, 1_000_001, tail, rest, 0, 0, &mut crc), DGEN4J_OK);
            assert!(got == plain, "threads {threads}");
            assert_eq!(crc, dgen4j_crc32(0, plain.as_ptr(), size));
            assert_eq!(crc, dgen4j_crc32(dgen4j_crc32(0, plain.as_ptr(), 10), plain.as_ptr().add(10), size - 10));
            let (a, b) = (dgen4j_crc32(0, plain.as_ptr(), 999), dgen4j_crc32(0, plain.as_ptr().add(999), size - 999));
            assert_eq!(dgen4j_crc32_combine(a, b, size - 999), crc);
            // float16: every value finite (top exponent bit cleared), from an odd offset.
            let mut crc = 0u32;
            let start = 7u64;
            let n = size - start;
            assert_eq!(
                dgen4j_generator_fill_payload(gen, start, got.as_mut_ptr(), n, DGEN4J_FINITE_FLOAT16, 1, &mut crc),
                DGEN4J_OK
            );
            assert_eq!(crc, dgen4j_crc32(0, got.as_ptr(), n));
            let mut changed = 0;
            for e in (1..n as usize - 1).step_by(2) {
                let (want, have) = (
                    u16::from_le_bytes([plain[start as usize + e], plain[start as usize + e + 1]]),
                    u16::from_le_bytes([got[e], got[e + 1]]),
                );
                assert_ne!(have & 0x7C00, 0x7C00, "element at stream byte {}", start as usize + e);
                assert_eq!(have, want & !0x4000);
                if want & 0x7C00 == 0x7C00 {
                    changed += 1;
                }
            }
            assert!(changed > 1000, "{changed} non-finite values in {n} random bytes");
            // NULL crc: no CRC, same bytes.
            let mut again = vec![0u8; n as usize];
            assert_eq!(
                dgen4j_generator_fill_payload(gen, start, again.as_mut_ptr(), n, DGEN4J_FINITE_FLOAT16, 1, ptr::null_mut()),
                DGEN4J_OK
            );
            assert!(again == got[..n as usize]);
            // Errors.
            assert_eq!(dgen4j_generator_fill_payload(gen, 0, got.as_mut_ptr(), 8, 9, 0, &mut crc), DGEN4J_ERR_INVALID_ARGUMENT);
            assert_eq!(last_error(), "finite 9 is not a DGEN4J_FINITE_* code (0 to 4)");
            assert_eq!(
                dgen4j_generator_fill_payload(gen, 0, got.as_mut_ptr(), 8, DGEN4J_FINITE_FLOAT32, 4, &mut crc),
                DGEN4J_ERR_INVALID_ARGUMENT
            );
            assert_eq!(last_error(), "phase 4 is not below the element size 4");
            assert_eq!(dgen4j_generator_fill_payload(gen, 1, got.as_mut_ptr(), size, 0, 0, &mut crc), DGEN4J_ERR_OUT_OF_RANGE);
            assert_eq!(dgen4j_generator_fill_payload(ptr::null_mut(), 0, got.as_mut_ptr(), 8, 0, 0, &mut crc), DGEN4J_ERR_INVALID_ARGUMENT);
            assert_eq!(last_error(), "gen is NULL");
            assert_eq!(dgen4j_crc32(5, ptr::null(), 0), 5);
            assert_eq!(dgen4j_crc32(0, b"123456789".as_ptr(), 9), 0xCBF4_3926);
            dgen4j_generator_free(gen);
        }
    }
}
