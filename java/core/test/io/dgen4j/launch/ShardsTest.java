package io.dgen4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardsTest {
    private static LaunchInfo rank(int r, int n) {
        return new LaunchInfo(r, n, r, n, "openmpi");
    }

    @Test
    void eachRankAppendsItsNumber() {
        assertEquals("/data/ckpt.rank0", Shards.target("/data/ckpt", rank(0, 2)));
        assertEquals("/data/ckpt.rank1", Shards.target("/data/ckpt", rank(1, 2)));
        assertEquals("s3://bucket/run/model.bin.rank12", Shards.target("s3://bucket/run/model.bin", rank(12, 16)));
        assertEquals("file:///x/c.rank3", Shards.target("file:///x/c", rank(3, 4)));
    }

    @Test
    void aPlaceholderIsSubstitutedEverywhereInsteadOfAppending() {
        assertEquals("/data/r1/ckpt-1.bin", Shards.target("/data/r{rank}/ckpt-{rank}.bin", rank(1, 2)));
        assertEquals("s3://b/ckpt-7", Shards.target("s3://b/ckpt-{rank}", rank(7, 8)));
    }

    @Test
    void aSingleProcessKeepsItsTargetAndItsPlaceholderMeansZero() {
        assertEquals("/data/ckpt", Shards.target("/data/ckpt", LaunchInfo.SINGLE));
        assertEquals("/data/ckpt-0", Shards.target("/data/ckpt-{rank}", LaunchInfo.SINGLE));
    }

    @Test
    void seedsDifferPerRankAndAreReproducible() {
        Set<Long> seen = new HashSet<>();
        for (long base : new long[] {0, 1, 42, -1, Long.MIN_VALUE}) {
            for (int r = 0; r < 1000; r++) {
                long s = Shards.seed(base, r);
                assertEquals(s, Shards.seed(base, r));
                assertNotEquals(base, s, "rank " + r + " of base " + base);
                seen.add(s);
            }
        }
        assertEquals(5000, seen.size(), "every (base, rank) has its own seed");
        // golden values: the rule is documented (SplitMix64's finalizer of base + (r + 1) * 0x9E3779B97F4A7C15)
        assertEquals(0xE220A8397B1DCDAFL, Shards.seed(0, 0));
        assertEquals(0x6E789E6AA1B965F4L, Shards.seed(0, 1));
        assertThrows(IllegalArgumentException.class, () -> Shards.seed(1, -1));
    }
}
