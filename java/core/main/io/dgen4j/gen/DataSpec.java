package io.dgen4j.gen;

import java.security.SecureRandom;
import java.util.Objects;

/**
 * The immutable description of one generated stream: {@code (seed, size, blockSize, dedupRatio,
 * compressRatio)}. The bytes are a pure function of these five values (docs/FORMAT.md).
 *
 * {@snippet :
 * DataSpec spec = DataSpec.builder()
 *         .size(1L << 30)
 *         .dedupRatio(2.0)       // half the 4 KiB blocks are repeats
 *         .compressRatio(3.0)    // zstd/lz4/deflate shrink it about 3x
 *         .seed(7)
 *         .build();
 * }
 *
 * <p>Without a seed the builder takes the process seed ({@link #processSeed()}), drawn once per
 * JVM from {@link SecureRandom}; {@link #seedIsRandom()} says so, so the run can be reported and
 * reproduced with {@code seed(spec.seed())}.
 */
public final class DataSpec {
    /** Version of the byte format of docs/FORMAT.md that this spec describes. */
    public static final int FORMAT_VERSION = 1;
    /** Default dedup granularity. */
    public static final int DEFAULT_BLOCK_SIZE = 4096;
    /** Smallest block size (one sector). */
    public static final int MIN_BLOCK_SIZE = 512;
    /** Largest block size, 64 MiB. */
    public static final int MAX_BLOCK_SIZE = 64 << 20;
    /**
     * Largest compression ratio the format can produce: 1024 / 7 = 146.2857... The random bytes per
     * sector are {@code max(floor(512 / compress + 0.5) - 3, 1)} (docs/FORMAT.md section 2); above
     * this value the {@code max(..., 1)} binds, so every larger ratio gives the same bytes as this
     * one and asking for it would claim a ratio the data does not have.
     */
    public static final double MAX_COMPRESS_RATIO = StreamLayout.MAX_COMPRESS_RATIO;

    private static final class ProcessSeed {
        static final long VALUE = new SecureRandom().nextLong();
    }

    private final long size;
    private final long seed;
    private final boolean seedIsRandom;
    private final int blockSize;
    private final double dedupRatio;
    private final double compressRatio;

    private DataSpec(Builder b) {
        this.size = b.size;
        this.seedIsRandom = b.seed == null;
        this.seed = seedIsRandom ? processSeed() : b.seed;
        this.blockSize = b.blockSize;
        this.dedupRatio = b.dedupRatio;
        this.compressRatio = b.compressRatio;
    }

    /** A builder with the defaults: size 0, block 4 KiB, ratios 1, the process seed. */
    public static Builder builder() {
        return new Builder();
    }

    /** An incompressible, dedup-free stream of {@code size} bytes with the process seed. */
    public static DataSpec ofSize(long size) {
        return builder().size(size).build();
    }

    /** The random seed of this JVM, drawn once, used by every spec built without a seed. */
    public static long processSeed() {
        return ProcessSeed.VALUE;
    }

    /** A builder holding this spec's values (the seed fixed to this spec's seed). */
    public Builder toBuilder() {
        return builder().size(size).seed(seed).blockSize(blockSize)
                .dedupRatio(dedupRatio).compressRatio(compressRatio);
    }

    /** Stream length in bytes. */
    public long size() {
        return size;
    }

    /** The seed, an unsigned 64-bit value held in a {@code long}. */
    public long seed() {
        return seed;
    }

    /** Whether the seed was drawn at random for this process rather than given. */
    public boolean seedIsRandom() {
        return seedIsRandom;
    }

    /** Dedup granularity in bytes, a power of two in [512, 64 MiB]. */
    public int blockSize() {
        return blockSize;
    }

    /** Blocks per distinct block, {@code >= 1}. */
    public double dedupRatio() {
        return dedupRatio;
    }

    /** Target ratio of size to compressed size, {@code >= 1}. */
    public double compressRatio() {
        return compressRatio;
    }

    /** Number of blocks, the last one possibly partial: {@code ceil(size / blockSize)}. */
    public long blocks() {
        return StreamLayout.blocks(size, blockSize);
    }

    /** Number of distinct whole blocks: {@code round(blocks / dedupRatio)}, clamped to [1, blocks]. */
    public long distinctBlocks() {
        return StreamLayout.distinct(blocks(), dedupRatio);
    }

    /** Random bytes at the head of every 512-byte sector; the rest of the sector is zero. */
    public int randomBytesPerSector() {
        return StreamLayout.randomBytesPerSector(compressRatio);
    }

    /** The seed as an unsigned decimal string, as the CLI prints and parses it. */
    public String seedString() {
        return Long.toUnsignedString(seed);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DataSpec d && d.size == size && d.seed == seed && d.blockSize == blockSize
                && Double.compare(d.dedupRatio, dedupRatio) == 0
                && Double.compare(d.compressRatio, compressRatio) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(size, seed, blockSize, dedupRatio, compressRatio);
    }

    @Override
    public String toString() {
        return String.format("DataSpec[size=%d, seed=%s%s, blockSize=%d, dedup=%s, compress=%s]",
                size, seedString(), seedIsRandom ? " (random)" : "", blockSize, dedupRatio, compressRatio);
    }

    /** Validating builder of {@link DataSpec}; every setter rejects bad input at once. */
    public static final class Builder {
        private long size;
        private Long seed;
        private int blockSize = DEFAULT_BLOCK_SIZE;
        private double dedupRatio = 1.0;
        private double compressRatio = 1.0;

        private Builder() {}

        /** Stream length in bytes, {@code >= 0}. */
        public Builder size(long size) {
            if (size < 0) {
                throw new IllegalArgumentException("size must be >= 0 bytes, got " + size);
            }
            this.size = size;
            return this;
        }

        /** The seed (any 64-bit value; read as unsigned). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Use the process's random seed (the default). */
        public Builder randomSeed() {
            this.seed = null;
            return this;
        }

        /** Dedup granularity: a power of two in [512 B, 64 MiB]. */
        public Builder blockSize(int blockSize) {
            if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE || Integer.bitCount(blockSize) != 1) {
                throw new IllegalArgumentException(String.format(
                        "block size must be a power of two in [%d, %d] bytes, got %d",
                        MIN_BLOCK_SIZE, MAX_BLOCK_SIZE, blockSize));
            }
            this.blockSize = blockSize;
            return this;
        }

        /** Blocks per distinct block: finite and {@code >= 1} (1 = no dedup; fractions honoured). */
        public Builder dedupRatio(double ratio) {
            this.dedupRatio = checkRatio("dedup", ratio);
            return this;
        }

        /**
         * Target compression ratio: finite, {@code >= 1} (1 = incompressible) and at most
         * {@link #MAX_COMPRESS_RATIO}, the largest ratio the format can produce.
         */
        public Builder compressRatio(double ratio) {
            checkRatio("compress", ratio);
            if (ratio > MAX_COMPRESS_RATIO) {
                throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                        "compress ratio %s is above the maximum the format can produce, %.4f (= 1024/7: at most "
                                + "512 bytes per sector of which at least 1 is random, docs/FORMAT.md)",
                        ratio, MAX_COMPRESS_RATIO));
            }
            this.compressRatio = ratio;
            return this;
        }

        /** The spec. */
        public DataSpec build() {
            return new DataSpec(this);
        }

        private static double checkRatio(String name, double ratio) {
            if (Double.isNaN(ratio) || Double.isInfinite(ratio) || ratio < 1.0) {
                throw new IllegalArgumentException(String.format(
                        "%s ratio must be a finite number >= 1, got %s", name, ratio));
            }
            return ratio;
        }
    }
}
