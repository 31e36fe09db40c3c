package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verified loads, by a verifier thread overlapped with the reads ({@code thread}, also the default
 * {@code auto}) or by the readers themselves ({@code inline}): with any number of readers and
 * buffers, the reported mismatch is the smallest corrupted offset, memory stays within the buffers,
 * and every buffer is returned, after a success and after a failure.
 */
class LoadVerifyTest {
    private static final DataSpec DATA = DataSpec.builder().seed(3).dedupRatio(1.5).compressRatio(2).build();

    @TempDir
    Path dir;

    @AfterEach
    void noBufferLeaks() {
        assertEquals(0, BufferPool.liveBytes(), "buffer memory left allocated after the test");
    }

    /** The system property choosing who verifies (LoadPipeline). */
    static final String VERIFIER = "dgen4j.load.verifier";
    static final List<String> MODES = List.of("auto", "inline", "thread");

    @AfterEach
    void defaultVerifier() {
        System.clearProperty(VERIFIER);
    }

    static StreamingCheckpoint ckpt(int readers, int buffers) {
        return StreamingCheckpoint.builder().chunkSize(1 << 20).buffers(buffers).readersInFlight(readers).spec(DATA).build();
    }

    static void flip(Path f, long at) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.seek(at);
            byte b = raf.readByte();
            raf.seek(at);
            raf.writeByte(b ^ 0x08);
        }
    }

    @Test
    void verifiedLoadsReportTheVerifierAndStayWithinTheBuffers() throws Exception {
        long size = 13_000_001;
        Path f = dir.resolve("ok.bin");
        ckpt(1, 2).save(f.toString(), size);
        for (String mode : MODES) {
            System.setProperty(VERIFIER, mode);
            for (int[] rb : new int[][] {{1, 2}, {2, 3}, {3, 4}, {1, 5}}) {
                java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
                LoadResult r = StreamingCheckpoint.builder().chunkSize(1 << 20).buffers(rb[1]).readersInFlight(rb[0])
                        .spec(DATA).progress(n -> seen.accumulateAndGet(n, Math::max)).build().load(f.toString(), true);
                String what = mode + " readers " + rb[0] + " buffers " + rb[1];
                assertTrue(r.verified());
                assertEquals("native", r.verifier());
                assertEquals(size, r.totalBytes());
                assertTrue(r.peakBuffersInUse() >= 1 && r.peakBuffersInUse() <= rb[1],
                        what + ": peak " + r.peakBuffersInUse());
                assertTrue(r.verifySeconds() > 0, what);
                assertEquals(size, seen.get(), what + ": progress reaches every byte");
            }
        }
        System.clearProperty(VERIFIER);
        LoadResult plain = ckpt(2, 3).load(f.toString(), false);
        assertEquals("none", plain.verifier());
        assertEquals("none", plain.toMap().get("verifier"));
    }

    @Test
    void chunksLargerThanASliceAreVerifiedSliceBySlice() throws Exception {
        // On ramfs reads are CPU copies (no O_DIRECT): a verified load reads slices into a ring of
        // 2 MiB slots in each reader's one buffer (thread), or 1 MiB ones into its first MiB (inline).
        try (Mounts mounts = new Mounts()) {
            verifySlices(mounts.ramfs(dir).resolve("slices.bin"));
        }
        // With O_DIRECT on ext4 it reads the two halves of each chunk into the halves of the reader's
        // buffer (thread), or whole chunks (inline): the same results.
        verifySlices(dir.resolve("halves.bin"));
    }

    private static void verifySlices(Path f) throws Exception {
        long size = (40L << 20) + 4097; // 16 MiB chunks, and a short tail
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(16 << 20).spec(DATA);
        b.buffers(2).writersInFlight(1).build().save(f.toString(), size);
        for (String mode : MODES) {
            System.setProperty(VERIFIER, mode);
            for (int readers : new int[] {1, 2}) {
                LoadResult r = b.buffers(readers + 1).readersInFlight(readers).build().load(f.toString(), true);
                assertEquals(size, r.totalBytes());
                // Verified within the readers' own buffers, whoever verifies: slices of copied bytes,
                // halves of a chunk the device writes.
                assertTrue(r.peakBuffersInUse() <= readers, mode + " readers " + readers + ": peak " + r.peakBuffersInUse());
            }
        }
        // Inside the second chunk (its 9th MiB, read into a reused ring slot), then the tail: the first is found.
        long first = (16L << 20) + (8L << 20) + 123;
        flip(f, size - 1);
        flip(f, first);
        for (String mode : MODES) {
            System.setProperty(VERIFIER, mode);
            for (int readers : new int[] {1, 2}) {
                var e = assertThrows(VerifyException.class,
                        () -> b.buffers(readers + 1).readersInFlight(readers).build().load(f.toString(), true));
                assertEquals(first, e.offset().orElseThrow(), mode + ": " + e.getMessage());
            }
        }
        System.clearProperty(VERIFIER);
    }

    @Test
    void theSmallestCorruptedOffsetIsReportedWhateverTheReaders() throws Exception {
        long size = 12_345_678;
        Path f = dir.resolve("bad.bin");
        ckpt(1, 2).save(f.toString(), size);
        // Corruption in a late chunk, a middle chunk and the last byte: the middle one is first.
        long first = 4_200_123;
        for (long at : new long[] {size - 1, 9_000_000, first, first + 17}) {
            flip(f, at);
        }
        for (String mode : MODES) {
            System.setProperty(VERIFIER, mode);
            for (int[] rb : new int[][] {{1, 2}, {2, 3}, {3, 4}, {4, 8}}) {
                var e = assertThrows(VerifyException.class, () -> ckpt(rb[0], rb[1]).load(f.toString(), true),
                        mode + " readers " + rb[0]);
                assertEquals(first, e.offset().orElseThrow(), mode + ": " + e.getMessage());
                assertTrue(e.getMessage().contains("first mismatch at byte offset " + first), e.getMessage());
            }
        }
    }

    @Test
    void aReaderWithNoFreeBufferVerifiesThePiecesTheVerifierThreadHasNotReached() throws Exception {
        // O_DIRECT on ext4: 16 MiB chunks read as two 8 MiB halves of the reader's one buffer, each
        // handed to the verifier thread and compared in 2 MiB pieces.
        long size = (64L << 20) + 4097;
        Path f = dir.resolve("help.bin");
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(16 << 20).spec(DATA);
        b.buffers(2).writersInFlight(1).build().save(f.toString(), size);
        // The verifier thread stalls inside its first piece (a verifier kept off its CPU) until a
        // reader reports verified bytes: the one reader, with both halves of its buffer handed over,
        // must compare the rest of them itself to get one back.
        CountDownLatch readerVerified = new CountDownLatch(1);
        AtomicBoolean verifierReleased = new AtomicBoolean();
        AtomicBoolean stalledOnce = new AtomicBoolean();
        AtomicLong seen = new AtomicLong();
        LoadResult r = b.buffers(2).readersInFlight(1).progress(n -> {
            seen.accumulateAndGet(n, Math::max);
            String name = Thread.currentThread().getName();
            if (name.startsWith("dgen4j-reader")) {
                readerVerified.countDown();
            } else if (name.equals("dgen4j-verifier") && stalledOnce.compareAndSet(false, true)) {
                try {
                    verifierReleased.set(readerVerified.await(20, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }).build().load(f.toString(), true);
        assertTrue(r.verified());
        assertEquals(size, r.totalBytes());
        assertEquals(size, seen.get(), "every byte verified once");
        assertTrue(stalledOnce.get(), "the verifier thread compared a piece");
        assertTrue(verifierReleased.get(), "no reader verified a piece while the verifier thread was stalled");
        assertEquals(1, r.peakBuffersInUse(), "a reader's halves are in its one buffer");

        // A corrupted byte in a piece the stalled verifier thread left: the reader finds it and ends
        // without waiting for the half the verifier holds (which waits for the readers to end).
        long bad = (2L << 20) + 77;
        flip(f, bad);
        AtomicBoolean readersEnded = new AtomicBoolean();
        AtomicBoolean stalled = new AtomicBoolean();
        var e = assertThrows(VerifyException.class, () -> b.buffers(2).readersInFlight(1).progress(n -> {
            if (Thread.currentThread().getName().equals("dgen4j-verifier") && stalled.compareAndSet(false, true)) {
                readersEnded.set(awaitNoReaders(20));
            }
        }).build().load(f.toString(), true));
        assertEquals(bad, e.offset().orElseThrow(), e.getMessage());
        assertTrue(stalled.get() && readersEnded.get(), "the reader did not find the mismatch on its own");
    }

    @Test
    void readersThatHelpNeverReuseASlotWhoseSliceIsStillCompared() throws Exception {
        // O_DIRECT on ext4 with small chunks: thousands of half-chunk slices through each reader's
        // two slots, with readers helping the verifier thread and finishing slices out of order. A
        // slot reused before its own slice is verified would be overwritten under the compare and
        // report bytes that are on disk intact.
        long size = 64L << 20;
        Path f = dir.resolve("slots.bin");
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(64 << 10).spec(DATA);
        b.buffers(2).writersInFlight(1).build().save(f.toString(), size);
        for (int round = 0; round < 3; round++) {
            for (int readers : new int[] {2, 3, 4}) {
                LoadResult r = b.buffers(readers + 1).readersInFlight(readers).build().load(f.toString(), true);
                assertEquals(size, r.totalBytes(), "readers " + readers);
                assertTrue(r.peakBuffersInUse() <= readers, "readers " + readers + ": peak " + r.peakBuffersInUse());
            }
        }
    }

    /** Waits until no thread named dgen4j-reader-* is alive: {@code false} after {@code seconds}. */
    private static boolean awaitNoReaders(int seconds) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < until) {
            if (Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("dgen4j-reader"))) {
                return true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    @Test
    void anUnknownVerifierIsRefusedByName() throws Exception {
        Path f = dir.resolve("small.bin");
        ckpt(1, 2).save(f.toString(), 100_000);
        System.setProperty(VERIFIER, "gpu");
        var e = assertThrows(IllegalArgumentException.class, () -> ckpt(1, 2).load(f.toString(), true));
        assertEquals("system property dgen4j.load.verifier must be auto, arrival, inline or thread, got 'gpu'", e.getMessage());
        // A plain load does not verify: the property does not matter.
        assertEquals(100_000, ckpt(1, 2).load(f.toString(), false).totalBytes());
    }
}
