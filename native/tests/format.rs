//! The byte format of docs/FORMAT.md: golden values, chunking and thread-count
//! independence, exact dedup, sector structure, seed separation.

mod common;

use std::collections::HashSet;

use common::{hex, sha256_hex, stream, Rand};
use dgen4j::layout::{self, Spec};
use dgen4j::pool::Pool;

/// A golden row.
type Row = (u64, u64, u64, f64, f64, u64, u64, &'static str, &'static str);

/// (seed, size, block, dedup, compress, offset, len, sha256, first 16 bytes or "").
/// The first six rows are FORMAT.md section 6; the others come from
/// `python3 docs/format_reference.py` (partial blocks, r not a multiple of 64, stripe
/// sizes 512 and 2048, blocks larger than a stripe, a 1-byte read at the end).
const GOLDEN: &[Row] = &[
    (7, 65536, 4096, 1.0, 1.0, 0, 65536,
     "f4f5c255b62585875437eb3bf62bde19b261e2ada5221992a0a7debeb3bc89cf", "36f52e8a8e74212d8df3a674d4910b3b"),
    (7, 65536, 4096, 2.0, 3.0, 0, 65536,
     "2e75df196fb011dad7710acd95e5647974a49ab12dda18da775727297c3eaa38", ""),
    (7, 65536, 4096, 2.0, 3.0, 1000, 3000,
     "cdd4added3f16ab62687eacb46fbebd00c74fdcf80e6f7a9c8b5593bbea0520f", ""),
    (42, 100000, 512, 1.5, 1.0, 0, 100000,
     "078d32a9d391542abfaa4180529f33cc49fafe065c9f3d7445d7b252a4a44ff9", ""),
    (0, 300000, 65536, 3.0, 8.0, 0, 300000,
     "6c804e3608a18b4147ef56ff037d662d681a9bccf24661ff1e79ef68a702bcbb", ""),
    (u64::MAX, 40960, 1024, 7.3, 2.5, 123, 40000,
     "55ee8dfe19845cfa49ee4f008ae74bca638777aa32677d1acda42480a3a97b3b", "29606b8bf46e71bb912b714303ca374d"),
    (1, 197385, 65536, 1.7, 1.5, 4000, 150000,
     "6d01b0d03628c5bb48959741e20e9ff125e35ec5d54a15864b07363bdfa5d569", "00000000000000000000000000000000"),
    (123456789, 1048576, 2048, 4.0, 4.0, 0, 1048576,
     "b49195e7f831e50c760171f58c56139e66738c53b8dcb9cbecef2159198f9261", "020f054562ba4533d0bd0d8dad2e4837"),
    (99, 200000, 4096, 1.0, 1.1, 1, 199998,
     "c5fca4b101e3046eede652d1b8a260a1797ec1deaa4443885b387447c33ec48d", "13e04ac60a155728ce1d55cda0e244dc"),
    (5, 1000000, 512, 1000.0, 1.01, 333333, 12345,
     "c3fdf5d4da4dfcef5bdff44ebcb81a3e0b6340df22f8711701766068c8e07597", "cdd2773d314b474f928a3a8943ec6310"),
    (u64::MAX, 100000, 131072, 1.0, 1.0, 99999, 1,
     "4c94485e0c21ae6c41ce1dfe7b6bfaceea5ab68e40a2476f50208e526f506080", "76"),
];

