package io.dgen4j.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.HdrHistogram.IntCountsHistogram;
import org.junit.jupiter.api.Test;

/** The driver's latency histogram gives the percentiles HdrHistogram gave for the same latencies. */
class LatencyHistogramTest {
    private static final double[] PERCENTILES = {0, 0.1, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 100};

    /** Records {@code values} in both and compares every percentile and the count. */
    private static void same(long... values) {
        LatencyHistogram ours = new LatencyHistogram();
        IntCountsHistogram hdr = new IntCountsHistogram(10, 1000, 2);
        hdr.setAutoResize(true);
        for (long v : values) {
            ours.record(v);
            hdr.recordValue(Math.max(0, v));
        }
        assertEquals(hdr.getTotalCount(), ours.count());
        for (double p : PERCENTILES) {
            assertEquals(hdr.getValueAtPercentile(p), ours.valueAtPercentile(p), "p" + p + " of " + values.length);
        }
    }

    @Test
    void emptyIsZero() {
        assertEquals(0, new LatencyHistogram().valueAtPercentile(50));
        assertEquals(0, new LatencyHistogram().count());
    }

    @Test
    void bucketEdgesMatch() {
        for (long v : new long[] {0, 1, 7, 8, 9, 10, 2039, 2040, 2047, 2048, 2049, 4095, 4096, 4111, 4112,
                1L << 20, (1L << 20) + 1, 60_000_000, 3_600_000_000L, Long.MAX_VALUE / 4}) {
            same(v);
            same(v, v + 1, v * 2 + 3);
        }
        same(-5, 3);
    }

    @Test
    void randomLatenciesFromMicrosecondsToMinutesMatch() {
        SplittableRandom random = new SplittableRandom(23);
        for (int n : new int[] {1, 2, 3, 7, 100, 1001, 100_000}) {
            long[] values = new long[n];
            for (int i = 0; i < n; i++) {
                // log-uniform from 1 µs to ~2 minutes, as request latencies spread
                values[i] = (long) Math.pow(10, random.nextDouble(0, 8.1));
            }
            same(values);
        }
    }
}
