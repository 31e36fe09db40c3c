package io.dgen4j.azure;

import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DownloadRetryOptions;
import com.azure.storage.blob.specialized.BlockBlobAsyncClient;
import io.dgen4j.json.JsonReader;
import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.StorageReader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a committed block blob: each {@link #read} downloads one range, under the ETag the blob had
 * when it was opened (a blob replaced during the load fails it), copying Netty's buffers into the
 * pool segment as they arrive: one copy per byte, no heap buffer.
 */
final class AzureReader implements StorageReader {
    private final AzureSettings settings;
    private final AzureLocation where;
    private final AzureEndpoints endpoints;
    private final long size;
    private final String etag;
    private final Map<String, Object> metadata;
    private volatile OpenTimes openTimes = OpenTimes.NONE;

    private AzureReader(AzureLocation where, AzureEndpoints endpoints, long size, String etag,
                        Map<String, Object> metadata) {
        this.settings = endpoints.settings();
        this.where = where;
        this.endpoints = endpoints;
        this.size = size;
        this.etag = etag;
        this.metadata = metadata;
    }

    /**
     * Opens {@code where} with one properties call (size, ETag, metadata).
     *
     * @throws java.nio.file.NoSuchFileException when there is no such blob
     */
    static AzureReader open(AzureLocation where, AzureEndpoints endpoints) throws IOException {
        BlobProperties p = endpoints.call("load", false, 0, b -> b.getProperties().block());
        return new AzureReader(where, endpoints, p.getBlobSize(), p.getETag(), decode(p.getMetadata(), where));
    }

    static Map<String, Object> decode(Map<String, String> blobMetadata, AzureLocation where) throws IOException {
        String json = null;
        if (blobMetadata != null) {
            for (var e : blobMetadata.entrySet()) {
                if (e.getKey().equalsIgnoreCase(AzureWriter.METADATA_KEY)) {
                    json = e.getValue();
                }
            }
        }
        if (json == null) {
            return Map.of();
        }
        Object root;
        try {
            root = JsonReader.parse(json.getBytes(StandardCharsets.UTF_8));
        } catch (JsonReader.SyntaxException e) {
            throw new IOException(String.format("the %s metadata of %s is not valid JSON: %s", AzureWriter.METADATA_KEY,
                    where, e.getMessage()), e);
        }
        if (!(root instanceof Map<?, ?> fields)) {
            throw new IOException(String.format("the %s metadata of %s is not a JSON object", AzureWriter.METADATA_KEY,
                    where));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        fields.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public long read(long offset, MemorySegment dst) throws IOException {
        long len = Math.min(dst.byteSize(), size - offset);
        if (len <= 0) {
            return 0;
        }
        long got;
        try {
            got = endpoints.call(String.format("read bytes %d-%d of", offset, offset + len), false, len,
                    b -> download(b, offset, len, dst));
        } catch (IOException e) {
            if (e.getCause() instanceof BlobStorageException b && b.getStatusCode() == 412) {
                throw new IOException(String.format("%s changed during the load (its ETag is no longer %s)", where,
                        etag), b);
            }
            throw e;
        }
        if (got != len) {
            throw new IOException(String.format("read bytes %d-%d of %s: got %d bytes", offset, offset + len, where,
                    got));
        }
        return len;
    }

    /** Downloads {@code len} bytes from {@code offset} into {@code dst} from its start; returns the bytes that came. */
    private long download(BlockBlobAsyncClient blob, long offset, long len, MemorySegment dst) {
        long[] at = {0};
        blob.downloadStreamWithResponse(new BlobRange(offset, len), new DownloadRetryOptions().setMaxRetryRequests(2),
                        new BlobRequestConditions().setIfMatch(etag), false)
                .flatMapMany(r -> r.getValue())
                .doOnNext(b -> {
                    // the buffer is Netty's, valid only inside onNext (disableBufferCopy): copied here, once
                    int n = b.remaining();
                    if (at[0] + n > len) {
                        throw new IllegalStateException(String.format("the server sent more than the %d bytes asked",
                                len));
                    }
                    MemorySegment.copy(MemorySegment.ofBuffer(b), 0, dst, at[0], n);
                    at[0] += n;
                }).blockLast();
        return at[0];
    }

    /** Notes what its open took (the provider times it). */
    void timed(OpenTimes times) {
        this.openTimes = times;
    }

    @Override
    public OpenTimes openTimes() {
        return openTimes;
    }

    @Override
    public Map<String, Object> metadata() {
        return metadata;
    }

    @Override
    public java.util.List<io.dgen4j.storage.EndpointStatistics> endpointStatistics() {
        return endpoints.statistics();
    }

    @Override
    public boolean directIo() {
        return false;
    }

    @Override
    public String description() {
        return String.format("azure %s (block blob, account %s at %s)", where, settings.account(),
                endpoints.description());
    }

    @Override
    public void close() {
    }
}