#[test]
fn sha256_self_test() {
    assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    // Padding boundaries.
    assert_eq!(sha256_hex(&[b'a'; 55]), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    assert_eq!(sha256_hex(&[b'a'; 56]), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    assert_eq!(sha256_hex(&[b'a'; 64]), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    assert_eq!(sha256_hex(&[b'a'; 65]), "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0");
}

#[test]
fn golden_values() {
    for &(seed, size, block, dedup, compress, offset, len, sha, head) in GOLDEN {
        let data = stream(seed, size, block, dedup, compress, offset, len);
        let row = format!("seed {seed} size {size} block {block} dedup {dedup} compress {compress} [{offset}, +{len})");
        assert_eq!(sha256_hex(&data), sha, "{row}");
        if !head.is_empty() {
            assert_eq!(hex(&data[..head.len() / 2]), head, "{row}");
        }
    }
}

#[test]
fn first_sixteen_bytes() {
    let data = stream(7, 65536, 4096, 1.0, 1.0, 0, 16);
    assert_eq!(hex(&data), "36f52e8a8e74212d8df3a674d4910b3b");
}

#[test]
fn golden_values_through_pools() {
    for threads in 1..=4 {
        for &(seed, size, block, dedup, compress, offset, len, sha, _) in GOLDEN {
            let pool = Pool::new(Spec::new(seed, size, block, dedup, compress).unwrap(), threads).unwrap();
            let mut data = vec![0u8; len as usize];
            pool.fill(offset, &mut data).unwrap();
            assert_eq!(sha256_hex(&data), sha, "threads {threads} seed {seed}");
        }
    }
}

#[test]
fn chunking_independence() {
    let specs = [
        Spec::new(77, (3 << 20) + 12345, 4096, 1.0, 1.0).unwrap(),
        Spec::new(78, (2 << 20) + 1, 512, 2.5, 3.0).unwrap(),
        Spec::new(79, (2 << 20) + 777, 1 << 20, 1.3, 1.7).unwrap(),
        Spec::new(80, 5 * 65536 + 100, 65536, 2.0, 8.0).unwrap(),
    ];
    let mut rand = Rand(2024);
    for spec in &specs {
        let size = spec.size();
        let mut whole = vec![0u8; size as usize];
        layout::fill(spec, 0, &mut whole).unwrap();
        // Consecutive random chunks covering the whole stream, lengths from 1 B to 200 KB.
        for _ in 0..3 {
            let mut joined = Vec::with_capacity(size as usize);
            while (joined.len() as u64) < size {
                let scale = [16u64, 600, 5000, 200_000][rand.below(4) as usize];
                let len = (1 + rand.below(scale)).min(size - joined.len() as u64) as usize;
                let at = joined.len();
                joined.resize(at + len, 0);
                layout::fill(spec, at as u64, &mut joined[at..]).unwrap();
            }
            assert!(joined == whole, "seed {}", spec.seed());
        }
        // Random ranges anywhere.
        for _ in 0..300 {
            let offset = rand.below(size + 1);
            let len = rand.below((size - offset).min(70_000) + 1);
            let mut part = vec![0u8; len as usize];
            layout::fill(spec, offset, &mut part).unwrap();
            assert!(part == whole[offset as usize..(offset + len) as usize], "[{offset}, +{len})");
        }
    }
}

#[test]
fn thread_counts_give_identical_bytes() {
    let spec = Spec::new(31337, (12 << 20) + 4321, 8192, 1.7, 2.0).unwrap();
    let mut want = vec![0u8; spec.size() as usize];
    layout::fill(&spec, 0, &mut want).unwrap();
    for threads in 1..=4 {
        let pool = Pool::new(spec.clone(), threads).unwrap();
        assert_eq!(pool.threads(), threads);
        let mut got = vec![0u8; spec.size() as usize];
        pool.fill(0, &mut got).unwrap();
        assert!(got == want, "threads {threads}");
        let (a, b) = (65535usize, (9 << 20) + 3);
        let mut part = vec![0u8; b - a];
        pool.fill(a as u64, &mut part).unwrap();
        assert!(part == want[a..b], "threads {threads} part");
    }
}

fn distinct_blocks(bytes: &[u8], block: usize) -> usize {
    bytes.chunks_exact(block).collect::<HashSet<_>>().len()
}

#[test]
fn dedup_is_exact() {
    for (blocks, dedup, want) in [(1000u64, 1.5, 667usize), (1000, 2.0, 500), (1000, 1.0, 1000), (1000, 1001.0, 1),
        (1000, 3.0, 333), (1000, 7.3, 137), (1, 2.0, 1), (7, 2.0, 4)]
    {
        for compress in [1.0, 4.0] {
            let spec = Spec::new(blocks, blocks * 4096, 4096, dedup, compress).unwrap();
            assert_eq!(spec.distinct(), want as u64);
            let mut data = vec![0u8; (blocks * 4096) as usize];
            layout::fill(&spec, 0, &mut data).unwrap();
            assert_eq!(distinct_blocks(&data, 4096), want, "{blocks} blocks, dedup {dedup}, compress {compress}");
        }
    }
    // Other block sizes, and a partial last block that is a prefix of its unique block.
    for (block, dedup) in [(512usize, 2.0), (65536, 3.0), (8192, 1.25)] {
        let size = 600 * block + block / 2 + 1;
        let spec = Spec::new(4, size as u64, block as u64, dedup, 1.0).unwrap();
        let mut data = vec![0u8; size];
        layout::fill(&spec, 0, &mut data).unwrap();
        // The whole blocks show every unique block but u(600) when only block 600 shows it,
        // and block 600 is the prefix of its unique block.
        let last = spec.unique_of(600);
        let twin = (0..600).find(|&i| spec.unique_of(i) == last);
        let want = spec.distinct() - u64::from(twin.is_none());
        assert_eq!(distinct_blocks(&data[..600 * block], block) as u64, want, "block {block}");
        if let Some(i) = twin {
            let i = i as usize;
            assert!(data[600 * block..] == data[i * block..i * block + block / 2 + 1], "block {block}");
        }
    }
}

#[test]
fn no_sector_is_all_zero_and_tails_are_zero() {
    for compress in [1.0, 1.5, 2.0, 3.0, 4.0, 8.0, 100.0, layout::MAX_COMPRESS] {
        let spec = Spec::new(12, 4 << 20, 4096, 1.0, compress).unwrap();
        let r = spec.random_bytes();
        let mut data = vec![0u8; 4 << 20];
        layout::fill(&spec, 0, &mut data).unwrap();
        for (k, sector) in data.chunks_exact(512).enumerate() {
            // With r random bytes a sector is all zero with probability 256^-r: never seen
            // for r >= 61 (compress <= 8), but 1 sector in 256 when r = 1 (compress above 113.8, up to the maximum 146.29).
            if compress <= 8.0 {
                assert!(sector.iter().any(|&b| b != 0), "compress {compress}: sector {k} is all zero");
            }
            assert!(sector[r..].iter().all(|&b| b == 0), "compress {compress}: sector {k} tail");
        }
        let nonzero = data.iter().filter(|&&b| b != 0).count() as f64;
        let expected = (data.len() / 512 * r) as f64 * 255.0 / 256.0;
        assert!((nonzero - expected).abs() < expected * 0.01 + 16.0, "compress {compress}: {nonzero} vs {expected}");
    }
}

#[test]
fn seeds_share_no_block() {
    for compress in [1.0, 8.0] {
        let mut seen = HashSet::new();
        for seed in [0u64, 1, 2, u64::MAX] {
            let data = stream(seed, 4 << 20, 4096, 1.0, compress, 0, 4 << 20);
            for block in data.chunks_exact(4096) {
                assert!(seen.insert(block.to_vec()), "seed {seed} compress {compress}: a block repeats");
            }
        }
    }
}
