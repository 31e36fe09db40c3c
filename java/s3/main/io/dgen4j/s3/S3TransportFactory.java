package io.dgen4j.s3;

import java.io.IOException;

/**
 * Makes a backend's {@link S3Transport} for one endpoint; each S3 backend registers one with
 * {@code ServiceLoader} ({@code provides io.dgen4j.s3.S3TransportFactory}), under the same name as
 * its storage provider, so that the driver and {@code dgen4j endpoints} can reach every endpoint
 * through any backend.
 */
public interface S3TransportFactory {
    /** The backend's name, as its storage provider's ({@code aws}, {@code crt}, {@code minio}). */
    String backend();

    /**
     * A transport for the one endpoint of {@code settings} ({@link S3Settings#endpoint()}; AWS's own
     * when empty). Creating the client may read files (a CA bundle) but sends no request.
     *
     * @throws IOException when the client cannot be created (unreadable CA bundle, bad TLS setup)
     */
    S3Transport open(S3Settings settings) throws IOException;
}
