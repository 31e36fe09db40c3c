/**
 * The {@code minio} storage backend: {@code s3://} targets through the MinIO Java client 9.x
 * ({@code MinioAsyncClient} over OkHttp). Found by {@link java.util.ServiceLoader}; its options are
 * {@link io.dgen4j.s3.S3Settings} and {@link io.dgen4j.minio.MinioOptions}.
 *
 * <p>{@code minio} is the MinIO jar's automatic module name, derived from its file name (the jar
 * declares none); {@code okhttp3} is OkHttp 5's own module (a versioned module-info in
 * {@code okhttp-jvm}). An automatic module declares no dependencies, so the explicit modules that
 * MinIO uses are required here: without them it would fail on the module path with
 * {@code ClassNotFoundException} (e.g. Guava's {@code UrlEscapers}).
 */
module io.dgen4j.minio {
    requires transitive io.dgen4j;
    requires transitive io.dgen4j.s3;
    requires org.slf4j;
    requires transitive minio;
    requires transitive okhttp3;
    // on behalf of the automatic module minio (the automatic ones, okio and simple.xml.safe, come with it)
    requires com.google.common;
    requires com.fasterxml.jackson.databind;
    requires org.apache.commons.codec;
    requires org.apache.commons.compress;
    requires org.bouncycastle.provider;
    requires kotlin.stdlib;

    exports io.dgen4j.minio;

    // the minio client's transports, for the s3:// provider and `dgen4j endpoints`
    provides io.dgen4j.s3.spi.S3ClientProvider with io.dgen4j.minio.MinioClient;
}
