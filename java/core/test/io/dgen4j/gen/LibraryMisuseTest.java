package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** Misuse of generators and cursors gets a precise exception, never a hang, a deadlock or an AssertionError. */
class LibraryMisuseTest {
    private static final DataSpec SPEC = DataSpec.builder().size(1L << 30).compressRatio(2).seed(9).build();

    /**
     * close() on one thread while another fills: the fill completes or fails with
     * IllegalStateException, and both threads finish (the timeout catches a deadlock).
     */
    @ParameterizedTest
    @EnumSource(value = Generator.Kind.class, names = {"NATIVE", "JAVA"})
    void closeDuringAFillFailsOrWaitsForIt(Generator.Kind kind) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (int round = 0; round < 6; round++) {
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment dst = arena.allocate(kind == Generator.Kind.JAVA ? 96L << 20 : 256L << 20, 4096);
                    Generator gen = Generator.open(SPEC, kind, 2);
                    CountDownLatch started = new CountDownLatch(1);
                    AtomicReference<Throwable> failure = new AtomicReference<>();
                    Thread filler = Thread.ofPlatform().start(() -> {
                        started.countDown();
                        try {
                            gen.fill(dst, 0);
                        } catch (Throwable t) {
                            failure.set(t);
                        }
                    });
                    started.await();
                    if (round % 2 == 1) {
                        Thread.sleep(round); // close at different points of the fill
                    }
                    gen.close();
                    filler.join();
                    Throwable t = failure.get();
                    if (t != null) {
                        assertInstanceOf(IllegalStateException.class, t, "round " + round + ": " + t);
                        assertTrue(t.getMessage().contains("closed"), t.getMessage());
                    }
                    var after = assertThrows(IllegalStateException.class, () -> gen.fill(dst, 0, 4096));
                    assertEquals("generator is closed", after.getMessage());
                    gen.close(); // idempotent
                }
            }
        });
    }

    @ParameterizedTest
    @EnumSource(value = Generator.Kind.class, names = {"NATIVE", "JAVA"})
    void aConfinedSegmentFromAnotherThreadIsAWrongThreadException(Generator.Kind kind) throws Exception {
        try (Arena arena = Arena.ofConfined(); Generator gen = Generator.open(SPEC, kind, 2)) {
            MemorySegment confined = arena.allocate(1 << 20, 4096);
            for (long length : new long[] {0, 4096, 1 << 20}) {
                CompletableFuture<Void> f = CompletableFuture.runAsync(() -> gen.fill(confined, 0, length));
                ExecutionException e = assertThrows(ExecutionException.class, f::get);
                assertInstanceOf(WrongThreadException.class, e.getCause(), "length " + length);
            }
            gen.fill(confined, 0); // the owner may
        }
    }

    @ParameterizedTest
    @EnumSource(value = Generator.Kind.class, names = {"NATIVE", "JAVA"})
    void readOnlyAndClosedDestinationsAreRefused(Generator.Kind kind) {
        try (Generator gen = Generator.open(SPEC, kind, 1)) {
            MemorySegment ro;
            Arena arena = Arena.ofConfined();
            MemorySegment seg = arena.allocate(8192, 4096);
            ro = seg.asReadOnly();
            var e = assertThrows(IllegalArgumentException.class, () -> gen.fill(ro, 0));
            assertEquals("the destination segment is read-only", e.getMessage());
            var h = assertThrows(IllegalArgumentException.class, () -> gen.fill(MemorySegment.ofArray(new byte[16]).asReadOnly(), 0));
            assertEquals("the destination segment is read-only", h.getMessage());
            arena.close();
            var c = assertThrows(IllegalStateException.class, () -> gen.fill(seg, 0));
            assertEquals("the destination segment's arena is closed", c.getMessage());
        }
    }

    @Test
    void anEmptySegmentCannotAdvanceACursor() {
        try (Generator gen = Generator.open(DataSpec.builder().size(10).build(), Generator.Kind.JAVA, 1)) {
            StreamCursor cursor = gen.cursor();
            var e = assertThrows(IllegalArgumentException.class, () -> cursor.next(MemorySegment.NULL));
            assertEquals("the destination segment is empty: the cursor at offset 0 of 10 cannot advance", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> cursor.next(null));
            assertEquals(10, cursor.next(MemorySegment.ofArray(new byte[64])));
            assertEquals(0, cursor.next(MemorySegment.NULL), "at the end an empty segment is fine");
        }
    }

    @Test
    void compressRatiosAboveTheFormatsMaximumAreRefused() {
        assertEquals(1024.0 / 7, DataSpec.MAX_COMPRESS_RATIO, 1e-12);
        DataSpec max = DataSpec.builder().compressRatio(DataSpec.MAX_COMPRESS_RATIO).build();
        assertEquals(1, max.randomBytesPerSector());
        // Just below the maximum the formula itself gives 1 random byte: the clamp does not bind yet.
        assertEquals(1, StreamLayout.randomBytesPerSector(Math.nextDown(DataSpec.MAX_COMPRESS_RATIO)));
        assertEquals(2, StreamLayout.randomBytesPerSector(512 / 4.5 - 1e-9));
        for (double r : new double[] {Math.nextUp(DataSpec.MAX_COMPRESS_RATIO), 147, 1000, Double.MAX_VALUE}) {
            var e = assertThrows(IllegalArgumentException.class, () -> DataSpec.builder().compressRatio(r));
            assertTrue(e.getMessage().contains("above the maximum the format can produce, 146.2857"), e.getMessage());
        }
        try (Generator gen = Generator.open(DataSpec.builder().size(4096).compressRatio(DataSpec.MAX_COMPRESS_RATIO)
                .seed(1).build(), Generator.Kind.NATIVE, 1)) {
            byte[] b = new byte[4096];
            gen.fill(MemorySegment.ofArray(b), 0);
            for (int sector = 0; sector < 4096; sector += 512) {
                for (int i = sector + 1; i < sector + 512; i++) {
                    assertEquals(0, b[i], "byte " + i);
                }
            }
        }
    }
}
