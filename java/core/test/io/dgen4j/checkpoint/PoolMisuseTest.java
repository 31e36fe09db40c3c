package io.dgen4j.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.DataSpec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Buffers that are not the pool's, and data sources that cannot have the ratios asked, are refused. */
class PoolMisuseTest {
    @Test
    void onlyThePoolsOwnTakenBuffersMayBeReleased() throws Exception {
        try (BufferPool pool = new BufferPool(2, 1 << 16); BufferPool other = new BufferPool(1, 1 << 16);
             Arena arena = Arena.ofConfined()) {
            MemorySegment buf = pool.acquire(1, TimeUnit.SECONDS).orElseThrow();
            MemorySegment foreign = other.acquire(1, TimeUnit.SECONDS).orElseThrow();
            for (MemorySegment bad : new MemorySegment[] {arena.allocate(1 << 16, 4096), foreign, buf.asSlice(0, 4096),
                    MemorySegment.ofArray(new byte[1 << 16])}) {
                var e = assertThrows(IllegalArgumentException.class, () -> pool.release(bad));
                assertTrue(e.getMessage().contains("is not a buffer of this pool"), e.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> pool.release(null));
            pool.release(buf);
            var twice = assertThrows(IllegalStateException.class, () -> pool.release(buf));
            assertTrue(twice.getMessage().contains("is not taken: released twice, or never acquired"), twice.getMessage());
            assertEquals(0, pool.inUse());
            other.release(foreign);
        }
    }

    @Test
    void jdkRandomRefusesRatiosItCannotProduce() {
        for (DataSpec spec : new DataSpec[] {DataSpec.builder().dedupRatio(2).build(),
                DataSpec.builder().compressRatio(1.5).build()}) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> StreamingCheckpoint.builder().spec(spec).source(DataSource.JDK_RANDOM).build());
            assertTrue(e.getMessage().startsWith("the jdk-random generator cannot produce dedup"), e.getMessage());
        }
        StreamingCheckpoint.builder().source(DataSource.JDK_RANDOM).build(); // ratios 1: fine
    }
}
