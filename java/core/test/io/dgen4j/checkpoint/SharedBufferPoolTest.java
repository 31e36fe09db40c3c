package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.Streams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Saves and loads through one caller-owned {@link BufferPool}: the same bytes as with pools of
 * their own, buffers mapped once and kept until the caller closes the pool, one user at a time.
 */
class SharedBufferPoolTest {
    private static final DataSpec DATA = DataSpec.builder().seed(7).dedupRatio(2).compressRatio(2).build();
    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;

    @AfterEach
    void noBufferLeaks() {
        assertEquals(0, BufferPool.liveBytes(), "buffer memory left allocated after the test");
    }

    @Test
    void savesAndLoadsShareTheBuffersAndWriteTheSameBytes() throws Exception {
        try (BufferPool pool = new BufferPool(3, 2 * MIB)) {
            // Chunks of 1 MiB in buffers of 2 MiB: a pool may be larger than a chunk.
            StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(MIB).writersInFlight(2).readersInFlight(2).spec(DATA)
                    .bufferPool(pool).build();
            long[] sizes = {9 * MIB + 17, 3 * MIB, 1};
            for (int i = 0; i < sizes.length; i++) {
                Path f = dir.resolve("ckpt-" + i + ".bin");
                SaveResult saved = ckpt.save(f.toString(), sizes[i]);
                assertArrayEquals(Streams.bytes(DATA.toBuilder().size(sizes[i]).build(), Generator.Kind.JAVA, 1),
                        Files.readAllBytes(f), "save " + i);
                assertEquals(3, saved.buffers(), "a save uses the pool's buffers");
                assertEquals(6 * MIB, saved.poolBytes());
                assertTrue(saved.peakBuffersInUse() >= 1 && saved.peakBuffersInUse() <= 3, "peak " + saved.peakBuffersInUse());
                // The buffers stay mapped between saves: the next one does not map them again.
                assertTrue(BufferPool.liveBytes() > 0 && BufferPool.liveBytes() <= 6 * MIB, "live " + BufferPool.liveBytes());
                assertEquals(0, pool.inUse(), "every buffer back after save " + i);
                for (int readers : new int[] {1, 2, 4}) {
                    LoadResult loaded = StreamingCheckpoint.builder().chunkSize(MIB).readersInFlight(readers)
                            .bufferPool(pool).build().load(f.toString(), true);
                    assertEquals(sizes[i], loaded.totalBytes());
                    assertTrue(loaded.peakBuffersInUse() <= 3, "readers " + readers + ": peak " + loaded.peakBuffersInUse());
                }
            }
            long mapped = BufferPool.liveBytes();
            // A corrupted byte is still found through the shared pool, which is left reusable.
            Path f = dir.resolve("ckpt-0.bin");
            LoadVerifyTest.flip(f, 5 * MIB + 3);
            var e = assertThrows(VerifyException.class, () -> ckpt.load(f.toString(), true));
            assertEquals(5 * MIB + 3, e.offset().orElseThrow());
            assertEquals(0, pool.inUse());
            assertEquals(mapped, BufferPool.liveBytes(), "a failed load neither maps nor frees buffers");
            ckpt.save(f.toString(), 2 * MIB);
        }
    }

    @Test
    void aPoolThatCannotHoldAChunkOrFeedTheWritersIsRefused() {
        try (BufferPool pool = new BufferPool(2, MIB)) {
            var small = assertThrows(IllegalArgumentException.class,
                    () -> StreamingCheckpoint.builder().chunkSize(2 * MIB).bufferPool(pool).build());
            assertEquals("the shared buffer pool's buffers (1048576 bytes) are smaller than a chunk (2097152 bytes)",
                    small.getMessage());
            var few = assertThrows(IllegalArgumentException.class,
                    () -> StreamingCheckpoint.builder().chunkSize(MIB).writersInFlight(2).bufferPool(pool).build()
                            .save(dir.resolve("few.bin").toString(), MIB));
            assertEquals("the shared buffer pool's 2 buffer(s) must exceed writers in flight (2): one buffer is always "
                    + "being filled", few.getMessage());
            assertTrue(Files.notExists(dir.resolve("few.bin")), "refused before anything is written");
        }
    }

    @Test
    void aSecondUserWhileOneRunsIsRefusedAndAClosedPoolTooSaysSo() throws Exception {
        Path f = dir.resolve("busy.bin");
        BufferPool pool = new BufferPool(2, MIB);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        StreamingCheckpoint blocking = StreamingCheckpoint.builder().chunkSize(MIB).spec(DATA).bufferPool(pool)
                .progress(done -> {
                    inside.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }).build();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread first = Thread.ofPlatform().start(() -> {
            try {
                blocking.save(f.toString(), 4 * MIB);
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        try {
            assertTrue(inside.await(30, TimeUnit.SECONDS), "the first save started");
            StreamingCheckpoint other = StreamingCheckpoint.builder().chunkSize(MIB).spec(DATA).bufferPool(pool).build();
            var busy = assertThrows(IllegalStateException.class, () -> other.save(dir.resolve("other.bin").toString(), MIB));
            assertEquals("the shared buffer pool is in use by the save to " + f + ": the save to " + dir.resolve("other.bin")
                    + " needs a pool of its own, or has to wait until that one ends", busy.getMessage());
        } finally {
            release.countDown();
            first.join(30_000);
        }
        assertEquals(null, failed.get());
        assertEquals(4 * MIB, Files.size(f));
        pool.close();
        var closed = assertThrows(IllegalStateException.class, () -> blocking.load(f.toString(), true));
        assertEquals("the shared buffer pool is closed: the load of " + f + " cannot use it", closed.getMessage());
    }
}
