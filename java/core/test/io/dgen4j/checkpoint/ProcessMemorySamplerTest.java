package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link ProcessMemory.Sampler}: samples RSS, and stays quiet when the heap runs out under it. */
class ProcessMemorySamplerTest {
    @Test
    void samplesUntilClosed() throws Exception {
        try (ProcessMemory.Sampler s = new ProcessMemory.Sampler(5, () -> 42)) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (s.samples().size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(s.samples().size() >= 3, s.samples().toString());
            assertTrue(s.peakSampled() > 0);
            assertEquals(42, s.samples().getFirst().bytesDone());
        }
    }

    /**
     * A long run keeps its whole course in bounded memory: at the bound every other sample goes and
     * sampling slows down, the first sample (the start) stays and the latest keep coming.
     */
    @Test
    void keepsTheWholeCourseInBoundedSamples() throws Exception {
        try (ProcessMemory.Sampler s = new ProcessMemory.Sampler(1, () -> 7, 16)) {
            long t0 = System.nanoTime();
            int most = 0;
            while (System.nanoTime() - t0 < 400_000_000L) {
                most = Math.max(most, s.samples().size());
                Thread.sleep(1);
            }
            List<ProcessMemory.Sample> got = s.samples();
            assertTrue(most < 16, "at most " + most + " samples kept at once");
            assertTrue(got.size() >= 4, got.toString());
            assertTrue(got.getFirst().seconds() < 0.1, "the start kept: " + got);
            assertTrue(got.getLast().seconds() > 0.2, "and the course since: " + got);
            for (int i = 1; i < got.size(); i++) {
                assertTrue(got.get(i).seconds() > got.get(i - 1).seconds(), "in order: " + got);
            }
            double firstGap = got.get(1).seconds() - got.get(0).seconds();
            assertTrue(firstGap > 0.01, "thinned to ever wider steps (the first 1 ms steps are gone): " + got);
            assertTrue(s.peakSampled() > 0);
        }
    }

    /** RSS read from statm's page count agrees with the kernel's VmRSS in status, and follows memory touched. */
    @Test
    void rssFromStatmAgreesWithStatusAndFollowsTouchedMemory() throws Exception {
        long fromStatus = vmRss();
        long fromStatm = ProcessMemory.rss();
        assertTrue(Math.abs(fromStatm - fromStatus) < (8L << 20), fromStatm + " vs VmRSS " + fromStatus);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment m = arena.allocate(64L << 20, 4096);
            m.fill((byte) 1);
            long touched = ProcessMemory.rss();
            assertTrue(touched - fromStatm > (48L << 20), "64 MiB touched moved RSS from " + fromStatm + " to " + touched);
            assertTrue(Math.abs(touched - vmRss()) < (8L << 20), touched + " vs VmRSS " + vmRss());
        }
    }

    /**
     * The sampler reads statm again and again through one open file: each reading is the kernel's
     * line of that moment (memory touched after the first reading shows in a later one), not the
     * first reading repeated.
     */
    @Test
    void theSamplersReadingsThroughOneOpenFileFollowTouchedMemory() throws Exception {
        try (ProcessMemory.Sampler s = new ProcessMemory.Sampler(2, () -> 0);
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (s.samples().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            long first = s.samples().getFirst().rssBytes();
            java.lang.foreign.MemorySegment m = arena.allocate(64L << 20, 4096);
            m.fill((byte) 1);
            long touched = ProcessMemory.rss();
            int seen = s.samples().size();
            while (s.samples().size() < seen + 3 && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            long last = s.samples().getLast().rssBytes();
            assertTrue(last - first > (48L << 20), "64 MiB touched: the sampler read " + first + " then " + last);
            assertTrue(Math.abs(last - touched) < (8L << 20), "sampler " + last + " vs rss() " + touched);
        }
    }

    private static long vmRss() throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no VmRSS in /proc/self/status");
    }

    /**
     * A full heap meets the sampler's thread as much as the command's: it stops sampling without a
     * trace on the console (an uncaught error would print one), and the command reports the error.
     */
    @Test
    void anOutOfMemoryErrorStopsTheSamplerWithoutAnUncaughtError() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler was = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        AtomicInteger calls = new AtomicInteger();
        try (ProcessMemory.Sampler s = new ProcessMemory.Sampler(5, () -> {
            if (calls.incrementAndGet() == 2) {
                throw new OutOfMemoryError("Java heap space");
            }
            return 0;
        })) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (calls.get() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(100);
            assertEquals(2, calls.get(), "the sampler stopped at the error");
            assertEquals(1, s.samples().size());
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(was);
        }
        assertEquals(List.of(), uncaught);
    }
}
