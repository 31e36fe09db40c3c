package io.dgen4j.crt;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Receives a GET's body for the thread that reads it: the CRT's threads queue the body's pieces,
 * and {@link #drainInto} copies them into the caller's segment on the caller's thread (the
 * segment may be confined to it). A few pieces are requested ahead ({@value #AHEAD}), one more per
 * piece copied, so the queue stays short whatever the range's size.
 *
 * <p>Copies: the CRT hands each piece to Java as a new heap array (JNI copies it out of the CRT's
 * native buffer), and {@link #drainInto} copies it into the segment: two copies per byte on the
 * read path, the least the CRT's Java binding allows.
 */
final class SegmentSink implements AsyncResponseTransformer<GetObjectResponse, Void> {
    /** Pieces requested before the first is copied. */
    static final int AHEAD = 4;
    private static final Object END = new Object();

    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private final Object requestLock = new Object();
    private volatile Subscription subscription;
    private volatile CompletableFuture<Void> result;

    @Override
    public CompletableFuture<Void> prepare() {
        // The GET's future completes with this one: when the body has ended or failed.
        result = new CompletableFuture<>();
        return result;
    }

    @Override
    public void onResponse(GetObjectResponse response) {
        // The range's size is checked by the caller from the bytes copied.
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
        publisher.subscribe(new Subscriber<ByteBuffer>() {
            @Override
            public void onSubscribe(Subscription s) {
                subscription = s;
                request(AHEAD);
            }

            @Override
            public void onNext(ByteBuffer piece) {
                events.add(piece);
            }

            @Override
            public void onError(Throwable t) {
                events.add(t);
                result.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                events.add(END);
                result.complete(null);
            }
        });
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        events.add(error);
        CompletableFuture<Void> f = result;
        if (f != null) {
            f.completeExceptionally(error);
        }
    }

    private void request(long n) {
        Subscription s = subscription;
        if (s != null) {
            synchronized (requestLock) { // Reactive Streams: request and cancel are called serially
                s.request(n);
            }
        }
    }

    /**
     * Copies the body into {@code dst} on the calling thread until it ends; returns the bytes
     * copied. {@code call} is the GET's future: its failure ends the wait too.
     *
     * @throws IOException when the server sends more than {@code dst} holds, or the GET fails (the
     *                     SDK's exception as the cause)
     */
    long drainInto(MemorySegment dst, CompletableFuture<?> call, String what) throws IOException {
        long position = 0;
        try {
            while (true) {
                Object e = events.poll(100, TimeUnit.MILLISECONDS);
                if (e == null) {
                    if (call.isCompletedExceptionally()) {
                        call.get(); // throws the GET's failure
                    }
                    continue;
                }
                if (e == END) {
                    call.get(); // the GET's own outcome (a failure after the body counts)
                    return position;
                }
                if (e instanceof Throwable t) {
                    throw new ExecutionException(t);
                }
                ByteBuffer piece = (ByteBuffer) e;
                int n = piece.remaining();
                if (n > dst.byteSize() - position) {
                    cancel();
                    throw new IOException(String.format("the server sent more than the %d bytes asked for (%s)",
                            dst.byteSize(), what));
                }
                MemorySegment.copy(MemorySegment.ofBuffer(piece), 0, dst, position, n);
                position += n;
                request(1);
            }
        } catch (InterruptedException e) {
            cancel();
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("GET of " + what + " interrupted");
        } catch (ExecutionException e) {
            throw new GetFailed(e.getCause());
        }
    }

    private void cancel() {
        Subscription s = subscription;
        if (s != null) {
            synchronized (requestLock) {
                s.cancel();
            }
        }
    }

    /** The GET's own failure, for the reader to describe. */
    static final class GetFailed extends IOException {
        private static final long serialVersionUID = 1L;

        GetFailed(Throwable cause) {
            super(cause == null ? "GET failed" : cause.getMessage(), cause);
        }
    }
}
