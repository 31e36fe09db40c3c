package io.dgen4j.minio;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import io.minio.MinioAsyncClient;
import io.minio.RemoveObjectArgs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The {@code minio} backend: {@code s3://bucket/key} through the MinIO Java client's
 * {@code MinioAsyncClient} on OkHttp. Settings come from the request's {@link S3Settings} (else
 * from the environment and {@code .env}, {@link S3Settings#fromEnvironment}), plus optional
 * {@link MinioOptions}.
 *
 * <p>Priority 3, below {@code aws} (10) and {@code crt} (5): against s3proxy on loopback it was not
 * measured faster than {@code aws} and used more client CPU per GiB (MinIO's client needs one copy
 * per part into a heap array, and OkHttp copies heap bodies again on their way to the socket; see
 * {@link MinioWriter}). Pick it with {@code --backend minio} or {@code DGEN4J_S3_BACKEND=minio}.
 *
 * <p>Clients are created once per settings and kept for the provider's life; their threads are
 * daemons. {@link #close()} releases them.
 */
public final class MinioStorageProvider implements StorageProvider, AutoCloseable {
    /** The backend's name. */
    public static final String NAME = "minio";
    private final MinioClients clients = new MinioClients();

    /** The service loader's constructor. */
    public MinioStorageProvider() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<String> schemes() {
        return Set.of(S3Location.SCHEME);
    }

    @Override
    public int priority() {
        return 3;
    }

    /**
     * Opens a multipart upload after checking that the bucket answers, so a wrong endpoint, bucket or
     * credentials fail here, before any data is generated.
     */
    @Override
    public StorageWriter openWriter(WriteRequest r) throws IOException {
        S3Location where = S3Location.of(r.target());
        S3Settings s = settings(r.options(), where);
        int inFlight = s.maxInFlight().orElse(r.maxInFlight());
        MinioAsyncClient client = clients.get(s, minioOptions(r.options()), Math.max(inFlight, r.maxInFlight()));
        return MinioWriter.open(client, where, s, r, inFlight);
    }

    @Override
    public StorageReader openReader(ReadRequest r) throws IOException {
        S3Location where = S3Location.of(r.target());
        S3Settings s = settings(r.options(), where);
        MinioAsyncClient client = clients.get(s, minioOptions(r.options()), Math.max(s.maxInFlight().orElse(1),
                r.maxInFlight()));
        return MinioReader.open(client, where, s);
    }

    /** HEADs the object (to say whether there was one), then deletes it. */
    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        S3Location where = S3Location.of(target);
        S3Settings s = settings(options, where);
        MinioAsyncClient client = clients.get(s, minioOptions(options), 1);
        boolean existed = MinioReader.exists(client, where, s);
        if (existed) {
            await(client.removeObject(RemoveObjectArgs.builder().bucket(where.bucket()).object(where.key()).build()),
                    "DeleteObject", where, s);
        }
        return existed;
    }

    /** Closes the cached clients. */
    @Override
    public void close() {
        clients.close();
    }

    private static MinioOptions minioOptions(StorageOptions options) {
        return options.get(MinioOptions.class).orElseGet(MinioOptions::defaults);
    }

    /**
     * The request's settings, else the environment's.
     *
     * @throws IOException when there are no credentials
     */
    static S3Settings settings(StorageOptions options, S3Location where) throws IOException {
        S3Settings s = options.get(S3Settings.class)
                .orElseGet(() -> S3Settings.fromEnvironment(System.getenv(), Path.of("")));
        if (!s.hasCredentials()) {
            throw new IOException(String.format("no S3 credentials for %s: set AWS_ACCESS_KEY_ID and "
                    + "AWS_SECRET_ACCESS_KEY (in the environment or a .env file in the working directory), or AWS_PROFILE "
                    + "naming a profile of ~/.aws/credentials", where));
        }
        return s;
    }

    /** Waits for a client call; its failure becomes one clear IOException. */
    static <T> T await(CompletableFuture<T> call, String operation, S3Location where, S3Settings s) throws IOException {
        try {
            return call.join();
        } catch (CompletionException | CancellationException e) {
            throw MinioErrors.io(operation, where, s, e);
        }
    }
}
