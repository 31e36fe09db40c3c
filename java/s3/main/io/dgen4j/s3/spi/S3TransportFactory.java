package io.dgen4j.s3.spi;

import io.dgen4j.s3.S3Settings;
import java.io.IOException;

/**
 * Makes a backend's {@link S3Transport} for one endpoint; each S3 backend registers one with
 * {@code ServiceLoader} ({@code provides io.dgen4j.s3.spi.S3TransportFactory}), under the same name as
 * its storage provider, so that the driver and {@code dgen4j endpoints} can reach every endpoint
 * through any backend.
 *
 * <p>For a set of endpoints the driver asks for a {@link Group}: the transports of one set share
 * what their client library lets them share (one HTTP client, event loops, connection pool, TLS
 * context), so that an endpoint costs a few KiB of heap rather than a client of its own, and each
 * endpoint's transport is made on its first use.
 */
public interface S3TransportFactory {
    /** The backend's name, as its storage provider's ({@code aws}, {@code crt}, {@code minio}). */
    String backend();

    /**
     * A transport for the one endpoint of {@code settings} ({@link S3Settings#endpoint()}; AWS's own
     * when empty), with a client of its own. Creating the client may read files (a CA bundle) but
     * sends no request.
     *
     * @throws IOException when the client cannot be created (unreadable CA bundle, bad TLS setup)
     */
    S3Transport open(S3Settings settings) throws IOException;

    /**
     * What the transports of every endpoint of {@code settings} ({@link S3Settings#perEndpoint()})
     * share, made now, so that a setting the client refuses fails here, before any request; each
     * endpoint's transport is then {@link Group#open opened} from it, cheaply. The default shares
     * nothing: each transport is {@link #open(S3Settings)}'s.
     *
     * @throws IOException when the shared client cannot be created (unreadable CA bundle, no
     *                     credentials where the client needs them, a native library that does not load)
     */
    default Group group(S3Settings settings) throws IOException {
        return new Group() {
            @Override
            public S3Transport open(S3Settings oneEndpoint) throws IOException {
                return S3TransportFactory.this.open(oneEndpoint);
            }

            @Override
            public void close() {
                // nothing shared
            }
        };
    }

    /**
     * The transports of one endpoint set and what they share. Thread-safe. The caller closes every
     * transport it opened, then the group.
     */
    interface Group extends AutoCloseable {
        /**
         * The transport of one endpoint of the group's set ({@code oneEndpoint}: the group's settings
         * with that endpoint alone, an element of its {@link S3Settings#perEndpoint()}). Sends no
         * request.
         *
         * @throws IOException when the transport cannot be made
         */
        S3Transport open(S3Settings oneEndpoint) throws IOException;

        /** Releases what the transports share (connections, threads); their requests still in flight fail. */
        @Override
        void close();
    }
}
