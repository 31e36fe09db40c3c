package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dgen4j.unit.ByteSize;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rank-0 aggregate: total bytes over the slowest rank's time, and the ranks' own min/median/max. */
class AggregateTest {

    @Test
    void totalOverTheSlowestRankAndPerRankOrderStatistics() {
        // ranks: 1e9 B in 1 s (1 GB/s), 2e9 B in 4 s (0.5), 3e9 B in 2 s (1.5)
        Aggregate a = new Aggregate(new long[] {1_000_000_000L, 2_000_000_000L, 3_000_000_000L},
                new double[] {1, 4, 2}, new boolean[] {true, true, true});
        assertEquals(6_000_000_000L, a.totalBytes());
        assertEquals(1, a.slowestRank());
        assertEquals(4.0, a.slowestSeconds());
        assertEquals(1.5, a.gbps(), 1e-12);
        assertEquals(0.5, a.minGBps(), 1e-12);
        assertEquals(1.0, a.medianGBps(), 1e-12);
        assertEquals(1.5, a.maxGBps(), 1e-12);
        assertEquals(List.of(), a.failed());
        assertEquals("aggregate: 3 ranks saved 5.59 GiB (6000000000 bytes) in 4.000 s (slowest rank 1): 1.500 GB/s; "
                + "per rank min 0.500 / median 1.000 / max 1.500 GB/s", a.line("saved"));
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        Aggregate a = new Aggregate(new long[] {1_000_000_000L, 1_000_000_000L, 1_000_000_000L, 1_000_000_000L},
                new double[] {1, 2, 4, 5}, new boolean[] {true, true, true, true});
        assertEquals((0.5 + 0.25) / 2, a.medianGBps(), 1e-12);
        assertEquals(3, a.slowestRank());
        assertEquals(0.8, a.gbps(), 1e-12);
    }

    @Test
    void equalTimesNameTheFirstRankAndFailuresAreListed() {
        Aggregate a = new Aggregate(new long[] {5, 0}, new double[] {2, 2}, new boolean[] {true, false});
        assertEquals(0, a.slowestRank());
        assertEquals(List.of(1), a.failed());
        assertEquals(0, new Aggregate(new long[] {5}, new double[] {0}, new boolean[] {true}).gbps());
    }

    @Test
    void sizesAreInTheLargestUnitTheyFill() {
        assertEquals("0 B", ByteSize.approx(0));
        assertEquals("1023 B", ByteSize.approx(1023));
        assertEquals("1.00 KiB", ByteSize.approx(1024));
        assertEquals("8.00 MiB", ByteSize.approx(8L << 20));
        assertEquals("1.50 GiB", ByteSize.approx(3L << 29));
    }

    @Test
    void mismatchedFiguresAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Aggregate(new long[] {1}, new double[] {1, 2},
                new boolean[] {true}));
        assertThrows(IllegalArgumentException.class, () -> new Aggregate(new long[0], new double[0], new boolean[0]));
    }
}
