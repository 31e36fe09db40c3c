package io.dgen4j.minio;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Timeouts;
import io.minio.MinioAsyncClient;
import io.minio.credentials.StaticProvider;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds MinIO clients: one per endpoint, over one OkHttp client (connection pool, dispatcher,
 * threads) per endpoint set ({@link #share}), or of its own ({@link #open}). OkHttp's dispatcher
 * allows 5 requests per host by default: ours allows the parts in flight plus a few for HEADs and
 * aborts per endpoint, on daemon threads (OkHttp's own are not, and would hold a JVM up to a minute
 * after its last request). The settings' {@link io.dgen4j.s3.S3Timeouts}: OkHttp's connect timeout;
 * its read timeout (one socket read: the wait for the answer and each gap in its body) the larger of
 * first-byte and idle; its write timeout (one socket write) idle. No retry of 5xx answers on the same
 * endpoint (MinIO's {@code StatusRetryInterceptor}): the driver retries, on another endpoint when one
 * is up, within the settings' retry budget.
 */
final class MinioClients {
    private static final Logger LOG = LoggerFactory.getLogger(MinioClients.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** How often {@link WatchdogPacer} wakes okio's watchdog, at most. */
    private static final Duration PACER_PERIOD = Duration.ofSeconds(1);
    /** The shortest pacer period, whatever the write timeout (a write timeout under it only wakes the watchdog more). */
    private static final Duration PACER_MIN_PERIOD = Duration.ofMillis(100);

    private MinioClients() {}

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** What a client is made from. */
    private record Key(S3Settings settings, MinioOptions options, int maxConcurrency) {}

    /**
     * A client, its OkHttp client and the daemon threads that run its calls.
     *
     * @param ownsHttp whether the OkHttp client is this client's alone (else an endpoint set's, closed by it)
     */
    record Entry(MinioAsyncClient client, Shared http, boolean ownsHttp) implements AutoCloseable {
        /** Closes the client and, when they are its own, cancels its calls, drops its connections and stops its threads. */
        @Override
        public void close() {
            try {
                client.close();
                if (ownsHttp) {
                    http.close();
                }
            } catch (Exception ex) {
                LOG.warn("closing a MinIO client failed: {}", ex.toString());
            }
        }
    }

    /**
     * One OkHttp client shared by the MinIO clients of an endpoint set, its threads, and the pacer
     * that keeps its socket writes from waking okio's watchdog ({@link WatchdogPacer}).
     */
    record Shared(OkHttpClient http, ExecutorService executor, WatchdogPacer pacer) implements AutoCloseable {
        /** A MinIO client for the one endpoint of {@code one} over the shared OkHttp client. */
        Entry client(S3Settings one) {
            return new Entry(minio(one, http), this, false);
        }

        /** Cancels every call, drops the connections and stops the threads and the pacer. */
        @Override
        public void close() {
            try {
                http.dispatcher().cancelAll();
                http.connectionPool().evictAll();
                executor.shutdown();
            } catch (Exception ex) {
                LOG.warn("closing a MinIO HTTP client failed: {}", ex.toString());
            } finally {
                pacer.close();
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
        Shared http = share(settings, options, maxConcurrency, 1);
        return new Entry(minio(settings, http.http()), http, true);
    }

    /**
     * An OkHttp client for {@code endpoints} endpoints of these settings, {@code maxConcurrency}
     * requests at once to each; the caller closes it after the MinIO clients made over it.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    static Shared share(S3Settings settings, MinioOptions options, int maxConcurrency, int endpoints)
            throws IOException {
        X509TrustManager trust = io.dgen4j.s3.internal.CaBundles.trustManager(settings).orElse(null);
        return http(new Key(settings, options, maxConcurrency), trust, endpoints);
    }

    private static Shared http(Key k, X509TrustManager trust, int endpoints) {
        S3Settings s = k.settings();
        ExecutorService executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "dgen4j-minio-" + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        Dispatcher dispatcher = new Dispatcher(executor);
        // per endpoint as a client of its own would; the callers bound the requests of the whole set
        dispatcher.setMaxRequests((int) Math.min(Integer.MAX_VALUE, (long) k.maxConcurrency() * endpoints));
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
        if (s.endpoint().map(u -> "http".equalsIgnoreCase(u.getScheme())).orElse(false)) {
            // okio's 8 KiB writes gathered into 256 KiB system calls (over TLS the records are
            // flushed one by one, so https keeps the default sockets)
            http.socketFactory(new CoalescingSocketFactory());
        }
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
        LOG.debug("new OkHttp client for MinIO: {}, {} connections per endpoint, {} endpoint(s)", s,
                k.maxConcurrency(), endpoints);
        // under the write timeout (okio times a write out at its own deadline either way): a wake-up a
        // second, or every half write timeout when that is shorter, but not more than 10 a second
        Duration period = t.idle().isZero() ? PACER_PERIOD
                : max(PACER_MIN_PERIOD, min(PACER_PERIOD, t.idle().dividedBy(2)));
        return new Shared(http.build(), executor, new WatchdogPacer(period));
    }

    /** A MinIO client for the one endpoint of {@code s} over {@code okhttp} (which it does not close). */
    private static MinioAsyncClient minio(S3Settings s, OkHttpClient okhttp) {
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
        return client;
    }
}
