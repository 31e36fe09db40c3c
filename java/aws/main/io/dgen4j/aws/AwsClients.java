package io.dgen4j.aws;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Timeouts;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.http.apache.ProxyConfiguration;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.DelegatingS3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.S3BaseClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Builds the SDK's clients for one endpoint, with dgen4j's timeouts and checksum mode and the options'
 * hooks: the async one (Netty) and the sync one (Apache's HTTP client) that serves a load's requests.
 * The settings' {@link io.dgen4j.s3.S3Timeouts}: the connect timeout bounds TCP and TLS set-up;
 * Netty's read timeout (no byte read for that long once the request is written: the wait for the
 * answer and the gaps in its body) is the larger of first-byte and idle; its write timeout (one
 * write not done for that long; bodies go in pieces of {@value AwsTransport#BODY_PIECE} bytes) is
 * idle. The SDK's own retries are off: the driver retries, within the settings' retry budget.
 */
final class AwsClients {
    private static final Logger LOG = LoggerFactory.getLogger(AwsClients.class);

    /**
     * How long a closing client's event loops wait for late tasks (a listener the closed pools add) before
     * they stop: the SDK's own is 2 s, paid by every close.
     */
    private static final long QUIET_MILLIS = 100;
    /** How long a closing client's event loops may take to finish their queued tasks (the SDK's own figure). */
    private static final long SHUTDOWN_TIMEOUT_SECONDS = 15;

    private AwsClients() {}

    /**
     * A client for the one endpoint of {@code settings} with {@code maxConcurrency} connections.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    static S3AsyncClient build(S3Settings settings, AwsOptions options, int maxConcurrency) throws IOException {
        return build(settings, options, maxConcurrency, trust(settings));
    }

    /**
     * The trust managers of the settings' CA bundle, or null for the JDK's: read when a transport is
     * opened, so that an unreadable bundle fails before the first byte whichever client is made later.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    static TrustManager[] trust(S3Settings settings) throws IOException {
        return io.dgen4j.s3.internal.CaBundles.trustManager(settings).map(t -> new TrustManager[] {t}).orElse(null);
    }

    /** A client for the one endpoint of {@code settings}: {@code maxConcurrency} connections, these trust managers. */
    static S3AsyncClient build(S3Settings settings, AwsOptions options, int maxConcurrency, TrustManager[] trust) {
        return build(new Key(settings, options, maxConcurrency), trust);
    }

    /** What a client is made from. */
    private record Key(S3Settings settings, AwsOptions options, int maxConcurrency) {}

    private static S3AsyncClient build(Key k, TrustManager[] trust) {
        S3Settings s = k.settings();
        S3Timeouts t = s.timeouts();
        // our own event loops, shut down with a short quiet period when the client closes (OwnLoops)
        SdkEventLoopGroup loops = SdkEventLoopGroup.builder().channelFactory(WideBodyChannel::new).build();
        NettyNioAsyncHttpClient.Builder http = NettyNioAsyncHttpClient.builder()
                .maxConcurrency(k.maxConcurrency())
                .maxPendingConnectionAcquires(10_000)
                .connectionTimeout(t.connect())
                .tlsNegotiationTimeout(t.connect())
                .readTimeout(t.read())
                .writeTimeout(t.idle())
                // The pool holds more connections than parts in flight: a long wait means a stuck endpoint.
                .connectionAcquisitionTimeout(Duration.ofSeconds(60))
                // response bodies in wide pieces (WideBodyChannel), each what one socket read got,
                // and reads of up to a piece: fewer, larger pieces for the SDK to copy and publish
                .eventLoopGroup(loops)
                .putChannelOption(ChannelOption.RCVBUF_ALLOCATOR,
                        new AdaptiveRecvByteBufAllocator(64 << 10, 64 << 10, WideBodyChannel.BODY_PIECE))
                // Netty's pooled allocator gives each event loop that writes a request its own 4 MiB
                // arena chunk, for request heads of a few hundred bytes (the bodies are our segments):
                // 4-12 MiB of peak RSS in a save, more with the event loops a sharded save keeps busy
                .putChannelOption(ChannelOption.ALLOCATOR, UnpooledByteBufAllocator.DEFAULT);
        if (trust != null) {
            http.tlsTrustManagersProvider(() -> trust);
        }
        S3AsyncClientBuilder b = common(S3AsyncClient.builder().httpClientBuilder(http), k);
        k.options().customizer().accept(b);
        LOG.debug("new S3 client: {}, {} connections", s, k.maxConcurrency());
        S3AsyncClient client;
        try {
            client = b.build();
        } catch (RuntimeException | Error e) {
            loops.eventLoopGroup().shutdownGracefully(QUIET_MILLIS, SHUTDOWN_TIMEOUT_SECONDS * 1000,
                    TimeUnit.MILLISECONDS);
            throw e;
        }
        return new OwnLoops(client, loops.eventLoopGroup());
    }

    /**
     * The sync client (Apache's HTTP client) that serves the ranged GETs (and a load's HEAD) of the endpoint of {@code
     * settings}, built with the same settings and overrides as the async client (not its customizer,
     * which is for the async builder: {@link AwsTransportFactory} keeps GETs on the async client when
     * the options have one). Apache's socket timeout is the read timeout (no byte for that long); no
     * proxy from the environment, as the async client uses none.
     *
     * @param trust the settings' trust managers ({@link #trust}), or null for the JDK's
     */
    static S3Client buildSync(S3Settings settings, AwsOptions options, int maxConcurrency, TrustManager[] trust) {
        S3Timeouts t = settings.timeouts();
        ApacheHttpClient.Builder http = ApacheHttpClient.builder()
                .maxConnections(maxConcurrency)
                .connectionTimeout(t.connect())
                .socketTimeout(t.read())
                .connectionAcquisitionTimeout(Duration.ofSeconds(60))
                .proxyConfiguration(ProxyConfiguration.builder().useSystemPropertyValues(false)
                        .useEnvironmentVariableValues(false).build());
        if (trust != null) {
            http.tlsTrustManagersProvider(() -> trust);
        }
        return common(S3Client.builder().httpClientBuilder(http), new Key(settings, options, maxConcurrency)).build();
    }

    /**
     * The sync client that sends the uploads (parts, single-part objects) to the {@code http://}
     * endpoint of {@code settings}: the same settings and overrides as the others, on a {@link
     * SegmentHttpClient} (connections as the requests in flight need them) with the settings'
     * timeouts, signing the payload as the SDK does over https ({@link UnsignedPayloadScheme}).
     */
    static S3Client buildUploads(S3Settings settings, AwsOptions options) {
        S3Timeouts t = settings.timeouts();
        // built by the SDK from a builder, so that closing the S3 client closes it (its pool and watchdog)
        return common(S3Client.builder().httpClientBuilder(defaults -> new SegmentHttpClient(t.connect(), t.read(),
                        t.idle()))
                .putAuthScheme(new UnsignedPayloadScheme()), new Key(settings, options, 1)).build();
    }

    /** What both clients share: region, addressing, checksums, timeouts, retries, credentials, endpoint. */
    private static <B extends S3BaseClientBuilder<B, ?>> B common(B b, Key k) {
        S3Settings s = k.settings();
        boolean full = s.checksumMode() == S3Settings.ChecksumMode.FULL;
        b.region(Region.of(s.region()))
                .forcePathStyle(s.pathStyle())
                // SDK 2.30+ adds CRC32 trailers to every upload by default, which many S3-compatible
                // stores refuse: only when an operation requires one, unless asked for
                .requestChecksumCalculation(full ? RequestChecksumCalculation.WHEN_SUPPORTED
                        : RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(full ? ResponseChecksumValidation.WHEN_SUPPORTED
                        : ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> {
                    o.retryStrategy(r -> r.maxAttempts(1));
                    s.apiCallTimeout().ifPresent(o::apiCallTimeout);
                    s.apiCallAttemptTimeout().ifPresent(o::apiCallAttemptTimeout);
                    k.options().overrides().accept(o);
                });
        if (s.hasCredentials()) {
            AwsCredentials creds = s.sessionToken().isPresent()
                    ? AwsSessionCredentials.create(s.accessKeyId().orElseThrow(), s.secretAccessKey().orElseThrow(),
                            s.sessionToken().orElseThrow())
                    : AwsBasicCredentials.create(s.accessKeyId().orElseThrow(), s.secretAccessKey().orElseThrow());
            b.credentialsProvider(StaticCredentialsProvider.create(creds));
        }
        s.endpoint().ifPresent(b::endpointOverride);
        return b;
    }

    /**
     * A client that shuts its event loops down when it closes. The SDK shuts down loops it made with a
     * 2 s quiet period (a wait for late tasks), which every close paid: a CLI run's exit, each save's
     * end. Once the client is closed its pools are closed and little submits to the loops any more,
     * so they stop after {@value #QUIET_MILLIS} ms with no task (tasks already queued still run: the
     * channels' closes among them).
     */
    private static final class OwnLoops extends DelegatingS3AsyncClient {
        private final EventLoopGroup loops;

        OwnLoops(S3AsyncClient client, EventLoopGroup loops) {
            super(client);
            this.loops = loops;
        }

        @Override
        public void close() {
            try {
                super.close();
            } finally {
                if (!loops.shutdownGracefully(QUIET_MILLIS, SHUTDOWN_TIMEOUT_SECONDS * 1000, TimeUnit.MILLISECONDS)
                        .awaitUninterruptibly(SHUTDOWN_TIMEOUT_SECONDS + 1, TimeUnit.SECONDS)) {
                    LOG.warn("the S3 client's event loops did not stop within {} s", SHUTDOWN_TIMEOUT_SECONDS);
                }
            }
        }
    }
}
