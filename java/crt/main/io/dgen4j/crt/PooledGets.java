package io.dgen4j.crt;

import io.dgen4j.s3.internal.SdkBodyCopy;
import io.dgen4j.s3.spi.S3Transport;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.zip.Checksum;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.crt.S3CrtResponseTransformerProvider;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The crt backend's ranged GETs out of the CRT's direct buffer pool: the CRT lends each received
 * piece of a body as a view of its own native buffer (no copy into a new, zeroed Java array, no
 * garbage), which a thread of this set reads {@value SdkBodyCopy#READ_PIECE} bytes at a time into a buffer of
 * its own, in cache, and copies into the caller's segment, summing it there when asked to (64 KiB and
 * 2 MiB buffers were no faster). Threads are made as GETs need them (as many as are in flight, which
 * the driver bounds) and end after 30 s idle; closing the set ends them.
 *
 * <p>Against the heap arrays the CRT's JNI otherwise hands Java (a copy into a new, zeroed 8 MiB
 * array per piece, then ours into the segment), a 4 GiB load in 32 MiB ranges, 4 in flight, against
 * s3proxy on 2 vCPUs: 2.55-3.55 s of reads instead of 3.17-4.13, 4.1-5.6 CPU s instead of 5.1-5.9,
 * 40 collections (62 ms) instead of ~350 (~650 ms, 11-15 of them full), peak RSS 276 MiB instead
 * of 344.
 *
 * <p>A GET whose future completes (its cancel included) aborts its body if it was not read to its
 * end (the CRT's buffers go back to its pool), and writes no byte into the segment after that.
 */
final class PooledGets implements AutoCloseable {
    private static final AtomicInteger SETS = new AtomicInteger();

    private final ExecutorService threads;

    PooledGets() {
        int id = SETS.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> {
                    Thread t = new Thread(r, "dgen4j-crt-get-" + id + "-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Sends {@code req} through {@code client} (built with a direct buffer pool) and reads its body
     * into {@code dst}, feeding {@code sum} (when not null) each piece as it is stored; completes
     * with the bytes stored. An answer whose ETag is not {@code etag} (when not null) fails with
     * {@code changed}'s exception before a byte is stored; one longer than {@code dst} fails too
     * (naming {@code what} was asked for).
     */
    CompletableFuture<Long> get(S3AsyncClient client, GetObjectRequest req, MemorySegment dst, Checksum sum,
                                String what, String etag, Function<String, RuntimeException> changed) {
        SdkBodyCopy call = new SdkBodyCopy(dst, sum, what);
        CompletableFuture<ResponseInputStream<GetObjectResponse>> head = client.getObject(req,
                S3CrtResponseTransformerProvider.toBlockingInputStreamFromDirectBufferPool());
        CompletableFuture<Long> out = new CompletableFuture<>();
        head.whenComplete((in, e) -> {
            if (e != null) {
                out.completeExceptionally(e instanceof CompletionException c && c.getCause() != null
                        ? c.getCause() : e);
                return;
            }
            try {
                threads.execute(() -> {
                    try {
                        out.complete(call.run(in, etag, changed));
                    } catch (Throwable t) {
                        out.completeExceptionally(t);
                    }
                });
            } catch (RuntimeException closed) { // the set is closed
                in.abort();
                out.completeExceptionally(closed);
            }
        });
        // however it ends (a cancel included), nothing more lands in dst after this
        out.whenComplete((n, e) -> call.close());
        return S3Transport.cancelling(head, out);
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
