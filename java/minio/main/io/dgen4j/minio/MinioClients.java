package io.dgen4j.minio;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Timeouts;
import io.minio.MinioAsyncClient;
import io.minio.credentials.StaticProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds MinIO clients, one per endpoint (each owns an OkHttp connection pool and dispatcher).
 * OkHttp's dispatcher allows 5 requests per host by default: ours allows the parts in flight plus a
 * few for HEADs and aborts, on daemon threads (OkHttp's own are not, and would hold a JVM up to a
 * minute after its last request). The settings' {@link io.dgen4j.s3.S3Timeouts}: OkHttp's connect
 * timeout; its read timeout (one socket read: the wait for the answer and each gap in its body) the
 * larger of first-byte and idle; its write timeout (one socket write) idle. No retry of 5xx answers
 * on the same endpoint (MinIO's {@code StatusRetryInterceptor}): the driver retries, on another
 * endpoint when one is up, within the settings' retry budget.
 */
final class MinioClients {
    private static final Logger LOG = LoggerFactory.getLogger(MinioClients.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private MinioClients() {}

    /** What a client is made from. */
    private record Key(S3Settings settings, MinioOptions options, int maxConcurrency) {}

    /** A client and what it owns: its OkHttp client and the daemon threads that run its calls. */
    record Entry(MinioAsyncClient client, OkHttpClient http, ExecutorService executor) implements AutoCloseable {
        /** Closes the client, cancels its calls, drops its connections and stops its threads. */
        @Override
        public void close() {
            try {
                client.close();
                http.dispatcher().cancelAll();
                http.connectionPool().evictAll();
                executor.shutdown();
            } catch (Exception ex) {
                LOG.warn("closing a MinIO client failed: {}", ex.toString());
            }
        }
    }

    /** Connections for {@code requests} in flight: a few more for HEADs and aborts, a power of two, at least 16. */
    static int concurrency(int requests) {
        return Math.max(16, Integer.highestOneBit(Math.max(1, requests + 4) - 1) << 1);
    }

    /**
     * A new client for these settings with {@code maxConcurrency} connections;
     * the caller closes it.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    static Entry open(S3Settings settings, MinioOptions options, int maxConcurrency) throws IOException {
        X509TrustManager trust = settings.caBundle().isPresent() ? trustManager(settings) : null;
        return build(new Key(settings, options, maxConcurrency), trust);
    }

    private static Entry build(Key k, X509TrustManager trust) {
        S3Settings s = k.settings();
        ExecutorService executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "dgen4j-minio-" + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        Dispatcher dispatcher = new Dispatcher(executor);
        dispatcher.setMaxRequests(k.maxConcurrency());
        dispatcher.setMaxRequestsPerHost(k.maxConcurrency());
        S3Timeouts t = s.timeouts();
        OkHttpClient.Builder http = new OkHttpClient.Builder()
                .dispatcher(dispatcher)
                .connectionPool(new ConnectionPool(k.maxConcurrency(), 5, TimeUnit.MINUTES))
                .connectTimeout(t.connect())
                .readTimeout(t.read())
                .writeTimeout(t.idle())
                .protocols(Arrays.asList(Protocol.HTTP_1_1));
        s.apiCallTimeout().ifPresent(http::callTimeout);
        if (trust != null) {
            try {
                SSLContext ctx = SSLContext.getInstance("TLS");
                ctx.init(null, new TrustManager[] {trust}, null);
                http.sslSocketFactory(ctx.getSocketFactory(), trust);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("TLS context for AWS_CA_BUNDLE: " + e.getMessage(), e);
            }
        }
        k.options().http().accept(http);
        OkHttpClient okhttp = http.build();
        HttpUrl url = HttpUrl.get(s.endpoint().map(Object::toString).orElse("https://s3.amazonaws.com"));
        MinioAsyncClient.Builder b = MinioAsyncClient.builder().endpoint(url).region(s.region())
                .httpClient(okhttp, false);
        if (s.hasCredentials()) {
            b.credentialsProvider(new StaticProvider(s.accessKeyId().orElseThrow(), s.secretAccessKey().orElseThrow(),
                    s.sessionToken().orElse(null)));
        }
        MinioAsyncClient client = b.build();
        if (s.pathStyle()) {
            client.disableVirtualStyleEndpoint();
        } else {
            client.enableVirtualStyleEndpoint();
        }
        LOG.debug("new MinIO client: {}, {} connections", s, k.maxConcurrency());
        return new Entry(client, okhttp, executor);
    }

    private static X509TrustManager trustManager(S3Settings s) throws IOException {
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
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    return x;
                }
            }
            throw new IOException("AWS_CA_BUNDLE " + pem + ": no X.509 trust manager");
        } catch (GeneralSecurityException e) {
            throw new IOException("AWS_CA_BUNDLE " + pem + " is not a PEM file of certificates: " + e.getMessage(), e);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("AWS_CA_BUNDLE " + pem + " does not exist", e);
        }
    }
}
