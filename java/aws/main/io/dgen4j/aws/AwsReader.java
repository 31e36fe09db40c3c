package io.dgen4j.aws;

import io.dgen4j.s3.MetadataCodec;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageReader;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Reads one object: a HEAD for its size, ETag and metadata, then ranged GETs ({@code bytes=a-b},
 * conditional on that ETag so that a replaced object fails instead of mixing versions) straight
 * into the caller's segments: the SDK's response buffers are copied into the segment's
 * {@code ByteBuffer} view, with no intermediate array of ours.
 */
final class AwsReader implements StorageReader {
    private final S3AsyncClient client;
    private final S3Location where;
    private final S3Settings settings;
    private final long size;
    private final String etag;
    private final Map<String, Object> metadata;

    private AwsReader(S3AsyncClient client, S3Location where, S3Settings settings, long size, String etag,
                      Map<String, Object> metadata) {
        this.client = client;
        this.where = where;
        this.settings = settings;
        this.size = size;
        this.etag = etag;
        this.metadata = metadata;
    }

    /**
     * HEADs the object.
     *
     * @throws NoSuchFileException when there is no object at the key
     * @throws IOException         when the bucket is missing or cannot be reached
     */
    static AwsReader open(S3AsyncClient client, S3Location where, S3Settings s) throws IOException {
        HeadObjectResponse h = head(client, where, s);
        return new AwsReader(client, where, s, h.contentLength(), h.eTag(),
                MetadataCodec.decode(h.metadata(), where.toString()));
    }

    /** Whether there is an object at the key (a missing bucket is an error). */
    static boolean exists(S3AsyncClient client, S3Location where, S3Settings s) throws IOException {
        try {
            head(client, where, s);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private static HeadObjectResponse head(S3AsyncClient client, S3Location where, S3Settings s) throws IOException {
        io.dgen4j.s3.EndpointProbe.check(s, "HeadObject of " + where);
        try {
            return client.headObject(b -> b.bucket(where.bucket()).key(where.key())).join();
        } catch (CompletionException e) {
            if (!AwsErrors.notFound(e)) {
                throw AwsErrors.io("HeadObject", where, s, e);
            }
        }
        // A HEAD's 404 has no body: ask the bucket whether it is the bucket or the key that is missing.
        AwsStorageProvider.await(client.headBucket(b -> b.bucket(where.bucket())), "HeadBucket", where, s);
        throw new NoSuchFileException(where.toString(), null, "no such object at " + s.endpointDescription());
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public long read(long offset, MemorySegment dst) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        long len = Math.min(dst.byteSize(), size - offset);
        if (len <= 0) {
            return 0;
        }
        if (len > Integer.MAX_VALUE) {
            len = Integer.MAX_VALUE & ~4095L;
        }
        String range = "bytes=" + offset + "-" + (offset + len - 1);
        GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(where.bucket()).key(where.key()).range(range);
        if (etag != null) {
            req.ifMatch(etag);
        }
        SegmentSink sink = new SegmentSink();
        CompletableFuture<Long> call;
        try {
            call = client.getObject(req.build(), sink);
        } catch (RuntimeException e) {
            throw AwsErrors.io("GetObject " + range, where, settings, e);
        }
        long n = sink.drain(call, dst.asSlice(0, len), "GetObject " + range);
        if (n != len) {
            throw new IOException(String.format("GetObject %s of %s at %s returned %d bytes, %d expected", range, where,
                    settings.endpointDescription(), n, len));
        }
        return n;
    }

    /**
     * Receives a GET's body. The SDK's threads only queue its buffers; the reading thread copies
     * them into the segment (so a segment confined to that thread works, and an abandoned read
     * never writes into a segment after {@code read} returned). Each attempt (the SDK retries)
     * starts over at the segment's start.
     */
    private final class SegmentSink implements AsyncResponseTransformer<GetObjectResponse, Long> {
        private record Item(int attempt, Object payload) {}
        private static final Object RESET = new Object();
        private static final Object END = new Object();
        private static final Object DONE = new Object();

        private final BlockingQueue<Item> queue = new LinkedBlockingQueue<>();
        private int attempt;
        private volatile CompletableFuture<Long> future;

        @Override
        public CompletableFuture<Long> prepare() {
            int a = ++attempt;
            queue.add(new Item(a, RESET));
            CompletableFuture<Long> f = new CompletableFuture<>();
            future = f;
            return f;
        }

        @Override
        public void onResponse(GetObjectResponse response) {}

        @Override
        public void onStream(SdkPublisher<ByteBuffer> publisher) {
            int a = attempt;
            CompletableFuture<Long> f = future;
            publisher.subscribe(new Subscriber<ByteBuffer>() {
                @Override
                public void onSubscribe(Subscription s) {
                    s.request(Long.MAX_VALUE); // bounded by the range asked for
                }

                @Override
                public void onNext(ByteBuffer b) {
                    queue.add(new Item(a, b));
                }

                @Override
                public void onError(Throwable t) {
                    f.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                    queue.add(new Item(a, END));
                    f.complete(0L);
                }
            });
        }

        @Override
        public void exceptionOccurred(Throwable error) {
            CompletableFuture<Long> f = future;
            if (f != null) {
                f.completeExceptionally(error);
            }
        }

        /** Copies the latest attempt's body into {@code dst} until the call ends; returns the bytes copied. */
        long drain(CompletableFuture<Long> call, MemorySegment dst, String operation) throws IOException {
            call.whenComplete((r, e) -> queue.add(new Item(Integer.MAX_VALUE, DONE)));
            ByteBuffer target = dst.asByteBuffer();
            int current = 0;
            boolean ended = false;
            while (true) {
                Item item;
                try {
                    item = queue.take();
                } catch (InterruptedException e) {
                    call.cancel(true);
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException(operation + " of " + where + " interrupted");
                }
                Object p = item.payload();
                if (p == DONE) {
                    break;
                } else if (p == RESET) {
                    current = item.attempt();
                    target.clear();
                    ended = false;
                } else if (p == END) {
                    ended |= item.attempt() == current;
                } else if (item.attempt() == current) {
                    ByteBuffer b = (ByteBuffer) p;
                    if (b.remaining() > target.remaining()) {
                        call.cancel(true);
                        throw new IOException(String.format("%s of %s at %s returned more bytes than asked for",
                                operation, where, settings.endpointDescription()));
                    }
                    target.put(b);
                }
            }
            try {
                call.join();
            } catch (CompletionException | java.util.concurrent.CancellationException e) {
                throw AwsErrors.io(operation, where, settings, e);
            }
            if (!ended) {
                throw new IOException(String.format("%s of %s at %s ended without its body", operation, where,
                        settings.endpointDescription()));
            }
            return target.position();
        }
    }

    @Override
    public Map<String, Object> metadata() {
        return metadata;
    }

    @Override
    public boolean directIo() {
        return false;
    }

    @Override
    public String description() {
        return String.format("aws %s at %s (ranged GETs)", where, settings.endpointDescription());
    }

    @Override
    public void close() {
        // the client is shared and kept by the provider
    }
}
