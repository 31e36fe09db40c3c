package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Dedup is exact, no sector is all zeros, and seeds share no block: counted on real bytes. */
class DataModelTest {

    static Set<ByteBuffer> distinctBlocks(byte[] data, int block) {
        Set<ByteBuffer> set = new HashSet<>();
        for (int off = 0; off + block <= data.length; off += block) {
            set.add(ByteBuffer.wrap(data, off, block).slice());
        }
        return set;
    }

    @ParameterizedTest(name = "{0} blocks of {1} B, dedup {2} -> {3} distinct")
    @CsvSource({
            "4096, 4096, 1, 4096",
            "4096, 4096, 2, 2048",
            "4096, 4096, 1.5, 2731",
            "4096, 4096, 3.3, 1241",
            "1000, 4096, 1.5, 667",
            "1000, 4096, 7, 143",
            "1000, 512, 2.5, 400",
            "64, 65536, 4, 16",
            "100, 4096, 1000, 1"})
    void dedupIsExact(int blocks, int block, double dedup, long expected) {
        DataSpec spec = DataSpec.builder().seed(blocks * 31L + block).size((long) blocks * block).blockSize(block)
                .dedupRatio(dedup).compressRatio(2).build();
        assertEquals(expected, spec.distinctBlocks());
        byte[] data = Streams.bytes(spec, Generator.Kind.NATIVE, 2);
        assertEquals(expected, distinctBlocks(data, block).size());
    }

    @Test
    void duplicatesAreSpreadThroughTheStream() {
        // With dedup 2, the repeats of a block are not simply the second half of the stream.
        int block = 4096;
        DataSpec spec = DataSpec.builder().seed(3).size(2048L * block).dedupRatio(2).build();
        byte[] data = Streams.bytes(spec, Generator.Kind.NATIVE, 1);
        int half = data.length / 2;
        byte[] firstHalf = java.util.Arrays.copyOf(data, half);
        int distinctInFirstHalf = distinctBlocks(firstHalf, block).size();
        assertTrue(distinctInFirstHalf < 1024 * 0.9, "first half holds " + distinctInFirstHalf + " distinct blocks");
        assertTrue(distinctInFirstHalf > 1024 * 0.6, "first half holds " + distinctInFirstHalf + " distinct blocks");
    }

    @ParameterizedTest(name = "compress {0}")
    @ValueSource(doubles = {1, 1.2, 1.5, 2, 3, 4, 6, 8, 20, 50})
    void noSectorIsAllZeros(double compress) {
        DataSpec spec = DataSpec.builder().seed(17).size(16L << 20).compressRatio(compress).dedupRatio(2).build();
        byte[] data = Streams.bytes(spec, Generator.Kind.NATIVE, 2);
        for (int s = 0; s < data.length; s += 512) {
            boolean allZero = true;
            for (int i = s; i < s + 512 && allZero; i++) {
                allZero = data[i] == 0;
            }
            assertFalse(allZero, "sector at offset " + s + " is all zeros");
        }
    }

    @Test
    void twoSeedsShareNoBlock() {
        long size = 32L << 20;
        Set<ByteBuffer> a = distinctBlocks(Streams.bytes(DataSpec.builder().seed(1000).size(size).build(),
                Generator.Kind.NATIVE, 2), 4096);
        for (long other : new long[] {1001, 999, 1000 ^ (1L << 63)}) {
            byte[] b = Streams.bytes(DataSpec.builder().seed(other).size(size).build(), Generator.Kind.NATIVE, 2);
            for (ByteBuffer block : distinctBlocks(b, 4096)) {
                assertFalse(a.contains(block), "seeds 1000 and " + other + " share a block");
            }
        }
        // ...also not at a 512-byte shift (seed s+1 is not seed s shifted).
        byte[] s0 = Streams.bytes(DataSpec.builder().seed(5).size(1 << 20).build(), Generator.Kind.JAVA, 1);
        byte[] s1 = Streams.bytes(DataSpec.builder().seed(6).size(1 << 20).build(), Generator.Kind.JAVA, 1);
        Set<ByteBuffer> sectors = new HashSet<>();
        for (int off = 0; off < s0.length; off += 512) {
            sectors.add(ByteBuffer.wrap(s0, off, 512).slice());
        }
        for (int off = 0; off < s1.length; off += 512) {
            assertFalse(sectors.contains(ByteBuffer.wrap(s1, off, 512).slice()), "shared sector at " + off);
        }
    }

    @Test
    void seedIsRandomPerProcessAndReported() {
        DataSpec a = DataSpec.ofSize(100);
        DataSpec b = DataSpec.builder().size(200).build();
        assertTrue(a.seedIsRandom());
        assertEquals(a.seed(), b.seed(), "one random seed per process");
        assertEquals(DataSpec.processSeed(), a.seed());
        DataSpec fixed = a.toBuilder().build();
        assertFalse(fixed.seedIsRandom());
        assertEquals(a.seed(), fixed.seed());
        assertNotEquals(DataSpec.builder().seed(1).size(1).build(), DataSpec.builder().seed(2).size(1).build());
    }
}
