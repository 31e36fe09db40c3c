package io.dgen4j.aws;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.internal.SdkBodyCopy;
import io.dgen4j.s3.spi.S3Transport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.zip.Checksum;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The {@code aws} backend's ranged GETs, and a load's HEAD: the SDK's sync client (Apache's HTTP
 * client) on threads of their own, each body read from the socket into a per-thread buffer of
 * {@value SdkBodyCopy#READ_PIECE} bytes and copied into the caller's segment. The async client on Netty copies every body piece into a
 * new heap buffer and hands it through a chain of subscribers before the caller sees it: a 1 GiB
 * load took ~2.3 CPU s on its event loops where this takes about half (docs/PERFORMANCE.md).
 *
 * <p>A GET whose future completes (its cancel included) aborts its connection if the body is not
 * read to its end, and writes no byte into the segment after that.
 */
final class AwsRangedGets {
    private final Shared shared;
    /** Where this view's GETs go instead of the client's endpoint, or null. */
    private final URI endpoint;
    /** The request configuration that sends them there, made on the first request; null for the client's own. */
    private AwsRequestOverrideConfiguration route;

    private AwsRangedGets(Shared shared, URI endpoint) {
        this.shared = shared;
        this.endpoint = endpoint;
    }

    /**
     * The sync client and the reader threads that one endpoint set shares; closing it closes both.
     * The client is made on the first request (a save makes none: Apache's client costs ~0.2 s of class
     * loading). Threads are made as GETs need them (as many as are in flight, which the driver bounds)
     * and end after 30 s idle.
     */
    static final class Shared implements AutoCloseable {
        private static final AtomicInteger CLIENTS = new AtomicInteger();

        private final Supplier<S3Client> maker;
        private final ExecutorService threads;
        private S3Client client;
        private boolean closed;

        Shared(Supplier<S3Client> maker) {
            this.maker = maker;
            int id = CLIENTS.incrementAndGet();
            AtomicInteger n = new AtomicInteger();
            this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    r -> {
                        Thread t = new Thread(r, "dgen4j-aws-get-" + id + "-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
        }

        /** The client, made now if this is the first request. */
        synchronized S3Client client() {
            if (closed) {
                throw new IllegalStateException("the S3 client is closed");
            }
            if (client == null) {
                client = maker.get();
            }
            return client;
        }

        /** GETs sent where the client sends them. */
        AwsRangedGets own() {
            return new AwsRangedGets(this, null);
        }

        /** GETs sent to {@code endpoint} ({@code http(s)://host[:port]}) instead. */
        AwsRangedGets to(URI endpoint) {
            return new AwsRangedGets(this, endpoint);
        }

        @Override
        public void close() {
            S3Client c;
            synchronized (this) {
                closed = true;
                c = client;
            }
            threads.shutdownNow();
            if (c != null) {
                c.close();
            }
        }
    }

    /**
     * The request configuration of this view: none for the client's own endpoint, else an endpoint
     * provider that resolves as the client's would, with this view's endpoint (as {@link
     * io.dgen4j.s3.internal.RoutedClient} does for the async client). Made on the first request.
     */
    private synchronized AwsRequestOverrideConfiguration route(S3Client client) {
        if (endpoint != null && route == null) {
            S3EndpointProvider base = client.serviceClientConfiguration().endpointProvider()
                    .filter(S3EndpointProvider.class::isInstance).map(S3EndpointProvider.class::cast)
                    .orElseGet(S3EndpointProvider::defaultProvider);
            String url = endpoint.toString();
            S3EndpointProvider to = p -> base.resolveEndpoint(p.toBuilder().endpoint(url).build());
            route = AwsRequestOverrideConfiguration.builder().endpointProvider(to).build();
        }
        return route;
    }

    /**
     * A GET of {@code dst.byteSize()} bytes at {@code offset} into {@code dst}, with {@code If-Match:
     * etag} when it is not null, feeding {@code sum} (when not null) each piece as it is stored;
     * completes with the bytes stored, or with the SDK's or the socket's failure as it is (the
     * transport classifies it).
     */
    CompletableFuture<Long> get(S3Location where, long offset, MemorySegment dst, String etag, String endpoint,
                                Checksum sum) {
        long len = dst.byteSize();
        String range = "bytes=" + offset + "-" + (offset + len - 1);
        GetObjectRequest.Builder req = GetObjectRequest.builder().bucket(where.bucket()).key(where.key()).range(range);
        if (etag != null) {
            req.ifMatch(etag);
        }
        SdkBodyCopy call = new SdkBodyCopy(dst, sum, range + " of " + where);
        CompletableFuture<Long> out = submit((client, config) -> call.run(
                client.getObject(req.overrideConfiguration(config).build()), etag,
                got -> new S3Transport.ETagChanged("GetObject " + range, where, endpoint, etag, got)));
        // however it ends (a cancel included), nothing more lands in dst after this
        out.whenComplete((n, e) -> call.close());
        return out;
    }

    /**
     * A HEAD of the object (a load's first request, so that a load makes no async client): its
     * size, ETag, metadata and, when {@code crc32c}, its full-object CRC32C; empty when there is none
     * (404); else the SDK's failure as it is.
     */
    CompletableFuture<Optional<S3Transport.ObjectHead>> head(S3Location where, boolean crc32c) {
        return submit((client, config) -> {
            HeadObjectRequest.Builder req = HeadObjectRequest.builder().bucket(where.bucket()).key(where.key())
                    .overrideConfiguration(config);
            if (crc32c) {
                req.checksumMode(ChecksumMode.ENABLED);
            }
            try {
                HeadObjectResponse h = client.headObject(req.build());
                return Optional.of(new S3Transport.ObjectHead(h.contentLength(), h.eTag(), h.metadata(),
                        h.checksumCRC32C()));
            } catch (S3Exception e) {
                if (e.statusCode() == 404) {
                    return Optional.empty();
                }
                throw e;
            }
        });
    }

    /** A request of the sync client, given the client and this view's request configuration. */
    @FunctionalInterface
    private interface Work<T> {
        T run(S3Client client, AwsRequestOverrideConfiguration config) throws IOException;
    }

    /**
     * Runs {@code work} on one of the set's threads (the client made first if need be); completes with
     * its result or its failure as it is (the transport classifies it).
     */
    private <T> CompletableFuture<T> submit(Work<T> work) {
        CompletableFuture<T> out = new CompletableFuture<>();
        try {
            shared.threads.execute(() -> {
                try {
                    S3Client client = shared.client();
                    out.complete(work.run(client, route(client)));
                } catch (Throwable t) {
                    out.completeExceptionally(t);
                }
            });
        } catch (RuntimeException e) { // the client is closed
            out.completeExceptionally(e);
        }
        return out;
    }
}
