package io.dgen4j.minio;

import io.dgen4j.s3.MultipartWriter;
import io.dgen4j.s3.PartPlan;
import io.dgen4j.s3.RangedReader;
import io.dgen4j.s3.S3Endpoints;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * The {@code minio} backend: {@code s3://bucket/key} through the MinIO Java client's
 * {@code MinioAsyncClient}, one per endpoint over one OkHttp client per endpoint set
 * ({@link MinioTransport}), driven by the client-neutral S3 driver ({@link MultipartWriter},
 * {@link RangedReader} over an {@link S3Endpoints} pool: per-part balancing over the settings' endpoint set, failover, per-endpoint statistics).
 * Settings come from the request's {@link S3Settings} (else from the environment and {@code .env},
 * {@link S3Settings#fromEnvironment}), plus optional {@link MinioOptions}.
 *
 * <p>Priority 3, below {@code aws} (10) and {@code crt} (5): against s3proxy on loopback it was not
 * measured faster than {@code aws} and used more client CPU per GiB (OkHttp copies every body into
 * its own buffers on the way to the socket; see {@link MinioTransport}). Pick it with {@code --backend minio} or {@code DGEN4J_S3_BACKEND=minio}.
 *
 * <p>Clients are created once per endpoint set, settings, options and connection count and kept by the
 * driver's process-wide pools; their threads are daemons. {@link #close()} releases this backend's
 * pools (a shutdown hook does at exit).
 */
public final class MinioStorageProvider implements StorageProvider, AutoCloseable {
    /** The backend's name. */
    public static final String NAME = "minio";

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

    /** The part plan of the write, with no request sent ({@link PartPlan#check}). */
    @Override
    public void checkWrite(WriteRequest request) {
        PartPlan.check(request);
    }

    /**
     * Opens a multipart upload after checking that the bucket answers, so a wrong endpoint, bucket
     * or credentials fail here, before any data is generated.
     */
    @Override
    public StorageWriter openWriter(WriteRequest r) throws IOException {
        S3Location where = S3Location.of(r.target());
        S3Settings s = settings(r.options(), where);
        int inFlight = s.maxInFlight().orElse(r.maxInFlight());
        S3Endpoints pool = pool(s, minioOptions(r.options()), Math.max(inFlight, r.maxInFlight()));
        return MultipartWriter.open(pool, where, s, r, inFlight);
    }

    @Override
    public StorageReader openReader(ReadRequest r) throws IOException {
        S3Location where = S3Location.of(r.target());
        S3Settings s = settings(r.options(), where);
        return RangedReader.open(pool(s, minioOptions(r.options()), Math.max(s.maxInFlight().orElse(1),
                r.maxInFlight())), where);
    }

    /** HEADs the object (to say whether there was one), then deletes it. */
    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        S3Location where = S3Location.of(target);
        S3Settings s = settings(options, where);
        return RangedReader.delete(pool(s, minioOptions(options), 1), where);
    }

    /** Closes this backend's pools of clients. */
    @Override
    public void close() {
        S3Endpoints.closeShared(NAME);
    }

    /** The process's pool for these settings and options, with at least {@code requests} connections per endpoint. */
    static S3Endpoints pool(S3Settings s, MinioOptions options, int requests) throws IOException {
        MinioTransportFactory factory = new MinioTransportFactory(options, MinioClients.concurrency(requests));
        return S3Endpoints.shared(factory, s, factory);
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
}
