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
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.zip.Checksum;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The {@code aws} backend's requests through the SDK's sync clients, on threads of their own:
 * <ul>
 * <li>ranged GETs and a load's HEAD, through the client on Apache's HTTP client: each body read
 * from the socket into a per-thread buffer of {@value SdkBodyCopy#READ_PIECE} bytes and copied into
 * the caller's segment. The async client on Netty copies every body piece into a new heap buffer and
 * hands it through a chain of subscribers before the caller sees it: a 1 GiB load took ~2.3 CPU s on
 * its event loops where this takes about half (docs/PERFORMANCE.md);
 * <li>parts and single-part objects of a save to an {@code http://} endpoint, through the client on
 * {@link SegmentHttpClient}: each body written to the socket from the caller's segment in a few
 * blocking writes, where the async client's Netty pipeline handled it in 1 MiB pieces on its event
 * loops, ~0.2 CPU s per GiB more (docs/PERFORMANCE.md).
 * </ul>
 *
 * <p>A GET whose future completes (its cancel included) aborts its connection if the body is not
 * read to its end, and writes no byte into the segment after that. An upload whose future is
 * cancelled closes its connection, which stops the write of its body.
 */
final class AwsSyncCalls {
    private final Shared shared;
    /** Where this view's requests go instead of the clients' endpoint, or null. */
    private final URI endpoint;
    /** The request configuration that sends them there, made on the first request; null for the client's own. */
    private AwsRequestOverrideConfiguration route;

    private AwsSyncCalls(Shared shared, URI endpoint) {
        this.shared = shared;
        this.endpoint = endpoint;
    }

    /**
     * The sync clients and the threads that one endpoint set shares; closing it closes them all.
     * Each client is made on its first request (a save makes no GET client: Apache's costs ~0.2 s of
     * class loading; a load makes no upload client). Threads are made as requests need them (as many
     * as are in flight, which the driver bounds) and end after 30 s idle.
     */
    static final class Shared implements AutoCloseable {
        private static final AtomicInteger CLIENTS = new AtomicInteger();

        private final Supplier<S3Client> getMaker;
        /** Makes the upload client; null when uploads stay on the async client. */
        private final Supplier<S3Client> uploadMaker;
        /** Whether parts may be sent with {@code sendfile} from a memory file (else every body is written). */
        private final boolean partsFromFiles;
        /** The clients' own endpoint, or null (AWS's). */
        private final URI ownEndpoint;
        private final ExecutorService threads;
        private S3Client gets;
        private S3Client uploads;
        private boolean closed;

        /**
         * @param getMaker    makes the client of GETs and HEADs
         * @param uploadMaker    makes the client of uploads, or null for none (uploads stay on the async client)
         * @param partsFromFiles whether parts may be sent with {@code sendfile} where their buffer is a memory file
         * @param ownEndpoint    the clients' own endpoint, or null (AWS's)
         */
        Shared(Supplier<S3Client> getMaker, Supplier<S3Client> uploadMaker, boolean partsFromFiles, URI ownEndpoint) {
            this.getMaker = getMaker;
            this.uploadMaker = uploadMaker;
            this.partsFromFiles = partsFromFiles;
            this.ownEndpoint = ownEndpoint;
            int id = CLIENTS.incrementAndGet();
            AtomicInteger n = new AtomicInteger();
            this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    r -> {
                        Thread t = new Thread(r, "dgen4j-aws-sync-" + id + "-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
        }

        /** The GET client, made now if this is the first request. */
        S3Client gets() {
            return client(false);
        }

        /** The upload client, made now if this is the first upload. */
        S3Client uploads() {
            return client(true);
        }

        private synchronized S3Client client(boolean upload) {
            if (closed) {
                throw new IllegalStateException("the S3 client is closed");
            }
            if (upload) {
                if (uploads == null) {
                    uploads = uploadMaker.get();
                }
                return uploads;
            }
            if (gets == null) {
                gets = getMaker.get();
            }
            return gets;
        }

        /** Requests sent where the clients send them. */
        AwsSyncCalls own() {
            return new AwsSyncCalls(this, null);
        }

        /** Requests sent to {@code endpoint} ({@code http(s)://host[:port]}) instead. */
        AwsSyncCalls to(URI endpoint) {
            return new AwsSyncCalls(this, endpoint);
        }

        @Override
        public void close() {
            S3Client g;
            S3Client u;
            synchronized (this) {
                closed = true;
                g = gets;
                u = uploads;
            }
            threads.shutdownNow();
            try {
                if (g != null) {
                    g.close();
                }
            } finally {
                if (u != null) {
                    u.close();
                }
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

    /**
     * Whether uploads go through this view: when the set has an upload client and this view's
     * endpoint is {@code http://} (else they go through the async client: {@link SegmentHttpClient}
     * speaks no TLS).
     */
    boolean uploads() {
        URI to = endpoint != null ? endpoint : shared.ownEndpoint;
        return shared.uploadMaker != null && to != null && "http".equalsIgnoreCase(to.getScheme());
    }

    /** An UploadPart of {@code req} with all of {@code body}; completes with the SDK's answer or failure as it is. */
    CompletableFuture<UploadPartResponse> uploadPart(UploadPartRequest.Builder req, MemorySegment body) {
        return upload(body, shared.partsFromFiles, (client, config, b) -> client.uploadPart(req.overrideConfiguration(config).build(), b));
    }

    /** A PutObject of {@code req} with all of {@code body}; completes with the SDK's answer or failure as it is. */
    CompletableFuture<PutObjectResponse> putObject(PutObjectRequest.Builder req, MemorySegment body) {
        return upload(body, false, (client, config, b) -> client.putObject(req.overrideConfiguration(config).build(), b));
    }

    /** An upload's request, given the client, this view's request configuration and the body. */
    @FunctionalInterface
    private interface Upload<T> {
        T send(S3Client client, AwsRequestOverrideConfiguration config, RequestBody body);
    }

    /**
     * Runs {@code upload} with {@code body} as a {@link SegmentHttpClient.SegmentBody}, sent uncopied
     * when {@code fromFile} (parts: the completion checks each part's ETag, so a part's body that a
     * closed connection still delivered after its buffer was reused cannot become the object's;
     * a PutObject's would be the object); a cancel aborts it.
     */
    private <T> CompletableFuture<T> upload(MemorySegment body, boolean fromFile, Upload<T> upload) {
        SegmentHttpClient.SegmentBody b = new SegmentHttpClient.SegmentBody(body, fromFile);
        RequestBody rb = RequestBody.fromContentProvider(b, body.byteSize(), "application/octet-stream");
        CompletableFuture<T> out = submit(Shared::uploads, (client, config) -> b.send(() -> upload.send(client, config, rb)));
        out.whenComplete((r, e) -> {
            if (out.isCancelled()) {
                b.abort();
            }
        });
        return out;
    }

    /** A request of the sync client, given the client and this view's request configuration. */
    @FunctionalInterface
    private interface Work<T> {
        T run(S3Client client, AwsRequestOverrideConfiguration config) throws IOException;
    }

    /** Runs {@code work} with the GET client: see {@link #submit(Function, Work)}. */
    private <T> CompletableFuture<T> submit(Work<T> work) {
        return submit(Shared::gets, work);
    }

    /**
     * Runs {@code work} on one of the set's threads with the client {@code which} gives (made first if
     * need be); completes with its result or its failure as it is (the transport classifies it).
     */
    private <T> CompletableFuture<T> submit(Function<Shared, S3Client> which, Work<T> work) {
        CompletableFuture<T> out = new CompletableFuture<>();
        try {
            shared.threads.execute(() -> {
                try {
                    S3Client client = which.apply(shared);
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
