package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract every storage backend keeps, as tests: a backend's test class extends this and
 * names its provider, its targets and how to see that nothing is left of an object. Published in
 * the core test-jar for the backends' modules.
 */
public abstract class StorageContract {
    /** Bytes per write: 1 MiB, a multiple of the O_DIRECT alignment and above S3's 5 MiB part floor when multiplied. */
    protected static final int CHUNK = 1 << 20;

    /** The backend under test. */
    protected abstract StorageProvider provider();

    /** A fresh target called {@code name} for this test. */
    protected abstract StorageTarget target(String name) throws IOException;

    /** The backend's options for the test (default: none). */
    protected StorageOptions options() {
        return StorageOptions.empty();
    }

    /** Asserts that no trace of {@code target} is left (no object, no temporary, no open upload). */
    protected abstract void assertNoTrace(StorageTarget target) throws IOException;

    /** Chunk size the backend needs at least (S3: 5 MiB parts). */
    protected int chunk() {
        return CHUNK;
    }

    private static byte[] bytes(long size, long seed) {
        byte[] b = new byte[Math.toIntExact(size)];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static Map<String, Object> metadata(long seed) {
        return Map.of("dgen4j", "checkpoint", "seed", Long.toString(seed), "size", 7L, "ratio", 1.5, "flag", true);
    }

    /** Writes {@code data} in chunks, in shuffled order, {@code inFlight} at a time, and commits. */
    private void write(StorageTarget t, byte[] data, long seed, int inFlight, boolean commit) throws Exception {
        int chunk = chunk();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; (long) i * chunk < data.length; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new java.util.Random(seed));
        ExecutorService pool = Executors.newFixedThreadPool(inFlight);
        try (Arena arena = Arena.ofShared();
             StorageWriter w = provider().openWriter(new WriteRequest(t, data.length, metadata(seed), inFlight,
                     options()))) {
            List<Future<?>> writes = new ArrayList<>();
            for (int i : order) {
                long off = (long) i * chunk;
                int len = (int) Math.min(chunk, data.length - off);
                MemorySegment seg = arena.allocate(len, 4096);
                MemorySegment.copy(data, (int) off, seg, ValueLayout.JAVA_BYTE, 0, len);
                writes.add(pool.submit(() -> {
                    w.write(off, seg);
                    return null;
                }));
            }
            for (Future<?> f : writes) {
                f.get();
            }
            if (commit) {
                w.commit();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private byte[] read(StorageTarget t, int inFlight) throws IOException {
        try (Arena arena = Arena.ofConfined();
             StorageReader r = provider().openReader(new ReadRequest(t, inFlight, options()))) {
            byte[] out = new byte[Math.toIntExact(r.size())];
            // Ranged reads from the end backwards, at 4096-aligned offsets (the reader's contract),
            // of a length that is not the writer's chunk; the last range is short.
            int step = chunk() - 4096;
            for (long off = (out.length - 1) / step * (long) step; off >= 0; off -= step) {
                int len = (int) Math.min(step, out.length - off);
                MemorySegment seg = arena.allocate(chunk(), 4096).asSlice(0, len);
                assertEquals(len, r.read(off, seg));
                MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, 0, out, (int) off, len);
            }
            return out;
        }
    }

    @Test
    void committedDataAndMetadataReadBackByteForByte() throws Exception {
        StorageTarget t = target("roundtrip.bin");
        byte[] data = bytes(3L * chunk() + 12_345, 1);
        write(t, data, 1, 3, true);
        assertArrayEquals(data, read(t, 2));
        try (StorageReader r = provider().openReader(new ReadRequest(t, 1, options()))) {
            assertEquals(data.length, r.size());
            assertEquals(metadata(1), r.metadata());
        }
    }

    @Test
    void nothingIsVisibleBeforeCommitAndAbortLeavesNoTrace() throws Exception {
        StorageTarget t = target("aborted.bin");
        write(t, bytes(2L * chunk() + 1, 2), 2, 2, false); // closed without commit: aborted
        assertThrows(NoSuchFileException.class, () -> provider().openReader(new ReadRequest(t, 1, options())));
        assertNoTrace(t);
    }

    @Test
    void aCommitReplacesTheObjectWithItsMetadata() throws Exception {
        StorageTarget t = target("replaced.bin");
        write(t, bytes(2L * chunk(), 3), 3, 2, true);
        byte[] second = bytes(chunk() + 77, 4);
        write(t, second, 4, 1, true);
        assertArrayEquals(second, read(t, 1));
        try (StorageReader r = provider().openReader(new ReadRequest(t, 1, options()))) {
            assertEquals(metadata(4), r.metadata());
        }
    }

    @Test
    void deleteRemovesTheObjectAndSaysWhetherThereWasOne() throws Exception {
        StorageTarget t = target("deleted.bin");
        write(t, bytes(chunk(), 5), 5, 1, true);
        assertTrue(provider().delete(t, options()));
        assertThrows(NoSuchFileException.class, () -> provider().openReader(new ReadRequest(t, 1, options())));
        assertFalse(provider().delete(t, options()));
        assertNoTrace(t);
    }
}
