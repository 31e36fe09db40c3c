package io.dgen4j.s3.internal;

import java.util.Arrays;

/**
 * Request latencies in microseconds, counted in log-linear buckets with 2 significant digits (each
 * value within 1 % of the bucket it lands in), from 8 µs resolution up, growing as larger values come.
 * The layout and the percentile rule are HdrHistogram's for {@code IntCountsHistogram(10, 1000, 2)}
 * with auto-resize, which this replaced (that jar has no module name, so no published artifact could
 * require it): the same latencies give the same p50 and p99. ~9 KiB for latencies up to minutes. Not
 * thread-safe.
 */
final class LatencyHistogram {
    /** Values below 2^UNIT share a bucket: 10 µs, HdrHistogram's lowest discernible value, rounds down to 8. */
    private static final int UNIT = 3;
    /** 2 significant digits need 2 * 10^2 = 200 distinct steps per bucket: 2^8 = 256, of which each bucket after the first uses the upper half. */
    private static final int HALF_MAGNITUDE = 7;
    private static final int HALF = 1 << HALF_MAGNITUDE;
    private static final long MASK = ((long) (2 * HALF) - 1) << UNIT;
    private static final int ZEROS_BASE = 64 - UNIT - HALF_MAGNITUDE - 1;

    /** Counts per sub-bucket: the first bucket's 256, then 128 for each bucket of twice the range. */
    private int[] counts = new int[2 * HALF];
    private long total;

    /** Counts one latency of {@code micros} (negative values count as 0). */
    void record(long micros) {
        long v = Math.max(0, micros);
        int bucket = bucket(v);
        int index = ((bucket + 1) << HALF_MAGNITUDE) + (int) (v >>> (bucket + UNIT)) - HALF;
        if (index >= counts.length) {
            counts = Arrays.copyOf(counts, (index / HALF + 1) * HALF);
        }
        counts[index]++;
        total++;
    }

    /** How many latencies were counted. */
    long count() {
        return total;
    }

    /**
     * The highest value of the bucket that holds the latency at {@code percentile} (0 to 100) of those
     * counted, in microseconds; 0 when none was.
     */
    long valueAtPercentile(double percentile) {
        double p = Math.min(Math.max(Math.nextAfter(percentile, Double.NEGATIVE_INFINITY), 0), 100);
        long wanted = Math.max(1, (long) Math.ceil(p * total / 100));
        long sum = 0;
        for (int i = 0; i < counts.length; i++) {
            sum += counts[i];
            if (sum >= wanted) {
                int bucket = (i >> HALF_MAGNITUDE) - 1;
                int sub = (i & (HALF - 1)) + HALF;
                if (bucket < 0) {
                    sub -= HALF;
                    bucket = 0;
                }
                long lowest = (long) sub << (bucket + UNIT);
                return percentile == 0 ? lowest : lowest + (1L << (bucket(lowest) + UNIT)) - 1;
            }
        }
        return 0;
    }

    /** The bucket of {@code v}: how many times its range doubles past the first bucket's. */
    private static int bucket(long v) {
        return ZEROS_BASE - Long.numberOfLeadingZeros(v | MASK);
    }
}
