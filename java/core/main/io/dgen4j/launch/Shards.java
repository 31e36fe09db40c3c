package io.dgen4j.launch;

/**
 * Per-rank names and seeds: under a launcher each rank writes its own shard, with its own stream.
 *
 * <p>Names ({@link #target(String, LaunchInfo)}): a target holding {@value #PLACEHOLDER} has every
 * occurrence replaced by the rank ({@code s3://b/ckpt-{rank}.bin} becomes {@code s3://b/ckpt-3.bin});
 * any other target gets {@code .rank<r>} appended ({@code /data/ckpt} becomes {@code /data/ckpt.rank3}).
 * A single process (no launcher) keeps its target as is, with {@value #PLACEHOLDER} standing for 0.
 *
 * <p>Seeds ({@link #seed(long, int)}): rank r's seed is SplitMix64's finalizer of
 * {@code base + (r + 1) * 0x9E3779B97F4A7C15}: distinct for distinct ranks (the finalizer is a bijection
 * and the odd step never repeats within 2^64 ranks), reproducible from the base, and unrelated to the
 * base's own stream.
 */
public final class Shards {
    /** The placeholder a target may hold for the rank. */
    public static final String PLACEHOLDER = "{rank}";

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private Shards() {}

    /** This rank's target: {@value #PLACEHOLDER} substituted, else {@code .rank<r>} appended under a launcher. */
    public static String target(String target, LaunchInfo launch) {
        if (target.contains(PLACEHOLDER)) {
            return target.replace(PLACEHOLDER, Integer.toString(launch.rank()));
        }
        return launch.launched() ? target + ".rank" + launch.rank() : target;
    }

    /** Rank {@code rank}'s seed from the job's {@code base} seed. */
    public static long seed(long base, int rank) {
        if (rank < 0) {
            throw new IllegalArgumentException("rank must be >= 0, got " + rank);
        }
        long z = base + (rank + 1L) * GOLDEN;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
