package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input gets a precise exception before any native call. */
class ValidationTest {

    @Test
    void negativeSize() {
        var e = assertThrows(IllegalArgumentException.class, () -> DataSpec.builder().size(-1));
        assertEquals("size must be >= 0 bytes, got -1", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.999, 0, -2})
    void badRatios(double r) {
        var d = assertThrows(IllegalArgumentException.class, () -> DataSpec.builder().dedupRatio(r));
        assertEquals("dedup ratio must be a finite number >= 1, got " + r, d.getMessage());
        var c = assertThrows(IllegalArgumentException.class, () -> DataSpec.builder().compressRatio(r));
        assertEquals("compress ratio must be a finite number >= 1, got " + r, c.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 256, 511, 513, 1000, 3 << 10, 128 << 20, -4096, Integer.MIN_VALUE})
    void badBlockSizes(int b) {
        var e = assertThrows(IllegalArgumentException.class, () -> DataSpec.builder().blockSize(b));
        assertEquals("block size must be a power of two in [512, 67108864] bytes, got " + b, e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 4096, 1 << 20, 64 << 20})
    void goodBlockSizes(int b) {
        assertEquals(b, DataSpec.builder().blockSize(b).build().blockSize());
    }

    @ParameterizedTest
    @EnumSource(value = Generator.Kind.class, names = {"NATIVE", "JAVA"})
    void fillRejectsBadSegmentsAndRanges(Generator.Kind kind) {
        DataSpec spec = DataSpec.builder().seed(1).size(10_000).build();
        try (Arena arena = Arena.ofConfined(); Generator gen = Generator.open(spec, kind, 1)) {
            MemorySegment ok = arena.allocate(10_000);
            var ro = assertThrows(IllegalArgumentException.class, () -> gen.fill(ok.asReadOnly(), 0));
            assertEquals("the destination segment is read-only", ro.getMessage());
            var small = assertThrows(IllegalArgumentException.class, () -> gen.fill(ok.asSlice(0, 10), 0, 11));
            assertEquals("destination segment of 10 bytes is too small for 11 bytes", small.getMessage());
            var range = assertThrows(IllegalArgumentException.class, () -> gen.fill(ok, 1));
            assertEquals("range [1, 10001) is outside the stream of 10000 bytes", range.getMessage());
            var neg = assertThrows(IllegalArgumentException.class, () -> gen.fill(ok, -1, 5));
            assertEquals("range [-1, 4) is outside the stream of 10000 bytes", neg.getMessage());
            assertThrows(IllegalArgumentException.class, () -> gen.fill(ok, Long.MAX_VALUE, 5));
            assertThrows(IllegalArgumentException.class, () -> gen.fill(null, 0, 0));
            gen.fill(ok, 10_000, 0); // an empty fill at the end is fine

            Arena closedArena = Arena.ofConfined();
            MemorySegment dead = closedArena.allocate(100);
            closedArena.close();
            var closed = assertThrows(IllegalStateException.class, () -> gen.fill(dead, 0));
            assertEquals("the destination segment's arena is closed", closed.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Generator.Kind.class, names = {"NATIVE", "JAVA"})
    void closedGeneratorRefusesToFill(Generator.Kind kind) {
        DataSpec spec = DataSpec.builder().seed(1).size(4096).build();
        Generator gen = Generator.open(spec, kind, 2);
        gen.close();
        gen.close(); // idempotent
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4096);
            var e = assertThrows(IllegalStateException.class, () -> gen.fill(seg, 0));
            assertEquals("generator is closed", e.getMessage());
        }
    }

    @Test
    void negativeThreads() {
        DataSpec spec = DataSpec.ofSize(1);
        var e = assertThrows(IllegalArgumentException.class, () -> Generator.open(spec, Generator.Kind.AUTO, -1));
        assertTrue(e.getMessage().contains("threads must be >= 0"));
    }

    @Test
    void zeroSizeStream() {
        DataSpec spec = DataSpec.builder().size(0).dedupRatio(3).build();
        assertEquals(0, spec.blocks());
        assertEquals(0, spec.distinctBlocks());
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(0, Generator.generate(spec, arena).byteSize());
            try (Generator gen = Generator.open(spec, Generator.Kind.NATIVE, 1)) {
                assertEquals(0, gen.cursor().next(arena.allocate(16)));
            }
        }
    }
}
