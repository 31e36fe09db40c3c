package io.dgen4j.minio;

import io.dgen4j.s3.MetadataCodec;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageReader;
import io.minio.GetObjectArgs;
import io.minio.GetObjectResponse;
import io.minio.HeadBucketArgs;
import io.minio.MinioAsyncClient;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * Reads one object: a HEAD ({@code statObject}) for its size, ETag and metadata, then ranged GETs
 * (offset and length, conditional on that ETag so that a replaced object fails instead of mixing
 * versions) read into the caller's segment. MinIO hands the body out as an {@code InputStream}, so
 * it passes through a per-thread 1 MiB array on its way to the segment.
 */
final class MinioReader implements StorageReader {
    private static final int STAGE = 1 << 20;
    private static final ThreadLocal<byte[]> STAGING = ThreadLocal.withInitial(() -> new byte[STAGE]);

    private final MinioAsyncClient client;
    private final S3Location where;
    private final S3Settings settings;
    private final long size;
    private final String etag;
    private final Map<String, Object> metadata;

    private MinioReader(MinioAsyncClient client, S3Location where, S3Settings settings, long size, String etag,
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
    static MinioReader open(MinioAsyncClient client, S3Location where, S3Settings s) throws IOException {
        StatObjectResponse h = stat(client, where, s);
        return new MinioReader(client, where, s, h.size(), h.etag() == null || h.etag().isEmpty() ? null : h.etag(),
                MetadataCodec.decode(userMetadata(h), where.toString()));
    }

    /** The user metadata as S3 names it (lower-case, without {@code x-amz-meta-}), first values. */
    static Map<String, String> userMetadata(StatObjectResponse h) {
        Map<String, String> m = new HashMap<>();
        for (String name : h.userMetadata().names()) {
            m.put(name, h.userMetadata().getFirst(name));
        }
        return m;
    }

    /** Whether there is an object at the key (a missing bucket is an error). */
    static boolean exists(MinioAsyncClient client, S3Location where, S3Settings s) throws IOException {
        try {
            stat(client, where, s);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private static StatObjectResponse stat(MinioAsyncClient client, S3Location where, S3Settings s)
            throws IOException {
        io.dgen4j.s3.EndpointProbe.check(s, "HeadObject of " + where);
        try {
            return client.statObject(StatObjectArgs.builder().bucket(where.bucket()).object(where.key()).build())
                    .join();
        } catch (CompletionException e) {
            if (!MinioErrors.notFound(e)) {
                throw MinioErrors.io("HeadObject", where, s, e);
            }
        }
        // A HEAD's 404 has no body: ask the bucket whether it is the bucket or the key that is missing.
        MinioStorageProvider.await(client.headBucket(HeadBucketArgs.builder().bucket(where.bucket()).build()),
                "HeadBucket", where, s);
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
        String range = "bytes=" + offset + "-" + (offset + len - 1);
        GetObjectArgs.Builder req = GetObjectArgs.builder().bucket(where.bucket()).object(where.key()).offset(offset)
                .length(len);
        if (etag != null) {
            req.matchETag(etag);
        }
        String operation = "GetObject " + range;
        long n = 0;
        try (GetObjectResponse in = MinioStorageProvider.await(client.getObject(req.build()), operation, where,
                settings)) {
            byte[] stage = STAGING.get();
            while (n < len) {
                int r = in.read(stage, 0, (int) Math.min(stage.length, len - n));
                if (r < 0) {
                    break;
                }
                MemorySegment.copy(stage, 0, dst, ValueLayout.JAVA_BYTE, n, r);
                n += r;
            }
            if (n == len && in.read() >= 0) {
                throw new IOException(String.format("%s of %s at %s returned more bytes than asked for", operation,
                        where, settings.endpointDescription()));
            }
        } catch (IOException e) {
            throw MinioErrors.io(operation, where, settings, e);
        }
        if (n != len) {
            throw new IOException(String.format("%s of %s at %s returned %d bytes, %d expected", operation, where,
                    settings.endpointDescription(), n, len));
        }
        return n;
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
        return String.format("minio %s at %s (ranged GETs)", where, settings.endpointDescription());
    }

    @Override
    public void close() {
        // the client is shared and kept by the provider
    }
}
