package io.dgen4j.crt;

import io.dgen4j.s3.MetadataCodec;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageReader;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Reads one S3 object with ranged GETs into the caller's segments, several at once. The size, the
 * metadata and the ETag come from one HEAD when the reader opens; every GET names that ETag
 * (If-Match), so an object replaced during the load fails the read instead of mixing two objects.
 */
final class CrtReader implements StorageReader {
    private final S3AsyncClient client;
    private final S3Location location;
    private final String object;
    private final S3Settings settings;
    private final long size;
    private final String etag;
    private final Map<String, Object> metadata;

    private CrtReader(S3AsyncClient client, S3Location location, S3Settings settings, HeadObjectResponse head)
            throws IOException {
        this.client = client;
        this.location = location;
        this.object = "s3://" + location.bucket() + "/" + location.key();
        this.settings = settings;
        this.size = head.contentLength();
        this.etag = head.eTag();
        this.metadata = MetadataCodec.decode(head.metadata(), object);
    }

    /**
     * HEADs the object. Takes ownership of {@code client}.
     *
     * @throws NoSuchFileException when there is no such object (or no such bucket)
     */
    static CrtReader open(S3AsyncClient client, S3Location location, S3Settings settings) throws IOException {
        try {
            String object = "s3://" + location.bucket() + "/" + location.key();
            HeadObjectResponse head;
            try {
                head = client.headObject(r -> r.bucket(location.bucket()).key(location.key())).get();
            } catch (ExecutionException e) {
                if (CrtErrors.notFound(e)) {
                    // A HEAD's 404 has no body: ask the bucket, to say which is missing.
                    CrtStorageProvider.checkBucket(client, location, settings, object);
                    throw new NoSuchFileException(object, null, "no such object in bucket " + location.bucket()
                            + " at " + settings.endpointDescription());
                }
                throw CrtErrors.describe("HeadObject", object, settings, e);
            }
            return new CrtReader(client, location, settings, head);
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("HEAD of s3://" + location.bucket() + "/" + location.key()
                    + " interrupted");
        } catch (IOException | RuntimeException | Error e) {
            client.close();
            throw e;
        }
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public long read(long offset, MemorySegment dst) throws IOException {
        if (offset < 0 || offset > size) {
            throw new IllegalArgumentException(String.format("offset %d is outside the %d bytes of %s", offset, size,
                    object));
        }
        long len = Math.min(dst.byteSize(), size - offset);
        if (len == 0) {
            return 0;
        }
        String range = String.format("bytes %d..%d of %s", offset, offset + len, object);
        SegmentSink sink = new SegmentSink();
        CompletableFuture<Void> f = client.getObject(r -> r.bucket(location.bucket()).key(location.key())
                .range("bytes=" + offset + "-" + (offset + len - 1)).ifMatch(etag), sink);
        long got;
        try {
            got = sink.drainInto(dst.asSlice(0, len), f, range);
        } catch (SegmentSink.GetFailed e) {
            if (CrtErrors.status(e.getCause()) == 412) {
                throw new IOException(String.format("%s was replaced while it was read (its ETag is no longer %s)",
                        object, etag), CrtErrors.unwrap(e.getCause()));
            }
            throw CrtErrors.describe("GetObject (" + range + ")", object, settings, e.getCause());
        }
        if (got != len) {
            throw new IOException(String.format("GET of %s returned %d bytes instead of %d", range, got, len));
        }
        return len;
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
        return String.format("crt %s at %s (ranged GETs, %d bytes)", object, settings.endpointDescription(), size);
    }

    @Override
    public void close() {
        client.close();
    }
}
