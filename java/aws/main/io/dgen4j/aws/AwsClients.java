package io.dgen4j.aws;

import io.dgen4j.s3.S3Settings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;

/**
 * The SDK clients, one per settings, options and connection limit, created on first use and kept
 * (a client owns a connection pool and Netty threads: creating one per save would cost both).
 * {@link #close()} closes them; {@link AwsStorageProvider#close()} calls it.
 */
final class AwsClients implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AwsClients.class);

    /** What a client is made from. */
    private record Key(S3Settings settings, AwsOptions options, int maxConcurrency) {}

    private final Map<Key, S3AsyncClient> clients = new ConcurrentHashMap<>();

    /**
     * The client for these settings with at least {@code requests} connections.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    S3AsyncClient get(S3Settings settings, AwsOptions options, int requests) throws IOException {
        // Connections: the requests in flight and a few for HEADs and aborts, rounded up so that
        // nearby values share one client.
        int concurrency = Math.max(16, Integer.highestOneBit(Math.max(1, requests + 4) - 1) << 1);
        Key key = new Key(settings, options, concurrency);
        S3AsyncClient c = clients.get(key);
        if (c != null) {
            return c;
        }
        TrustManager[] trust = settings.caBundle().isPresent() ? trustManagers(settings) : null;
        return clients.computeIfAbsent(key, k -> build(k, trust));
    }

    private static S3AsyncClient build(Key k, TrustManager[] trust) {
        S3Settings s = k.settings();
        NettyNioAsyncHttpClient.Builder http = NettyNioAsyncHttpClient.builder()
                .maxConcurrency(k.maxConcurrency())
                .maxPendingConnectionAcquires(10_000)
                .connectionTimeout(Duration.ofSeconds(10))
                // The pool holds more connections than parts in flight: a long wait means a stuck endpoint.
                .connectionAcquisitionTimeout(Duration.ofSeconds(60));
        if (trust != null) {
            http.tlsTrustManagersProvider(() -> trust);
        }
        boolean full = s.checksumMode() == S3Settings.ChecksumMode.FULL;
        S3AsyncClientBuilder b = S3AsyncClient.builder()
                .httpClientBuilder(http)
                .region(Region.of(s.region()))
                .forcePathStyle(s.pathStyle())
                // SDK 2.30+ adds CRC32 trailers to every upload by default, which many S3-compatible
                // stores refuse: only when an operation requires one, unless asked for
                .requestChecksumCalculation(full ? RequestChecksumCalculation.WHEN_SUPPORTED
                        : RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(full ? ResponseChecksumValidation.WHEN_SUPPORTED
                        : ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> {
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
        k.options().customizer().accept(b);
        LOG.debug("new S3 client: {}, {} connections", s, k.maxConcurrency());
        return b.build();
    }

    private static TrustManager[] trustManagers(S3Settings s) throws IOException {
        var pem = s.caBundle().orElseThrow();
        try (InputStream in = Files.newInputStream(pem)) {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                ks.setCertificateEntry("ca-" + i++, c);
            }
            if (i == 0) {
                throw new IOException("AWS_CA_BUNDLE " + pem + " holds no certificate");
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            return tmf.getTrustManagers();
        } catch (GeneralSecurityException e) {
            throw new IOException("AWS_CA_BUNDLE " + pem + " is not a PEM file of certificates: " + e.getMessage(), e);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("AWS_CA_BUNDLE " + pem + " does not exist", e);
        }
    }

    @Override
    public void close() {
        clients.values().forEach(c -> {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.warn("closing an S3 client failed: {}", e.toString());
            }
        });
        clients.clear();
    }
}
