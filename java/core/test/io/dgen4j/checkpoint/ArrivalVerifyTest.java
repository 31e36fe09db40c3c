package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.storage.ReadCheck;
import io.dgen4j.storage.StorageReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Verified loads from storage that compares each piece of a read as it copies it
 * ({@link StorageReader#checksAsRead}, a network's response body): the readers' own storage
 * compares, with no verifier thread and no buffer for one, and the first mismatch is still the
 * smallest corrupted offset, with the byte expected and the byte read.
 */
class ArrivalVerifyTest {
    private static final DataSpec DATA = DataSpec.builder().seed(21).dedupRatio(2).compressRatio(1.5).build();
    private static final long CHUNK = 1 << 20;
    private static final long PIECE = 64 << 10;

    @AfterEach
    void noBufferLeaks() {
        System.clearProperty(LoadVerifyTest.VERIFIER);
        assertEquals(0, BufferPool.liveBytes(), "buffer memory left allocated after the test");
    }

    /** The stream of {@link #DATA} in memory, copied out in pieces that are compared as they land. */
    private static final class Arriving implements StorageReader {
        final Arena arena = Arena.ofShared();
        final MemorySegment object;
        final AtomicInteger plainReads = new AtomicInteger();
        final AtomicInteger checkedReads = new AtomicInteger();
        final AtomicLong compared = new AtomicLong();
        final Set<String> comparedOn = ConcurrentHashMap.newKeySet();

        Arriving(long size) {
            object = arena.allocate(size, 4096);
            try (Generator g = Generator.open(DATA.toBuilder().size(size).build())) {
                g.fill(object, 0);
            }
        }

        void flip(long at) {
            object.set(ValueLayout.JAVA_BYTE, at, (byte) (object.get(ValueLayout.JAVA_BYTE, at) ^ 0x20));
        }

        @Override
        public long size() {
            return object.byteSize();
        }

        @Override
        public long read(long offset, MemorySegment dst) {
            plainReads.incrementAndGet();
            long n = Math.min(dst.byteSize(), size() - offset);
            MemorySegment.copy(object, offset, dst, 0, n);
            return n;
        }

        @Override
        public Checked read(long offset, MemorySegment dst, ReadCheck check) {
            checkedReads.incrementAndGet();
            long n = Math.min(dst.byteSize(), size() - offset);
            long bad = -1;
            for (long pos = 0; pos < n; pos += PIECE) {
                long len = Math.min(PIECE, n - pos);
                MemorySegment.copy(object, offset + pos, dst, pos, len);
                if (bad < 0) {
                    bad = check.firstMismatch(dst.asSlice(pos, len), offset + pos);
                    compared.addAndGet(len);
                    comparedOn.add(Thread.currentThread().getName());
                }
            }
            return new Checked(n, bad);
        }

        @Override
        public boolean checksAsRead() {
            return true;
        }

        @Override
        public Map<String, Object> metadata() {
            return Map.of();
        }

        @Override
        public boolean directIo() {
            return false;
        }

        @Override
        public String description() {
            return "memory, compared as it arrives";
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    private static LoadPipeline pipeline(Arriving r, int readers) {
        return new LoadPipeline(r, DATA.toBuilder().size(r.size()).build(), true, "arriving", CHUNK, readers, 0,
                n -> { });
    }

    @Test
    void theReadersStorageComparesEveryByteWithNoVerifierThreadOrBufferForOne() throws Exception {
        long size = 10 * CHUNK + 12345;
        for (int readers : new int[] {1, 3}) {
            try (Arriving r = new Arriving(size)) {
                LoadPipeline run = pipeline(r, readers);
                assertEquals(readers, run.buffersFor(1), "one buffer per reader, none for a verifier thread");
                try (BufferPool pool = new BufferPool(run.buffersFor(1), CHUNK)) {
                    run.run(pool);
                    assertTrue(pool.peakInUse() <= readers);
                }
                assertEquals(0, r.plainReads.get(), "every read was a checked one");
                assertEquals(11, r.checkedReads.get());
                assertEquals(size, r.compared.get(), "every byte compared once");
                assertNotEquals("none", run.verifier());
                assertTrue(r.comparedOn.stream().allMatch(t -> t.startsWith("dgen4j-reader-")), r.comparedOn.toString());
            }
        }
    }

    @Test
    void theSmallestMismatchIsReportedWithTheBytesExpectedAndRead() throws Exception {
        long size = 12 * CHUNK + 777;
        try (Arriving r = new Arriving(size)) {
            long first = 4 * CHUNK + 5 * PIECE + 9;
            byte expected = r.object.get(ValueLayout.JAVA_BYTE, first);
            r.flip(9 * CHUNK + 3);
            r.flip(first);
            r.flip(size - 1);
            LoadPipeline run = pipeline(r, 3);
            VerifyException e;
            try (BufferPool pool = new BufferPool(run.buffersFor(1), CHUNK)) {
                e = assertThrows(VerifyException.class, () -> run.run(pool));
            }
            assertEquals(first, e.offset().orElseThrow(), e.getMessage());
            assertTrue(e.getMessage().contains(String.format("(expected 0x%02x, found 0x%02x)", expected & 0xff,
                    (expected ^ 0x20) & 0xff)), e.getMessage());
        }
    }

    @Test
    void aVerifierAskedForByNameStillComparesAfterTheRead() throws Exception {
        long size = 3 * CHUNK;
        for (String mode : new String[] {"thread", "inline"}) {
            System.setProperty(LoadVerifyTest.VERIFIER, mode);
            try (Arriving r = new Arriving(size)) {
                r.flip(CHUNK + 1);
                LoadPipeline run = pipeline(r, 2);
                try (BufferPool pool = new BufferPool(run.buffersFor(1), CHUNK)) {
                    VerifyException e = assertThrows(VerifyException.class, () -> run.run(pool));
                    assertEquals(CHUNK + 1, e.offset().orElseThrow(), mode);
                }
                assertEquals(0, r.checkedReads.get(), mode + ": the pipeline compares, not the storage");
            }
        }
    }
}
