/**
 * The {@code minio} storage backend: {@code s3://} targets through the MinIO Java client 9.x
 * ({@code MinioAsyncClient} over OkHttp). Found by {@link java.util.ServiceLoader}; its options are
 * {@link io.dgen4j.s3.S3Settings} and {@link io.dgen4j.minio.MinioOptions}.
 *
 * <p>{@code minio} is the MinIO jar's automatic module name, derived from its file name (the jar
 * declares none); {@code okhttp3} is OkHttp 5's own module (a versioned module-info in
 * {@code okhttp-jvm}).
 */
module io.dgen4j.minio {
    requires transitive io.dgen4j;
    requires transitive io.dgen4j.s3;
    requires org.slf4j;
    requires transitive minio;
    requires transitive okhttp3;

    exports io.dgen4j.minio;

    provides io.dgen4j.storage.StorageProvider with io.dgen4j.minio.MinioStorageProvider;
}
