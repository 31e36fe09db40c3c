package io.dgen4j.minio;

import java.util.Objects;
import java.util.function.Consumer;
import okhttp3.OkHttpClient;

/**
 * Options of the {@code minio} backend beyond the client-neutral {@link io.dgen4j.s3.S3Settings}:
 * a hook that adjusts the OkHttp client (interceptors, event listeners, proxies) after dgen4j set
 * its connection limits and timeouts. Clients are cached per settings and options: pass the same
 * options object to reuse a client.
 *
 * {@snippet :
 * StorageOptions o = StorageOptions.empty().with(settings)
 *         .with(new MinioOptions(http -> http.addInterceptor(myInterceptor)));
 * }
 *
 * @param http applied to the OkHttp client builder after dgen4j's own settings
 */
public record MinioOptions(Consumer<OkHttpClient.Builder> http) {
    private static final MinioOptions DEFAULTS = new MinioOptions(b -> { });

    /** Checks the hook is set. */
    public MinioOptions {
        Objects.requireNonNull(http, "http");
    }

    /** No customization. */
    public static MinioOptions defaults() {
        return DEFAULTS;
    }
}
