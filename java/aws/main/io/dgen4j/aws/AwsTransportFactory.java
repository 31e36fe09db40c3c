package io.dgen4j.aws;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.internal.RoutedClient;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3TransportFactory;
import java.io.IOException;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Makes the {@code aws} backend's {@link S3Transport}s: one SDK async client per endpoint set
 * (each endpoint's transport a view of it, see {@link #group}), built with these {@link AwsOptions}
 * and this many connections per endpoint. {@link AwsClient} makes one per request, equal by value, so
 * that equal ones share a pool of clients.
 *
 * @param options        hooks applied to each client
 * @param maxConnections connections per client (per endpoint)
 */
public record AwsTransportFactory(AwsOptions options, int maxConnections) implements S3TransportFactory {
    /**
     * The system property that picks the HTTP client of uploads to {@code http://} endpoints:
     * {@code direct} (the default: {@link SegmentHttpClient}, bodies sent from their segments, a part
     * with {@code sendfile} where its buffer is a memory file), {@code write} (the same client, every
     * body written, for comparisons) or {@code netty} (the async client's, as for {@code https://}).
     */
    public static final String UPLOADS_PROPERTY = "dgen4j.aws.uploads";

    /** Checks the fields. */
    public AwsTransportFactory {
        java.util.Objects.requireNonNull(options, "options");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("connections must be >= 1, got " + maxConnections);
        }
    }

    @Override
    public String backend() {
        return AwsClient.NAME;
    }

    /**
     * A transport for the one endpoint of {@code settings}. Its clients are made on first use: the
     * async one for the requests of a save, the sync one for a load's HEAD and ranged GETs.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    @Override
    public S3Transport open(S3Settings settings) throws IOException {
        javax.net.ssl.TrustManager[] trust = AwsClients.trust(settings);
        Lazy<S3AsyncClient> client = new Lazy<>(() -> AwsClients.build(settings, options, maxConnections, trust));
        AwsSyncCalls.Shared sync = syncClient(settings, trust);
        return new AwsTransport(client, client, settings, sync == null ? null : sync.own(), sync, true);
    }

    /**
     * The sync clients (each made on first use): the ranged GETs' and a load's HEAD's, and the
     * uploads' (to {@code http://} endpoints) unless {@value #UPLOADS_PROPERTY} is {@code netty}; none
     * when the options customize the async client: then it serves them all.
     */
    private AwsSyncCalls.Shared syncClient(S3Settings settings, javax.net.ssl.TrustManager[] trust) {
        if (options.customizesBuilder()) {
            return null;
        }
        String uploads = System.getProperty(UPLOADS_PROPERTY, "direct");
        if (!uploads.equals("direct") && !uploads.equals("write") && !uploads.equals("netty")) {
            throw new IllegalArgumentException(UPLOADS_PROPERTY + " must be direct, write or netty, got " + uploads);
        }
        return new AwsSyncCalls.Shared(() -> AwsClients.buildSync(settings, options, maxConnections, trust),
                uploads.equals("netty") ? null : () -> AwsClients.buildUploads(settings, options),
                uploads.equals("direct"), settings.endpoint().orElse(null));
    }

    /**
     * One SDK async client for every endpoint of {@code settings}, made on first use for the first
     * (its Netty HTTP client keeps {@code maxConnections} per endpoint), and each endpoint's transport
     * a view of it that sends its requests to that endpoint ({@link RoutedClient}); the same for the
     * sync client.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    @Override
    public Group group(S3Settings settings) throws IOException {
        S3Settings first = settings.perEndpoint().getFirst();
        javax.net.ssl.TrustManager[] trust = AwsClients.trust(first);
        Lazy<S3AsyncClient> shared = new Lazy<>(() -> AwsClients.build(first, options, maxConnections, trust));
        AwsSyncCalls.Shared sync = syncClient(first, trust);
        return new Group() {
            @Override
            public S3Transport open(S3Settings one) {
                // the first endpoint is the client's own: its requests need no routing
                boolean own = one.endpoint().equals(first.endpoint());
                Lazy<S3AsyncClient> view = own ? shared
                        : new Lazy<>(() -> new RoutedClient(shared.get(), one.endpoint().orElseThrow()));
                // the group closes the clients, not the views
                return new AwsTransport(view, shared, one,
                        sync == null ? null : own ? sync.own() : sync.to(one.endpoint().orElseThrow()), null, false);
            }

            @Override
            public void close() {
                try {
                    S3AsyncClient c = shared.ifMade();
                    if (c != null) {
                        c.close();
                    }
                } finally {
                    if (sync != null) {
                        sync.close();
                    }
                }
            }
        };
    }
}
