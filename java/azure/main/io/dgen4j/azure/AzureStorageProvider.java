package io.dgen4j.azure;

import com.azure.core.http.HttpClient;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.storage.blob.BlobServiceAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.specialized.BlockBlobAsyncClient;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The storage provider of {@code az://container/blob} targets (backend {@code azure}): block blobs in
 * Azure Blob Storage through the Azure SDK for Java. A save stages one block per chunk straight from the
 * pool's segment (several in flight), then commits the block list in offset order with the checkpoint's
 * metadata, which replaces the blob atomically, and checks the committed blob's size and metadata with a
 * properties call. A load reads ranges into pool segments, each under the blob's ETag. Over an endpoint set
 * ({@link AzureSettings#endpoints()}) requests go round robin with failover ({@link AzureEndpoints}).
 *
 * <p>Settings come from {@link StorageOptions} ({@link AzureSettings}) or else from the session's
 * environment ({@link AzureSettings#fromEnvironment}). Each instance is one storage session's: its
 * clients (one per settings) are its own.
 */
public final class AzureStorageProvider implements StorageProvider {
    /** Azure's most blocks in one block blob. */
    public static final int MAX_BLOCKS = 50_000;
    /** Azure's largest block: 4000 MiB. */
    public static final long MAX_BLOCK_BYTES = 4000L << 20;
    /** How long a connection may take to open: a dead endpoint fails a request this fast. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** How long a request may go without the socket moving (no write progress, no response, no bytes read). */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    /** Tries per request (the first and two retries), after 0.25 s then up to 2 s. */
    static final int TRIES = 3;

    private final Map<AzureSettings, BlobServiceAsyncClient> clients = new ConcurrentHashMap<>();
    /** Whether each endpoint (by URI) takes requests, shared by this session's saves and loads. */
    private final Map<String, AzureEndpoints.Health> health = new ConcurrentHashMap<>();
    private volatile Map<String, String> environment = System.getenv();
    private volatile Path workingDirectory = Path.of("").toAbsolutePath();
    private volatile HttpClient http;

    @Override
    public void open(Map<String, String> environment, Path workingDirectory) {
        this.environment = Map.copyOf(environment);
        this.workingDirectory = workingDirectory.toAbsolutePath();
    }

    @Override
    public String name() {
        return "azure";
    }

    @Override
    public Set<String> schemes() {
        return Set.of(AzureLocation.SCHEME);
    }

    /**
     * Refuses, before anything is sent, a save Azure would refuse: a chunk (one block) over 4000 MiB, or
     * more than 50,000 blocks.
     */
    @Override
    public void checkWrite(WriteRequest request) {
        AzureLocation.of(request.target());
        checkBlocks(request.target(), request.size(), request.chunkSize());
    }

    static void checkBlocks(StorageTarget target, long size, long chunk) {
        if (chunk <= 0) {
            return; // writes of any size: each is checked as it comes
        }
        if (chunk > MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException(String.format("chunk size %s is over Azure's largest block, %s: "
                    + "use a smaller --chunk-size for %s", ByteSize.format(chunk), ByteSize.format(MAX_BLOCK_BYTES),
                    target));
        }
        long blocks = (size + chunk - 1) / chunk;
        if (blocks > MAX_BLOCKS) {
            long least = (size + MAX_BLOCKS - 1) / MAX_BLOCKS;
            throw new IllegalArgumentException(String.format("%s in chunks of %s is %d blocks: Azure allows %d per "
                    + "blob; use --chunk-size %s or more", ByteSize.format(size), ByteSize.format(chunk), blocks,
                    MAX_BLOCKS, ByteSize.format(least)));
        }
    }

    @Override
    public StorageWriter openWriter(WriteRequest request) throws IOException {
        checkWrite(request);
        AzureLocation where = AzureLocation.of(request.target());
        AzureSettings s = settings(request.options(), where);
        long t0 = System.nanoTime();
        AzureEndpoints spread = endpoints(s, where);
        AzureWriter w = new AzureWriter(s, where, spread, request);
        long t1 = System.nanoTime();
        boolean sent = w.checkContainer();
        w.timed(new OpenTimes((t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9, sent ? "GetContainerProperties" : ""));
        return w;
    }

    @Override
    public StorageReader openReader(ReadRequest request) throws IOException {
        AzureLocation where = AzureLocation.of(request.target());
        AzureSettings s = settings(request.options(), where);
        long t0 = System.nanoTime();
        AzureEndpoints spread = endpoints(s, where);
        long t1 = System.nanoTime();
        AzureReader r = AzureReader.open(where, spread);
        r.timed(new OpenTimes((t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9, "GetBlobProperties"));
        return r;
    }

    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        AzureLocation where = AzureLocation.of(target);
        AzureSettings s = settings(options, where);
        return endpoints(s, where).call("delete", true, 0, b -> Boolean.TRUE.equals(b.deleteIfExists().block()));
    }

    /** Forgets the clients (their connections are the shared Netty pool's, closed with the process) and health. */
    @Override
    public void close() {
        clients.clear();
        health.clear();
    }

    /**
     * The request's settings, else the session environment's.
     *
     * @throws IOException when no account is configured
     */
    AzureSettings settings(StorageOptions options, AzureLocation where) throws IOException {
        var given = options.get(AzureSettings.class);
        if (given.isPresent()) {
            return given.get();
        }
        return AzureSettings.fromEnvironment(environment, workingDirectory).orElseThrow(() -> new IOException(
                String.format("no Azure account for %s: set %s, or %s with %s or %s (and %s for an emulator), in "
                        + "the environment or a .env file", where, AzureSettings.CONNECTION_STRING,
                        AzureSettings.ACCOUNT, AzureSettings.KEY, AzureSettings.SAS_TOKEN, AzureSettings.ENDPOINT)));
    }

    BlobServiceAsyncClient client(AzureSettings s) {
        return clients.computeIfAbsent(s, this::build);
    }

    private BlockBlobAsyncClient blob(AzureSettings s, AzureLocation where) {
        return client(s).getBlobContainerAsyncClient(where.container()).getBlobAsyncClient(where.blob())
                .getBlockBlobAsyncClient();
    }

    /**
     * The endpoints of {@code s} for one operation on {@code where}: one client per endpoint (sharing this
     * session's HTTP client and connection pool), each endpoint's health this session's.
     */
    AzureEndpoints endpoints(AzureSettings s, AzureLocation where) {
        List<AzureEndpoints.Target> targets = new ArrayList<>();
        if (!s.isEndpointSet()) {
            targets.add(new AzureEndpoints.Target(s.endpoint(), false, health(s.endpoint()), s, blob(s, where)));
        } else {
            for (URI u : s.endpoints()) {
                AzureSettings one = s.withEndpoint(u);
                targets.add(new AzureEndpoints.Target(u, false, health(u), one, blob(one, where)));
            }
            for (URI u : s.secondaries()) {
                AzureSettings one = s.withEndpoint(u);
                targets.add(new AzureEndpoints.Target(u, true, health(u), one, blob(one, where)));
            }
        }
        return new AzureEndpoints(s, where, targets);
    }

    private AzureEndpoints.Health health(URI endpoint) {
        return health.computeIfAbsent(endpoint.toString(), u -> new AzureEndpoints.Health());
    }

    private BlobServiceAsyncClient build(AzureSettings s) {
        // no secondaryHost in the retry options: the SDK's own secondary retries GETs and HEADs alone and swaps
        // the host, not the port; the endpoint set (AzureEndpoints) fails over writes too, to any URL
        BlobServiceClientBuilder b = new BlobServiceClientBuilder().endpoint(s.endpoint().toString())
                .httpClient(http())
                .retryOptions(new RequestRetryOptions(RetryPolicyType.EXPONENTIAL, TRIES, (Duration) null,
                        Duration.ofMillis(250), Duration.ofSeconds(2), null));
        if (s.usesSharedKey()) {
            b.credential(new StorageSharedKeyCredential(s.account(), s.key()));
        } else {
            b.sasToken(s.sasToken());
        }
        return b.buildAsyncClient();
    }

    private HttpClient http() {
        HttpClient h = http;
        if (h == null) {
            synchronized (this) {
                if (http == null) {
                    // disableBufferCopy: a download's buffers are Netty's own, copied once into the pool
                    // segment inside onNext (AzureReader), not first into a heap buffer per packet
                    http = new NettyAsyncHttpClientBuilder().connectTimeout(CONNECT_TIMEOUT)
                            .writeTimeout(IDLE_TIMEOUT).responseTimeout(IDLE_TIMEOUT).readTimeout(IDLE_TIMEOUT)
                            .disableBufferCopy(true).build();
                }
                h = http;
            }
        }
        return h;
    }

    @Override
    public String toString() {
        return "az:// storage provider (Azure SDK for Java)";
    }
}
