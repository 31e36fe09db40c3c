package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server dies in the middle of an upload: the save fails promptly with the cause; nothing
 * hangs. A backend's test extends it and names the backend.
 */
public abstract class S3ServerKilledContract {
    @RegisterExtension
    protected static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** The backend under test ({@code aws}, {@code minio}). */
    protected abstract String backend();

    @Test
    protected void theSaveFailsWithTheCauseWhenTheServerIsKilledMidUpload() {
        S3Settings s = S3.settings().toBuilder().apiCallAttemptTimeout(Duration.ofSeconds(10))
                .apiCallTimeout(Duration.ofSeconds(30)).build();
        StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(5 << 20).buffers(3).writersInFlight(2)
                .backend(backend()).backendOptions(s).progress(written -> {
                    if (written >= (30 << 20)) {
                        killOnce();
                    }
                }).build();
        long start = System.nanoTime();
        // a guard against a hang, not a speed check: the failure comes within seconds
        IOException e = assertTimeoutPreemptively(Duration.ofMinutes(3), () -> assertThrows(IOException.class,
                () -> c.save("s3://" + S3.bucket() + "/killed.bin", 2L << 30)));
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("save failed %.1f s after it started (server killed after 30 MiB): %s%n", seconds,
                e.getMessage());
        assertTrue(KILLED.get(), "the server was killed mid-upload");
        assertTrue(e.getMessage().contains("s3://" + S3.bucket() + "/killed.bin"), e.getMessage());
        assertTrue(e.getMessage().contains("UploadPart") || e.getMessage().contains("CompleteMultipartUpload"),
                e.getMessage());
        assertTrue(!e.getMessage().contains(S3ProxyExtension.SECRET_KEY));
    }

    private static final AtomicBoolean KILLED = new AtomicBoolean();

    private static void killOnce() {
        if (KILLED.compareAndSet(false, true)) {
            try {
                S3.kill();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
