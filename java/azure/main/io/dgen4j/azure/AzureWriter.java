package io.dgen4j.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes one block blob: each {@link #write} stages one block from the segment itself (no copy on the
 * heap: the SDK sends a {@link java.nio.ByteBuffer} view of the native segment, which Netty writes to
 * the socket), several at once from the pipeline's threads; {@link #commit()} commits the block list in
 * offset order with the metadata, which replaces the blob atomically, and checks it with a properties
 * call. Before the commit the previous blob is untouched; the staged blocks are invisible and there is no
 * abort: Azure drops them when the blob is next committed or deleted, or after 7 days.
 */
final class AzureWriter implements StorageWriter {
    /** The blob metadata entry holding the checkpoint's metadata as ASCII JSON (Azure names are C# identifiers). */
    static final String METADATA_KEY = "dgen4j_manifest";
    /** Azure's limit on a blob's metadata, names and values: 8 KiB. */
    static final int MAX_METADATA_BYTES = 8192;

    private final AzureSettings settings;
    private final AzureLocation where;
    private final AzureEndpoints endpoints;
    private final WriteRequest request;
    private final String json;
    /** A save's own prefix of block ids, so that two saves' blocks never mix; every id has the same length. */
    private final String idPrefix = String.format(Locale.ROOT, "dgen4j-%08x-", ThreadLocalRandom.current().nextInt());
    private final ConcurrentSkipListMap<Long, Long> staged = new ConcurrentSkipListMap<>();
    private final Map<Long, String> ids = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger blocks = new AtomicInteger();
    private volatile boolean committed;
    private volatile boolean failed;
    private volatile OpenTimes openTimes = OpenTimes.NONE;

    AzureWriter(AzureSettings settings, AzureLocation where, AzureEndpoints endpoints, WriteRequest request) {
        this.settings = settings;
        this.where = where;
        this.endpoints = endpoints;
        this.request = request;
        this.json = JsonWriter.ASCII_LINE.write(request.metadata());
        int bytes = METADATA_KEY.length() + json.getBytes(StandardCharsets.US_ASCII).length;
        if (bytes > MAX_METADATA_BYTES) {
            throw new IllegalArgumentException(String.format("the metadata of %s is %d bytes as blob metadata: Azure "
                    + "allows %d", where, bytes, MAX_METADATA_BYTES));
        }
    }

    /**
     * Fails before any block is staged when the container is missing or the credentials are refused;
     * returns whether the request was answered (a SAS token's 403 here is left to the first block).
     */
    boolean checkContainer() throws IOException {
        try {
            endpoints.call("save to", true, 0, b -> b.getContainerAsyncClient().getProperties().block());
            return true;
        } catch (IOException e) {
            if (!settings.usesSharedKey() && forbidden(e.getCause())) {
                return true; // a SAS token scoped to blobs may not read the container: the first block will tell
            }
            throw e;
        }
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
    public String commitLabel() {
        return "commit";
    }

    @Override
    public String commitWhat() {
        return "Put Block List with the metadata, then a properties call that checks the blob's size and metadata";
    }

    private static boolean forbidden(Throwable e) {
        return reactor.core.Exceptions.unwrap(e) instanceof BlobStorageException b && b.getStatusCode() == 403;
    }

    @Override
    public void write(long offset, MemorySegment data) throws IOException {
        long len = data.byteSize();
        if (len > AzureStorageProvider.MAX_BLOCK_BYTES) {
            throw new IOException(String.format("a write of %s to %s is over Azure's largest block, %s",
                    ByteSize.format(len), where, ByteSize.format(AzureStorageProvider.MAX_BLOCK_BYTES)));
        }
        if (staged.putIfAbsent(offset, len) == null && blocks.incrementAndGet() > AzureStorageProvider.MAX_BLOCKS) {
            throw new IOException(String.format("%s needs more than %d blocks: Azure allows %d per blob", where,
                    AzureStorageProvider.MAX_BLOCKS, AzureStorageProvider.MAX_BLOCKS));
        }
        String id = ids.computeIfAbsent(offset, this::blockId);
        try {
            // a view of the native segment: BinaryData keeps it (no copy) and replays it on a retry, and on
            // another endpoint when this one fails (the segment is the caller's until write returns)
            endpoints.call(String.format(Locale.ROOT, "stage block %d (bytes %d-%d) of", offset
                    / Math.max(1, request.chunkSize() == 0 ? len : request.chunkSize()), offset, offset + len), true,
                    len, b -> b.stageBlock(id, BinaryData.fromByteBuffer(data.asByteBuffer())).block());
        } catch (IOException e) {
            failed = true;
            throw e;
        }
    }

    private String blockId(long offset) {
        String raw = idPrefix + String.format(Locale.ROOT, "%016x", offset);
        return Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public void commit() throws IOException {
        List<String> list = new ArrayList<>(staged.size());
        long next = 0;
        for (var e : staged.entrySet()) {
            if (e.getKey() != next) {
                throw new IOException(String.format("%s: no block covers bytes from %d: nothing committed", where, next));
            }
            list.add(ids.get(e.getKey()));
            next += e.getValue();
        }
        if (next != request.size()) {
            throw new IOException(String.format("%s: blocks cover %d of %d bytes: nothing committed", where, next,
                    request.size()));
        }
        try {
            // committing the same list again (after a commit whose answer was lost) gives the same blob
            endpoints.call("commit the block list of", true, 0, b -> b.commitBlockListWithResponse(
                    new BlockBlobCommitBlockListOptions(list).setMetadata(Map.of(METADATA_KEY, json))).block());
        } catch (IOException e) {
            failed = true;
            throw e;
        }
        committed = true;
        // an endpoint that takes writes: a read-only secondary may not have the new blob yet
        BlobProperties p = endpoints.call("check the committed blob", true, 0, b -> b.getProperties().block());
        if (p.getBlobSize() != request.size()) {
            throw new IOException(String.format("%s was committed with %d bytes but is %d bytes now", where,
                    request.size(), p.getBlobSize()));
        }
        String back = p.getMetadata() == null ? null : p.getMetadata().entrySet().stream()
                .filter(m -> m.getKey().equalsIgnoreCase(METADATA_KEY)).map(Map.Entry::getValue).findFirst()
                .orElse(null);
        if (!json.equals(back)) {
            throw new IOException(String.format("%s was committed but its %s metadata reads back %s", where,
                    METADATA_KEY, back == null ? "missing" : "different"));
        }
    }

    /** Nothing to send: Azure has no abort of staged blocks (they are invisible and expire; see {@link #state()}). */
    @Override
    public void abort() {
    }

    @Override
    public String state() {
        if (committed) {
            return "the new checkpoint is in place at " + where;
        }
        int n = staged.size();
        return String.format("the previous blob at %s is untouched (or there was none); the %d block%s staged by this "
                + "save %s not visible and go%s away when that blob is next committed or deleted, or after 7 days "
                + "(Azure's expiry of uncommitted blocks)", where, n, n == 1 ? "" : "s", n == 1 ? "is" : "are",
                n == 1 ? "es" : "");
    }

    @Override
    public List<EndpointStatistics> endpointStatistics() {
        return endpoints.statistics();
    }

    @Override
    public boolean directIo() {
        return false;
    }

    @Override
    public String description() {
        return String.format("azure %s (block blob, blocks of %s, account %s at %s)", where,
                request.chunkSize() == 0 ? "any size" : ByteSize.format(request.chunkSize()), settings.account(),
                endpoints.description());
    }

    @Override
    public void close() {
        if (!committed && !failed) {
            abort();
        }
    }
}
