package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load with verification overlapped with the reads: with any number of readers and buffers, the
 * reported mismatch is the smallest corrupted offset, memory stays within the buffers, and every
 * buffer is returned, after a success and after a failure.
 */
class LoadVerifyTest {
    private static final DataSpec DATA = DataSpec.builder().seed(3).dedupRatio(1.5).compressRatio(2).build();

    @TempDir
    Path dir;

    @AfterEach
    void noBufferLeaks() {
        assertEquals(0, BufferPool.liveBytes(), "buffer memory left allocated after the test");
    }

    static StreamingCheckpoint ckpt(int readers, int buffers) {
        return StreamingCheckpoint.builder().chunkSize(1 << 20).buffers(buffers).writersInFlight(readers).spec(DATA).build();
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
        for (int[] rb : new int[][] {{1, 2}, {2, 3}, {3, 4}, {1, 5}}) {
            LoadResult r = ckpt(rb[0], rb[1]).load(f.toString(), true);
            assertTrue(r.verified());
            assertEquals("native", r.verifier());
            assertEquals(size, r.totalBytes());
            assertTrue(r.peakBuffersInUse() >= 1 && r.peakBuffersInUse() <= rb[1],
                    "readers " + rb[0] + " buffers " + rb[1] + ": peak " + r.peakBuffersInUse());
            assertTrue(r.verifySeconds() > 0);
        }
        LoadResult plain = ckpt(2, 3).load(f.toString(), false);
        assertEquals("none", plain.verifier());
        assertEquals("none", plain.toMap().get("verifier"));
    }

    @Test
    void chunksLargerThanASliceAreVerifiedSliceBySlice() throws Exception {
        // On ramfs reads are CPU copies (no O_DIRECT): a verified load reads 8 MiB slices.
        try (Mounts mounts = new Mounts()) {
            verifySlices(mounts.ramfs(dir).resolve("slices.bin"));
        }
        // With O_DIRECT on ext4 it reads whole chunks: the same results.
        verifySlices(dir.resolve("whole.bin"));
    }

    private static void verifySlices(Path f) throws Exception {
        long size = (40L << 20) + 4097; // 16 MiB chunks of two 8 MiB slices, and a short tail
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(16 << 20).spec(DATA);
        b.buffers(2).writersInFlight(1).build().save(f.toString(), size);
        for (int readers : new int[] {1, 2}) {
            LoadResult r = b.buffers(readers + 1).writersInFlight(readers).build().load(f.toString(), true);
            assertEquals(size, r.totalBytes());
            assertTrue(r.peakBuffersInUse() <= readers + 1, "peak " + r.peakBuffersInUse());
        }
        // The second slice of the second chunk, then the tail: the slice's byte is first.
        long first = (16L << 20) + (8L << 20) + 123;
        flip(f, size - 1);
        flip(f, first);
        for (int readers : new int[] {1, 2}) {
            var e = assertThrows(VerifyException.class,
                    () -> b.buffers(readers + 1).writersInFlight(readers).build().load(f.toString(), true));
            assertEquals(first, e.offset().orElseThrow(), e.getMessage());
        }
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
        for (int[] rb : new int[][] {{1, 2}, {2, 3}, {3, 4}, {4, 8}}) {
            var e = assertThrows(VerifyException.class, () -> ckpt(rb[0], rb[1]).load(f.toString(), true),
                    "readers " + rb[0]);
            assertEquals(first, e.offset().orElseThrow(), e.getMessage());
            assertTrue(e.getMessage().contains("first mismatch at byte offset " + first), e.getMessage());
        }
    }
}
