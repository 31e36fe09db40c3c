package io.dgen4j.s3.spi;

import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.storage.StorageOptions;
import java.util.Optional;

/**
 * What an S3 client module supplies (the one thing it registers with {@link java.util.ServiceLoader}:
 * {@code provides io.dgen4j.s3.spi.S3ClientProvider}): its name, its preference, whether it can be
 * used here, and its transports. The s3 module's one storage provider ({@code io.dgen4j.s3.S3StorageProvider})
 * does the rest for every client alike (settings, credentials, CA bundles, part plans, the endpoint pools,
 * multipart uploads and ranged reads), and {@code dgen4j endpoints} probes through the same transports.
 */
public interface S3ClientProvider {
    /** The backend's name, as {@code --backend} and {@code DGEN4J_S3_BACKEND} name it ({@code aws}, {@code crt}, {@code minio}). */
    String name();

    /** Preference among the available S3 clients when none is named: higher wins. */
    int priority();

    /** Why this client cannot be used here (its native library does not load, say); empty when it can. */
    default Optional<String> unavailable() {
        return Optional.empty();
    }

    /**
     * The transports for requests with these storage options (where the client finds its own, such as
     * hooks into its library) and room for {@code requests} requests in flight per endpoint (0: none
     * known, the client's default, as for {@code dgen4j endpoints}). Equal options and counts give factories
     * equal by value, so that the provider's pools of clients are shared by equal requests. Sends nothing.
     */
    S3TransportFactory transports(StorageOptions options, int requests);

    /**
     * The largest part this client uploads at a cost per byte that does not grow with the part (S3's
     * 5 GiB where none does). A save whose part size is not set sends each chunk as one part, or as
     * equal whole parts no larger than this where S3's limits allow (see the crt client).
     */
    default long largestEfficientPart() {
        return 5L << 30;
    }

    /**
     * Whether the storage provider serves saves and loads through this client: true for every client
     * library; false for one that only answers what {@code dgen4j endpoints} asks (HEAD bucket), such as
     * a test's probe.
     */
    default boolean stores() {
        return true;
    }
}
