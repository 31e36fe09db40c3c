package io.dgen4j.crt;

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
import java.util.Optional;
import java.util.Set;

/**
 * The {@code crt} backend: {@code s3://bucket/key} through the AWS SDK v2's CRT-based
 * {@code S3AsyncClient}, one client per endpoint set ({@link CrtTransportFactory#group}), driven by the
 * client-neutral S3 driver ({@link MultipartWriter}, {@link RangedReader} over an
 * {@link S3Endpoints} pool: multipart uploads created with the metadata, parts straight from the
 * caller's segments balanced over the settings' endpoint set with failover, completed with the
 * sorted ETags and checked with a HEAD; abort and confirm on any failure; ranged GETs into the
 * caller's segments).
 *
 * <p>Settings: the {@link S3Settings} in the request's options, else
 * {@link S3Settings#fromEnvironment} (the {@code AWS_*} variables and a {@code .env} file in the
 * working directory). The part size is the settings' part size, else the chunk size (the
 * checkpoint's {@code chunkSize} metadata).
 *
 * <p>Its priority ({@value #PRIORITY}) is below the {@code aws} backend's: against s3proxy on
 * loopback it was not measured faster (it used less client CPU per GiB, and a part-sized native
 * buffer per part in flight more; see docs/S3-CRT.md). Choose it by name ({@code --backend crt}).
 *
 * <p>Clients are created once per endpoint set, settings and request count and kept by the driver's
 * process-wide pools; {@link #close()} releases this backend's pools (a shutdown hook does at exit).
 */
public final class CrtStorageProvider implements StorageProvider, AutoCloseable {
    /** The backend's name. */
    public static final String NAME = "crt";
    /** Preference among the {@code s3} backends when none is named: below {@code aws}. */
    public static final int PRIORITY = 5;

    /** Instantiated by {@link java.util.ServiceLoader}. */
    public CrtStorageProvider() {}

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
        return PRIORITY;
    }

    @Override
    public Optional<String> unavailable() {
        return CrtClients.runtimeProblem();
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
    public StorageWriter openWriter(WriteRequest request) throws IOException {
        S3Location where = S3Location.of(request.target());
        S3Settings settings = settings(request.options());
        int inFlight = settings.maxInFlight().orElse(request.maxInFlight());
        S3Endpoints pool = pool(settings, Math.max(inFlight, request.maxInFlight()),
                request.options().get(PartFault.class).orElse(null));
        return MultipartWriter.open(pool, where, settings, request, inFlight);
    }

    @Override
    public StorageReader openReader(ReadRequest request) throws IOException {
        S3Location where = S3Location.of(request.target());
        S3Settings settings = settings(request.options());
        return RangedReader.open(pool(settings, Math.max(settings.maxInFlight().orElse(1), request.maxInFlight()),
                null), where);
    }

    /** HEADs the object (to say whether there was one), then deletes it. */
    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        S3Location where = S3Location.of(target);
        return RangedReader.delete(pool(settings(options), 1, null), where);
    }

    /** Closes this backend's pools of clients. */
    @Override
    public void close() {
        S3Endpoints.closeShared(NAME);
    }

    /**
     * The process's pool for these settings, with room for at least {@code requests} requests in
     * flight per endpoint, its transports spoiling part {@code fault} of every upload when not null.
     */
    static S3Endpoints pool(S3Settings settings, int requests, PartFault fault) throws IOException {
        // Rounded up so that nearby counts share one client; the CRT adds its control connections.
        int inFlight = Math.max(CrtTransport.DEFAULT_IN_FLIGHT, Integer.highestOneBit(Math.max(1, requests) - 1) << 1);
        CrtTransportFactory factory = new CrtTransportFactory(inFlight, fault);
        return S3Endpoints.shared(factory, settings, factory);
    }

    /** The S3 settings in {@code options}, else those of the environment and the working directory's {@code .env}. */
    static S3Settings settings(StorageOptions options) {
        return options.get(S3Settings.class)
                .orElseGet(() -> S3Settings.fromEnvironment(System.getenv(), Path.of("").toAbsolutePath()));
    }

    @Override
    public String toString() {
        return "crt storage backend (s3:// through the AWS CRT-based S3 client)";
    }
}
