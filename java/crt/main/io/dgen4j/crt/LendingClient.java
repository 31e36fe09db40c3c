package io.dgen4j.crt;

import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.services.s3.DelegatingS3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * A CRT-based client built with the process's one direct buffer pool, out of which it lends ranged
 * GETs' bodies (see {@link PooledGets}); closing it gives the pool back for the next client.
 *
 * <p>One pool per process, because the CRT allots each client's pool out of the JVM's direct memory
 * as it fills it, and a pool that cannot grow when it must waits for a buffer that nothing will give
 * back: a load over 1,000 endpoints (a client per port) hung once their pools' 8 MiB buffers had
 * taken the launcher's 96 MiB of direct memory. The other clients of the process take the CRT's
 * heap arrays instead ({@link io.dgen4j.s3.internal.RangeSink}).
 */
final class LendingClient extends DelegatingS3AsyncClient {
    /** Whether a client of this process holds the pool. */
    private static final AtomicBoolean LENT = new AtomicBoolean();

    private final AtomicBoolean closed = new AtomicBoolean();

    private LendingClient(S3AsyncClient client) {
        super(client);
    }

    /** Takes the process's pool if no client holds it; {@code true} when taken (then give it back). */
    static boolean takePool() {
        return LENT.compareAndSet(false, true);
    }

    /** Gives the pool taken with {@link #takePool()} back, for a client that was not made. */
    static void givePoolBack() {
        LENT.set(false);
    }

    /** {@code client}, built with the pool taken, as the pool's holder. */
    static LendingClient holding(S3AsyncClient client) {
        return new LendingClient(client);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                super.close();
            } finally {
                givePoolBack();
            }
        }
    }
}
