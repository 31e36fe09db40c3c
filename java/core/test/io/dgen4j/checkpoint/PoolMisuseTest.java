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
        // each message names only the ratio that is not 1 (a compress-only refusal once named "dedup 1.0")
        java.util.Map<DataSpec, String> refusals = java.util.Map.of(
                DataSpec.builder().dedupRatio(2).build(), "the jdk-random generator cannot produce dedup 2.0 (its bytes "
                        + "are all distinct): use dedup 1, or another generator",
                DataSpec.builder().compressRatio(1.5).build(), "the jdk-random generator cannot produce compress 1.5 "
                        + "(its bytes are incompressible): use compress 1, or another generator",
                DataSpec.builder().dedupRatio(2).compressRatio(3).build(), "the jdk-random generator cannot produce "
                        + "dedup 2.0 and compress 3.0 (its bytes are all distinct and incompressible): use dedup 1 and "
                        + "compress 1, or another generator");
        refusals.forEach((spec, message) -> {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> StreamingCheckpoint.builder().spec(spec).source(DataSource.JDK_RANDOM).build());
            assertEquals(message, e.getMessage());
        });
        StreamingCheckpoint.builder().source(DataSource.JDK_RANDOM).build(); // ratios 1: fine
    }
}
