package io.dgen4j.minio;

import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.StorageOptions;

/**
 * The {@code minio} client: {@code s3://} through the MinIO Java client's {@code MinioAsyncClient}, one
 * per endpoint over one OkHttp client per endpoint set ({@link MinioTransportFactory}), adjusted by the
 * request's {@link MinioOptions} when it has some. The s3 module's provider does the rest.
 *
 * <p>Priority {@value #PRIORITY}, below {@code aws} and {@code crt}: against s3proxy on loopback it was not
 * measured faster than {@code aws} and used more client CPU per GiB (OkHttp copies every body into its
 * own buffers on the way to the socket; see {@link MinioTransport}). Pick it with {@code --backend minio}
 * or {@code DGEN4J_S3_BACKEND=minio}.
 */
public final class MinioClient implements S3ClientProvider {
    /** The backend's name. */
    public static final String NAME = "minio";
    /** Preference among the S3 clients when none is named: the lowest. */
    public static final int PRIORITY = 3;

    /** The service loader's constructor. */
    public MinioClient() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /** A factory of clients with connections for {@code requests} in flight per endpoint (64 when none is known). */
    @Override
    public S3TransportFactory transports(StorageOptions options, int requests) {
        return new MinioTransportFactory(options.get(MinioOptions.class).orElseGet(MinioOptions::defaults),
                MinioClients.concurrency(requests <= 0 ? 64 : requests));
    }
}
