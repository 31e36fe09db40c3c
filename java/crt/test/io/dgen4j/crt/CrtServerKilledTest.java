package io.dgen4j.crt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.S3ServerKilledContract;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.BeforeEach;

/**
 * The server dies (SIGKILL) in the middle of a save through the crt backend: the contract, and this
 * backend's own case: the save fails promptly with the cause and says what may be left; nothing hangs. The limit below guards against
 * a hang only (a stalled connection would take the client's 60 s stall timeout and more); the
 * time the failure took is printed, not asserted.
 */
class CrtServerKilledTest extends S3ServerKilledContract {
    private static final long CHUNK = 8L << 20;

    @Override
    protected String backend() {
        return CrtClient.NAME;
    }

    /** Each case kills the server: the next starts it again (on a new port over the same files). */
    @BeforeEach
    void serverRuns() throws Exception {
        if (!S3.isRunning()) {
            S3.start();
        }
    }

    @Test
    void aSaveFailsWithinSecondsWhenTheServerDiesMidUpload() throws Exception {
        String key = "killed/ckpt.bin";
        StorageTarget target = CrtTests.target(S3, key);
        CountDownLatch killed = new CountDownLatch(1);
        AtomicLong killedAt = new AtomicLong();
        AtomicLong writtenAtKill = new AtomicLong();
        StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(CHUNK).buffers(3).writersInFlight(2)
                .backend("crt").backendOptions(S3.settings()).spec(DataSpec.builder().seed(9).build())
                .progress(written -> {
                    if (written >= 3 * CHUNK && writtenAtKill.compareAndSet(0, written)) {
                        Thread.ofPlatform().start(() -> {
                            try {
                                S3.kill();
                                killedAt.set(System.nanoTime());
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } finally {
                                killed.countDown();
                            }
                        });
                    }
                }).build();
        IOException e = assertTimeoutPreemptively(Duration.ofSeconds(300),
                () -> assertThrows(IOException.class, () -> c.save(target, 64 * CHUNK)));
        long failedAt = System.nanoTime();
        killed.await();
        System.out.printf("crt: server killed after %d MiB of 512 MiB; the save failed %.2f s after the kill: %s%n",
                writtenAtKill.get() >> 20, (failedAt - killedAt.get()) / 1e9, e.getMessage());
        assertTrue(e.getMessage().contains("cannot connect to the S3 endpoint " + S3.endpoint())
                || e.getMessage().contains("at " + S3.endpoint() + " failed: the connection broke"), e.getMessage());
        assertTrue(e.getMessage().contains("is left open"), e.getMessage());

        // Back on a new port over the same files: no object was made; the upload the dead server
        // could not abort is reported by the failure and cleaned here.
        S3.start();
        assertThrows(NoSuchFileException.class,
                () -> CrtTests.crt().openReader(new ReadRequest(target, 1, CrtTests.options(S3.settings()))));
        for (String id : CrtTests.openUploads(S3, key)) {
            assertTrue(e.getMessage().contains(id), "the failure names the upload left open: " + e.getMessage());
        }
        assertEquals(0, CrtTests.openUploads(S3, key).stream().filter(id -> !e.getMessage().contains(id)).count());
    }
}
