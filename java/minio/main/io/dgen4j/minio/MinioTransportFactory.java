package io.dgen4j.minio;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import java.io.IOException;
import java.util.Objects;

/**
 * Makes the {@code minio} backend's {@link S3Transport}s: one {@code MinioAsyncClient} per endpoint,
 * over one OkHttp client per endpoint set (see {@link #group}) adjusted by these {@link MinioOptions}
 * and allowed this many connections per endpoint.
 * {@link MinioClient} makes one per request, equal by value, so that equal ones share a pool of clients. Every transport of
 * the process counts its parts in one {@link PartCounters}.
 *
 * @param options        the OkHttp hook applied to each client
 * @param maxConnections requests and idle connections per client (per endpoint)
 */
public record MinioTransportFactory(MinioOptions options, int maxConnections) implements S3TransportFactory {
    private static final PartCounters COUNTERS = new PartCounters();

    /** Checks the fields. */
    public MinioTransportFactory {
        Objects.requireNonNull(options, "options");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("connections must be >= 1, got " + maxConnections);
        }
    }

    @Override
    public String backend() {
        return MinioClient.NAME;
    }

    /**
     * A transport for the one endpoint of {@code settings}.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    @Override
    public MinioTransport open(S3Settings settings) throws IOException {
        return MinioTransport.open(settings, options, maxConnections, COUNTERS);
    }

    /**
     * One OkHttp client (connection pool, dispatcher, threads) for every endpoint of
     * {@code settings}, {@code maxConnections} requests at once to each, and each endpoint's
     * transport a {@code MinioAsyncClient} of its own over it (a few KiB).
     *
     * @throws IOException when the CA bundle cannot be read
     */
    @Override
    public Group group(S3Settings settings) throws IOException {
        java.util.List<S3Settings> each = settings.perEndpoint();
        MinioClients.Shared http = MinioClients.share(each.getFirst(), options, maxConnections, each.size());
        return new Group() {
            @Override
            public S3Transport open(S3Settings one) {
                return MinioTransport.over(http, one, COUNTERS);
            }

            @Override
            public void close() {
                http.close();
            }
        };
    }

    /** What every transport's part uploads did (for tests and figures). */
    static PartCounters counters() {
        return COUNTERS;
    }
}
