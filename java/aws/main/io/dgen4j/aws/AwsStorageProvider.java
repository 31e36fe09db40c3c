package io.dgen4j.aws;

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
 * The {@code aws} backend: {@code s3://bucket/key} through the AWS SDK for Java v2's async client
 * on Netty, one client per endpoint set, driven by the client-neutral S3 driver
 * ({@link MultipartWriter}, {@link RangedReader} over an {@link S3Endpoints} pool: per-part balancing
 * over the settings' endpoint set, failover, per-endpoint statistics). Settings come from the
 * request's {@link S3Settings} (else from the environment and {@code .env},
 * {@link S3Settings#fromEnvironment}), plus optional {@link AwsOptions}.
 *
 * <p>Priority 10: for now the only S3 backend measured here, so the default for {@code s3://}
 * (the default should be the fastest measured; revisit when the other clients are measured).
 *
 * <p>Clients (connection pools, Netty threads) are created once per endpoint set, settings, options and
 * connection count and kept by the driver's process-wide pools; the SDK's threads are daemons, so
 * they never keep a JVM alive. {@link #close()} releases this backend's pools (a shutdown hook does at
 * exit).
 */
public final class AwsStorageProvider implements StorageProvider, AutoCloseable {
    /** The backend's name. */
    public static final String NAME = "aws";

    /** The service loader's constructor. */
    public AwsStorageProvider() {}

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
        return 10;
    }

    /** The part plan of the write, with no request sent ({@link PartPlan#check}). */
    @Override
    public void checkWrite(WriteRequest request) {
        PartPlan.check(request);
    }

    /**
     * Opens a multipart upload after checking that the bucket answers, so a wrong endpoint, bucket or
     * credentials fail here, before any data is generated.
     */
    @Override
    public StorageWriter openWriter(WriteRequest r) throws IOException {
        S3Location where = location(r.target());
        S3Settings s = settings(r.options(), where);
        int inFlight = s.maxInFlight().orElse(r.maxInFlight());
        S3Endpoints pool = pool(s, awsOptions(r.options()), Math.max(inFlight, r.maxInFlight()));
        return MultipartWriter.open(pool, where, s, r, inFlight);
    }

    @Override
    public StorageReader openReader(ReadRequest r) throws IOException {
        S3Location where = location(r.target());
        S3Settings s = settings(r.options(), where);
        return RangedReader.open(pool(s, awsOptions(r.options()), Math.max(s.maxInFlight().orElse(1),
                r.maxInFlight())), where);
    }

    /** HEADs the object (to say whether there was one), then deletes it. */
    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        S3Location where = location(target);
        S3Settings s = settings(options, where);
        return RangedReader.delete(pool(s, awsOptions(options), 1), where);
    }

    /** Closes this backend's pools of clients. */
    @Override
    public void close() {
        S3Endpoints.closeShared(NAME);
    }

    /** The process's pool for these settings and options, with at least {@code requests} connections per endpoint. */
    static S3Endpoints pool(S3Settings s, AwsOptions options, int requests) throws IOException {
        // Connections: the requests in flight and a few for HEADs and aborts, rounded up so that
        // nearby values share one client.
        int connections = Math.max(16, Integer.highestOneBit(Math.max(1, requests + 4) - 1) << 1);
        AwsTransportFactory factory = new AwsTransportFactory(options, connections);
        return S3Endpoints.shared(factory, s, factory);
    }

    private static S3Location location(StorageTarget target) {
        return S3Location.of(target);
    }

    private static AwsOptions awsOptions(StorageOptions options) {
        return options.get(AwsOptions.class).orElseGet(AwsOptions::defaults);
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
