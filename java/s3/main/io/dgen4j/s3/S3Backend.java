package io.dgen4j.s3;

import io.dgen4j.s3.internal.S3Endpoints;
import io.dgen4j.s3.internal.S3Pools;
import io.dgen4j.s3.internal.RangedReader;
import io.dgen4j.s3.internal.PartPlan;
import io.dgen4j.s3.internal.MultipartWriter;
import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.OpenTimes;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One S3 client as a storage backend under the client's name ({@code aws}, {@code crt}, {@code minio}):
 * {@code s3://bucket/key} through the client's transports, driven by the client-neutral driver
 * ({@link MultipartWriter}, {@link RangedReader} over an {@link S3Endpoints} pool: per-part balancing over
 * the settings' endpoint set, failover, per-endpoint statistics). What is the same for every client lives
 * here once: the settings (the request's {@link S3Settings}, else those of its provider's session: the
 * environment's and the working directory's {@code .env}), the credentials check, the part plan, the pools.
 *
 * <p>Pools of clients are created once per endpoint set, settings, client options and request count and
 * kept in the provider's {@link S3Pools} (its session's); {@link #close()} releases this backend's.
 */
final class S3Backend implements StorageProvider {
    private final S3ClientProvider client;
    private final S3StorageProvider provider;

    S3Backend(S3ClientProvider client, S3StorageProvider provider) {
        this.client = Objects.requireNonNull(client, "client");
        this.provider = Objects.requireNonNull(provider, "provider");
    }

    @Override
    public String name() {
        return client.name();
    }

    @Override
    public Set<String> schemes() {
        return Set.of(S3Location.SCHEME);
    }

    @Override
    public int priority() {
        return client.priority();
    }

    @Override
    public Optional<String> unavailable() {
        return client.unavailable();
    }

    /** The part plan of the write, with no request sent ({@link PartPlan#check}). */
    @Override
    public void checkWrite(WriteRequest request) {
        PartPlan.check(request, provider::defaultSettings);
    }

    /**
     * Opens a multipart upload after checking that the bucket answers, so a wrong endpoint, bucket or
     * credentials fail here, before any data is generated.
     */
    @Override
    public StorageWriter openWriter(WriteRequest r) throws IOException {
        S3Location where = S3Location.of(r.target());
        S3Settings s = provider.settings(r.options(), where);
        int inFlight = s.maxInFlight().orElse(r.maxInFlight());
        long started = System.nanoTime();
        S3Endpoints pool = pool(s, r.options(), Math.max(inFlight, r.maxInFlight()));
        long clients = pool.clientStartNanos();
        long pooled = System.nanoTime();
        MultipartWriter w = MultipartWriter.open(pool, where, s, r, inFlight);
        return w.timed(openTimes(started, pooled, clients, pool, "HeadBucket, CreateMultipartUpload"));
    }

    /**
     * What an open took: the pool's making (a new one starts the shared client) and the transports
     * made during its requests count as client start; the rest of those requests as requests.
     */
    private static OpenTimes openTimes(long started, long pooled, long clientsBefore, S3Endpoints pool,
                                       String requests) {
        long made = pool.clientStartNanos() - clientsBefore;
        long requested = System.nanoTime() - pooled;
        return new OpenTimes((pooled - started + made) / 1e9, Math.max(0, requested - made) / 1e9, requests);
    }

    @Override
    public StorageReader openReader(ReadRequest r) throws IOException {
        S3Location where = S3Location.of(r.target());
        S3Settings s = provider.settings(r.options(), where);
        long started = System.nanoTime();
        S3Endpoints pool = pool(s, r.options(), Math.max(s.maxInFlight().orElse(1), r.maxInFlight()));
        long clients = pool.clientStartNanos();
        long pooled = System.nanoTime();
        RangedReader reader = RangedReader.open(pool, where);
        return reader.timed(openTimes(started, pooled, clients, pool, "HeadObject"));
    }

    /** HEADs the object (to say whether there was one), then deletes it. */
    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        S3Location where = S3Location.of(target);
        return RangedReader.delete(pool(provider.settings(options, where), options, 1), where);
    }

    /** Closes this backend's pools of clients (later requests open new ones). */
    @Override
    public void close() {
        provider.pools().close(name());
    }

    /** The pool for these settings and options, with room for {@code requests} requests in flight per endpoint. */
    private S3Endpoints pool(S3Settings s, StorageOptions options, int requests) throws IOException {
        S3TransportFactory factory = client.transports(options, requests);
        return provider.pools().pool(factory, s, factory);
    }

    @Override
    public String toString() {
        return name() + " storage backend (s3:// through the " + name() + " client)";
    }
}
