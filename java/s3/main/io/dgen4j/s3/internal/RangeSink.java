package io.dgen4j.s3.internal;

import io.dgen4j.s3.spi.S3Transport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.zip.Checksum;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Copies a ranged GET's body, as an SDK async client publishes it, into a segment that any thread
 * may access, on the client's thread as each piece arrives (no queue, no waiting thread); completes
 * with the number of bytes copied. The crt backend's GETs outside the lending client take it, and
 * the aws backend's where the async client serves GETs (options that customize its builder); each
 * attempt of the client's own retry starts over at the segment's start.
 * More than the segment holds fails the GET (the server ignored the range); so does an answer whose
 * ETag is not the one asked for (the server ignored {@code If-Match}), before a byte is copied. Once
 * {@link #close()}d (the GET ended, or was cancelled) nothing more is copied: the segment may be
 * reused at once. With a checksum, each piece is summed as it is copied (see {@link #copy}).
 */
public final class RangeSink implements AsyncResponseTransformer<GetObjectResponse, Long> {
    private final MemorySegment dst;
    /** Fed every byte copied, in order; reset when an attempt starts over; null for none. */
    private final Checksum sum;
    private final String what;
    private final String etag;
    private final Function<String, RuntimeException> changed;
    private volatile CompletableFuture<Long> result;
    private volatile long position;
    private boolean closed;
    private volatile RuntimeException mismatch;

    /**
     * A sink that feeds {@code sum} (when not null) what it copies, and fails an answer whose ETag is
     * not {@code etag} (when not null) with {@code changed}'s exception.
     */
    public RangeSink(MemorySegment dst, Checksum sum, String what, String etag,
              Function<String, RuntimeException> changed) {
        this.dst = dst;
        this.sum = sum;
        this.what = what;
        this.etag = etag;
        this.changed = changed;
    }

    @Override
    public CompletableFuture<Long> prepare() {
        // A new attempt starts the body again.
        synchronized (this) {
            position = 0;
            if (sum != null) {
                sum.reset();
            }
        }
        result = new CompletableFuture<>();
        return result;
    }

    @Override
    public void onResponse(GetObjectResponse response) {
        // The range's size is checked from the bytes copied.
        mismatch = S3Transport.sameETag(etag, response.eTag()) ? null : changed.apply(response.eTag());
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
        CompletableFuture<Long> done = result;
        RuntimeException other = mismatch;
        if (other != null) {
            done.completeExceptionally(other);
        }
        publisher.subscribe(new Subscriber<ByteBuffer>() {
            private Subscription subscription;

            @Override
            public void onSubscribe(Subscription s) {
                subscription = s;
                if (done.isDone()) {
                    s.cancel();
                    return;
                }
                // each piece is copied before onNext returns: nothing piles up
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer piece) {
                if (done.isDone()) {
                    return;
                }
                int n = piece.remaining();
                synchronized (RangeSink.this) {
                    if (closed) {
                        subscription.cancel();
                        return;
                    }
                    long at = position;
                    if (n > dst.byteSize() - at) {
                        subscription.cancel();
                        done.completeExceptionally(new IOException(String.format("the server sent more than the %d "
                                + "bytes asked for (%s)", dst.byteSize(), what)));
                        return;
                    }
                    try {
                        copy(piece, at, n);
                    } catch (RuntimeException e) { // the caller's arena closed under the GET
                        subscription.cancel();
                        done.completeExceptionally(e);
                        return;
                    }
                    position = at + n;
                }
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                done.complete(position);
            }
        });
    }

    /**
     * Copies {@code n} bytes of {@code piece} to {@code at} in one copy, then sums them from the
     * piece: the copy of a piece this large streams past the cache into the segment, and leaves much
     * of the piece it read in the last-level cache for the sum (copying and summing in small slices
     * instead made the copy go through the cache: slower than both passes together).
     */
    private void copy(ByteBuffer piece, long at, int n) {
        MemorySegment.copy(MemorySegment.ofBuffer(piece), 0, dst, at, n);
        if (sum != null) {
            sum.update(piece);
        }
    }

    /** Copies nothing more, from now on (a copy under way finishes first). */
    public synchronized void close() {
        closed = true;
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        CompletableFuture<Long> f = result;
        if (f != null) {
            f.completeExceptionally(error);
        }
    }
}
