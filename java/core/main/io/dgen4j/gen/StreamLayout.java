package io.dgen4j.gen;

/**
 * The data model of docs/FORMAT.md in Java: the primitives, the dedup permutation and one
 * stripe's bytes. Shared by {@link DataSpec} (derived counts) and {@link JavaGenerator}.
 */
final class StreamLayout {
    static final long GOLDEN = 0x9E3779B97F4A7C15L;
    static final long T_SEED = 0x6467656E346A2D31L;
    static final long T_PERM = 0x7065726D2D6B6579L;
    static final long T_BLOCK = 0x626C6F636B2D6964L;
    static final long T_STRIPE = 0x7374726970652D23L;
    static final int SECTOR = 512;
    static final int MAX_STRIPE = 4096;
    static final int LANES = 8;
    /**
     * The saturation point of {@link #randomBytesPerSector}: the largest ratio for which
     * {@code floor(512 / compress + 0.5) - 3 >= 1}, i.e. {@code 512 / compress >= 3.5}. Above it
     * the clamp to 1 random byte binds and the bytes no longer depend on the ratio.
     */
    static final double MAX_COMPRESS_RATIO = SECTOR / 3.5;

    private StreamLayout() {}

    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static long blocks(long size, int blockSize) {
        return size == 0 ? 0 : (size - 1) / blockSize + 1;
    }

    static long distinct(long blocks, double dedup) {
        if (blocks == 0) {
            return 0;
        }
        long d = (long) Math.floor((double) blocks / dedup + 0.5);
        return Math.max(1, Math.min(d, blocks));
    }

    static int randomBytesPerSector(double compress) {
        if (compress == 1.0) {
            return SECTOR;
        }
        return (int) Math.max((long) Math.floor(SECTOR / compress + 0.5) - 3, 1);
    }

    /** The keyed permutation of [0, n) and the block → unique block map of FORMAT.md section 3. */
    static final class Dedup {
        private final long n;
        private final long distinct;
        private final int half;
        private final long mask;
        private final long[] roundKeys = new long[4];

        Dedup(long key, long n, long distinct) {
            this.n = n;
            this.distinct = distinct;
            int k = 2;
            while (k < 63 && (1L << k) < n) {
                k += 2;
            }
            this.half = k / 2;
            this.mask = (1L << half) - 1;
            long x = key ^ T_PERM;
            for (int j = 0; j < 4; j++) {
                x += GOLDEN;
                roundKeys[j] = mix64(x);
            }
        }

        long uniqueOf(long block) {
            if (distinct == n) {
                return block;
            }
            long y = feistel(block);
            while (y >= n) {
                y = feistel(y);
            }
            return y % distinct;
        }

        private long feistel(long x) {
            long left = x >>> half;
            long right = x & mask;
            for (long rk : roundKeys) {
                long next = left ^ (mix64(right ^ rk) & mask);
                left = right;
                right = next;
            }
            return (left << half) | right;
        }
    }
}
