package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.s3.spi.S3Errors;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.zip.CRC32;

/**
 * An in-memory {@link S3Transport} for the driver's tests (and other modules' through the test-jar):
 * the endpoints of one {@link Cluster} share its buckets, objects and uploads, as gateways of one
 * store do. Calls run on other threads, after an optional delay; failures are injected per endpoint
 * with {@link #failWith}: a {@link ConnectException} or an {@link S3Error} of status 5xx is the
 * endpoint's fault, any other {@link S3Error} the request's. Like S3, it checks a part's CRC32C when
 * one is sent (400 {@code BadDigest}), the object's full-object CRC32C at completion, and reports it
 * on HEAD; {@link #damageWith} flips a byte of chosen parts on their way in.
 */
public final class FakeTransport implements S3Transport {

    /** An S3 error answer. */
    public static final class S3Error extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** Its HTTP status. */
        public final int status;
        /** Its S3 error code. */
        public final String code;

        /** An answer with this status and S3 error code. */
        public S3Error(int status, String code) {
            super("HTTP " + status + " " + code);
            this.status = status;
            this.code = code;
        }
    }

    /** What the store holds: shared by all the endpoints of a cluster. */
    public static final class Cluster implements S3TransportFactory {
        private static final AtomicInteger CLUSTERS = new AtomicInteger();
        final Set<String> buckets = ConcurrentHashMap.newKeySet();
        final Map<String, StoredObject> objects = new ConcurrentHashMap<>();
        final Map<String, Upload> uploads = new ConcurrentHashMap<>();
        final Map<String, FakeTransport> transports = new ConcurrentHashMap<>();
        private final boolean keepBytes;
        private final String id = "c" + CLUSTERS.incrementAndGet();
        private final AtomicInteger uploadIds = new AtomicInteger();
        private final ExecutorService executor = Executors.newCachedThreadPool(
                Thread.ofPlatform().daemon().name("fake-s3-", 0).factory());
        volatile long delayMillis;
        /** When not null, the object's CRC32C the store reports (completion, HEAD) instead of its own. */
        volatile String reportedCrc32c;

        /**
         * An empty store with {@code bucket}.
         *
         * @param keepBytes keep objects' bytes (else only their size and CRC32, for big tests)
         */
        public Cluster(String bucket, boolean keepBytes) {
            buckets.add(bucket);
            this.keepBytes = keepBytes;
        }

        /** {@code n} endpoints of this cluster, unique to it (the process's endpoint health is per URI). */
        public List<java.net.URI> endpoints(int n) {
            List<java.net.URI> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(java.net.URI.create("http://" + id + "-gw" + i + ".fake:9000"));
            }
            return out;
        }

        /** Each call waits this long before it runs (so that requests overlap). */
        public Cluster delayMillis(long ms) {
            this.delayMillis = ms;
            return this;
        }

        @Override
        public String backend() {
            return "fake";
        }

        @Override
        public S3Transport open(S3Settings settings) {
            String e = settings.endpointDescription();
            return transports.computeIfAbsent(e, k -> new FakeTransport(this, k));
        }

        /** The transport of {@code endpoint}: the one a pool opened or will open on its first request. */
        public FakeTransport transport(java.net.URI endpoint) {
            return transports.computeIfAbsent(endpoint.toString(), k -> new FakeTransport(this, k));
        }

        /** The stored object's bytes, or null. */
        public byte[] bytes(String key) {
            StoredObject o = objects.get(key);
            return o == null ? null : o.bytes;
        }

        /** The stored object's size, or -1. */
        public long size(String key) {
            StoredObject o = objects.get(key);
            return o == null ? -1 : o.size;
        }

        /** The object's full-object CRC32C as the store keeps it, or null. */
        public String crc32c(String key) {
            StoredObject o = objects.get(key);
            return o == null ? null : o.crc32c;
        }

        /** Flips the first byte of the stored object (damage at rest); its checksum stays. */
        public void damage(String key) {
            objects.computeIfPresent(key, (k, o) -> {
                byte[] b = o.bytes().clone();
                b[0] ^= 1;
                return new StoredObject(o.size(), b, o.crc(), o.etag(), o.metadata(), o.crc32c());
            });
        }

        /** From now on the store reports {@code crc32c} as every object's CRC32C (null: its own). */
        public void reportCrc32c(String crc32c) {
            this.reportedCrc32c = crc32c;
        }

        /** Ids of the open uploads of {@code key}. */
        public List<String> uploadsOf(String key) {
            return uploads.values().stream().filter(u -> u.key.equals(key)).map(u -> u.id).sorted().toList();
        }
    }

    record StoredObject(long size, byte[] bytes, long crc, String etag, Map<String, String> metadata, String crc32c) {}

    static final class Upload {
        final String id;
        final String key;
        final Map<String, String> metadata;
        final boolean crc32c;
        final Map<Integer, StoredObject> parts = new ConcurrentHashMap<>();

        Upload(String id, String key, Map<String, String> metadata, boolean crc32c) {
            this.id = id;
            this.key = key;
            this.metadata = metadata;
            this.crc32c = crc32c;
        }
    }

    private final Cluster cluster;
    private final String endpoint;
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final AtomicLong partBytes = new AtomicLong();
    private volatile BiFunction<String, Integer, RuntimeException> failure = (op, n) -> null;
    private volatile BiFunction<String, Integer, RuntimeException> lostAnswer = (op, n) -> null;
    private volatile java.util.function.BiPredicate<Integer, Integer> damage = (part, n) -> false;
    private volatile boolean closed;

    private FakeTransport(Cluster cluster, String endpoint) {
        this.cluster = cluster;
        this.endpoint = endpoint;
    }

    /**
     * Failures from now on: {@code f} is given each call's operation ({@code UploadPart}, ...) and
     * the number of that operation's calls so far on this endpoint (1 for the first), and returns
     * the exception to fail it with, or null to let it run.
     */
    public void failWith(BiFunction<String, Integer, RuntimeException> f) {
        this.failure = f;
    }

    /**
     * Answers lost from now on: the call runs (the store changes), then fails with the exception
     * {@code f} returns (null: the answer arrives), as when a connection breaks after the request.
     */
    public void loseAnswerWith(BiFunction<String, Integer, RuntimeException> f) {
        this.lostAnswer = f;
    }

    /**
     * Damage from now on: a part for which {@code d} (given its number and the count of UploadPart
     * calls on this endpoint so far, 1 for the first) is true arrives with its first byte flipped.
     */
    public void damageWith(java.util.function.BiPredicate<Integer, Integer> d) {
        this.damage = d;
    }

    /** Every call fails as a refused connection (a dead gateway). */
    public void kill() {
        failWith((op, n) -> new java.io.UncheckedIOException(new ConnectException("Connection refused (fake "
                + endpoint + " is down)")));
    }

    /** Every call runs again. */
    public void revive() {
        failWith((op, n) -> null);
    }

    /** Calls of {@code operation} that reached this endpoint, failed or not. */
    public int calls(String operation) {
        AtomicInteger c = calls.get(operation);
        return c == null ? 0 : c.get();
    }

    /** Bytes of the parts this endpoint stored. */
    public long partBytes() {
        return partBytes.get();
    }

    private <T> CompletableFuture<T> run(String op, java.util.concurrent.Callable<T> body) {
        int n = calls.computeIfAbsent(op, k -> new AtomicInteger()).incrementAndGet();
        RuntimeException fail = failure.apply(op, n);
        RuntimeException lost = lostAnswer.apply(op, n);
        return CompletableFuture.supplyAsync(() -> {
            if (closed) {
                throw new IllegalStateException("transport of " + endpoint + " closed");
            }
            long d = cluster.delayMillis;
            if (d > 0) {
                try {
                    Thread.sleep(d);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (fail != null) {
                throw fail;
            }
            try {
                T result = body.call();
                if (lost != null) {
                    throw lost;
                }
                return result;
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, cluster.executor);
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    private void bucket(String b) {
        if (!cluster.buckets.contains(b)) {
            throw new S3Error(404, "NoSuchBucket");
        }
    }

    @Override
    public CompletableFuture<Void> headBucket(String bucket) {
        return run("HeadBucket", () -> {
            bucket(bucket);
            return null;
        });
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata) {
        return createMultipartUpload(where, metadata, false);
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata,
                                                           boolean crc32c) {
        return run("CreateMultipartUpload", () -> {
            bucket(where.bucket());
            String id = "upload-" + cluster.uploadIds.incrementAndGet();
            cluster.uploads.put(id, new Upload(id, where.key(), Map.copyOf(metadata), crc32c));
            return id;
        });
    }

    @Override
    public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                                                      MemorySegment body) {
        return uploadPart(where, uploadId, partNumber, body, null);
    }

    @Override
    public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                                                      MemorySegment body, String crc32c) {
        int call = calls("UploadPart") + 1;
        boolean damaged = damage.test(partNumber, call);
        return run("UploadPart", () -> {
            Upload u = cluster.uploads.get(uploadId);
            if (u == null) {
                throw new S3Error(404, "NoSuchUpload");
            }
            byte[] b = body.toArray(ValueLayout.JAVA_BYTE);
            if (damaged) {
                b[0] ^= 1;
            }
            String got = Crc32c.base64(Crc32c.of(MemorySegment.ofArray(b)));
            if (crc32c != null && !crc32c.equals(got)) {
                throw new S3Error(400, "BadDigest");
            }
            if (u.crc32c && crc32c == null) {
                throw new S3Error(400, "InvalidRequest"); // S3: the upload's checksum type mismatches
            }
            StoredObject part = store(b, got);
            u.parts.put(partNumber, part);
            partBytes.addAndGet(part.size());
            return new UploadedPart(partNumber, part.etag(), crc32c);
        });
    }

    private StoredObject store(MemorySegment body) {
        byte[] b = body.toArray(ValueLayout.JAVA_BYTE);
        return store(b, Crc32c.base64(Crc32c.of(MemorySegment.ofArray(b))));
    }

    private StoredObject store(byte[] b, String crc32c) {
        CRC32 crc = new CRC32();
        crc.update(b);
        String etag = "\"" + Long.toHexString(crc.getValue()) + "-" + b.length + "\"";
        return new StoredObject(b.length, cluster.keepBytes ? b : null, crc.getValue(), etag, Map.of(), crc32c);
    }

    @Override
    public CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId, List<UploadedPart> parts) {
        return completeMultipartUpload(where, uploadId, parts, null).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<String> completeMultipartUpload(S3Location where, String uploadId,
                                                             List<UploadedPart> parts, String objectCrc32c) {
        return run("CompleteMultipartUpload", () -> {
            Upload u = cluster.uploads.get(uploadId);
            if (u == null) {
                throw new S3Error(404, "NoSuchUpload");
            }
            TreeMap<Integer, StoredObject> sorted = new TreeMap<>(u.parts);
            if (parts.size() != sorted.size()) {
                throw new S3Error(400, "InvalidPart");
            }
            long size = 0;
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            CRC32 crc = new CRC32();
            int full = 0;
            for (UploadedPart p : parts) {
                StoredObject s = sorted.get(p.number());
                if (s == null || !s.etag().equals(p.etag())) {
                    throw new S3Error(400, "InvalidPart");
                }
                if (u.crc32c && p.checksum() == null) {
                    throw new S3Error(400, "InvalidRequest"); // S3: the part's checksum is missing
                }
                int c = Crc32c.parse(s.crc32c());
                full = size == 0 ? c : Crc32c.combine(full, c, s.size());
                size += s.size();
                if (s.bytes() != null) {
                    all.write(s.bytes());
                    crc.update(s.bytes());
                }
            }
            String fullCrc = Crc32c.base64(full);
            if (u.crc32c && objectCrc32c != null && !objectCrc32c.equals(fullCrc)) {
                throw new S3Error(400, "BadDigest");
            }
            String etag = "\"" + HexFormat.of().toHexDigits(uploadId.hashCode()) + "-" + parts.size() + "\"";
            cluster.objects.put(u.key, new StoredObject(size, cluster.keepBytes ? all.toByteArray() : null,
                    crc.getValue(), etag, u.metadata, u.crc32c ? fullCrc : null));
            cluster.uploads.remove(uploadId);
            return u.crc32c ? reported(fullCrc) : null;
        });
    }

    private String reported(String own) {
        String r = cluster.reportedCrc32c;
        return r != null ? r : own;
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId) {
        return run("AbortMultipartUpload", () -> {
            cluster.uploads.remove(uploadId);
            return null;
        });
    }

    @Override
    public CompletableFuture<List<String>> uploadsOf(S3Location where) {
        return run("ListMultipartUploads", () -> cluster.uploads.entrySet().stream()
                .filter(e -> e.getValue().key.equals(where.key())).map(Map.Entry::getKey).toList());
    }

    @Override
    public CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body) {
        return run("PutObject", () -> {
            bucket(where.bucket());
            StoredObject s = store(body);
            cluster.objects.put(where.key(), new StoredObject(s.size(), s.bytes(), s.crc(), s.etag(),
                    Map.copyOf(metadata), null));
            return null;
        });
    }

    @Override
    public CompletableFuture<Optional<ObjectHead>> headObject(S3Location where) {
        return run("HeadObject", () -> {
            bucket(where.bucket());
            StoredObject o = cluster.objects.get(where.key());
            return o == null ? Optional.empty() : Optional.of(new ObjectHead(o.size(), o.etag(), o.metadata(),
                    o.crc32c() == null ? null : reported(o.crc32c())));
        });
    }

    @Override
    public CompletableFuture<Void> deleteObject(S3Location where) {
        return run("DeleteObject", () -> {
            cluster.objects.remove(where.key());
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag) {
        return run("GetObject", () -> {
            StoredObject o = cluster.objects.get(where.key());
            if (o == null) {
                throw new S3Error(404, "NoSuchKey");
            }
            if (etag != null && !etag.equals(o.etag())) {
                throw new S3Error(412, "PreconditionFailed");
            }
            if (o.bytes() == null) {
                throw new IllegalStateException("the fake cluster keeps no bytes");
            }
            long n = Math.max(0, Math.min(dst.byteSize(), o.size() - offset));
            MemorySegment.copy(MemorySegment.ofArray(o.bytes()), offset, dst, 0, n);
            return n;
        });
    }

    @Override
    public FailureKind classify(Throwable failure) {
        Throwable t = Requests.unwrap(failure);
        if (t instanceof S3Error e) {
            if (S3Errors.preconditionFailed(e.status)) {
                return FailureKind.CHANGED;
            }
            if (S3Errors.corrupted(e.status, e.code)) {
                return FailureKind.CORRUPTED;
            }
            return e.status >= 500 ? FailureKind.ENDPOINT : FailureKind.REQUEST;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IOException) {
                return FailureKind.ENDPOINT;
            }
        }
        return FailureKind.REQUEST;
    }

    @Override
    public IOException describe(String operation, S3Location where, Throwable failure) {
        Throwable t = Requests.unwrap(failure);
        Throwable root = t instanceof java.io.UncheckedIOException u ? u.getCause() : t;
        return new IOException(String.format("%s of %s at %s failed: %s", operation, where, endpoint,
                root.getMessage()), t);
    }

    @Override
    public void close() {
        closed = true;
    }
}
