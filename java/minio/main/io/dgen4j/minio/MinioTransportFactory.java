package io.dgen4j.minio;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Transport;
import io.dgen4j.s3.S3TransportFactory;
import java.io.IOException;

/**
 * Makes {@link MinioTransport}s (backend {@code minio}) for the shared S3 driver and
 * {@code dgen4j endpoints}; found by {@link java.util.ServiceLoader}. The transports it opens share
 * one pool of part arrays, so a run over several endpoints holds no more arrays than parts in flight.
 */
public final class MinioTransportFactory implements S3TransportFactory {
    private final PartBuffers buffers = new PartBuffers();

    /** The service loader's constructor. */
    public MinioTransportFactory() {}

    @Override
    public String backend() {
        return MinioStorageProvider.NAME;
    }

    /** A transport with MinIO's default OkHttp settings ({@link MinioOptions#defaults()}). */
    @Override
    public S3Transport open(S3Settings settings) throws IOException {
        return open(settings, MinioOptions.defaults());
    }

    /**
     * A transport whose OkHttp client is adjusted by {@code options} after dgen4j's own settings.
     *
     * @throws IOException when the CA bundle cannot be read
     */
    public MinioTransport open(S3Settings settings, MinioOptions options) throws IOException {
        return MinioTransport.open(settings, options, buffers);
    }
}
