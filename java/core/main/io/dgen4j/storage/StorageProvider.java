package io.dgen4j.storage;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;

/**
 * A storage backend: opens writers and readers of targets of its URI schemes. Backends are found
 * with {@link java.util.ServiceLoader} ({@code META-INF/services/io.dgen4j.storage.StorageProvider}
 * on the class path, {@code provides} on the module path); {@link StorageProviders} picks one per
 * target. The file backend registers like any other.
 *
 * {@snippet :
 * StorageProvider p = StorageProviders.forTarget(StorageTarget.parse("/nvme/ckpt.bin"), Optional.empty());
 * try (StorageWriter w = p.openWriter(new WriteRequest(target, size, metadata, 4, StorageOptions.empty()))) {
 *     w.write(0, chunk);   // several in flight, any order
 *     w.commit();          // durable and visible, with its metadata, atomically
 * }
 * }
 */
public interface StorageProvider {
    /** The backend's short name ({@code file}; {@code aws}, {@code crt}, {@code minio}). */
    String name();

    /** The URI schemes it serves, lower case ({@code file} also serves plain paths). */
    Set<String> schemes();

    /** Preference among available backends of one scheme when none is named: higher wins. */
    default int priority() {
        return 0;
    }

    /** Why this backend cannot be used here (its client library is missing, say); empty when it can. */
    default Optional<String> unavailable() {
        return Optional.empty();
    }

    /**
     * Checks, without opening, creating or sending anything, that this backend can take {@code request}
     * (its size, its typed {@link WriteRequest#chunkSize()}, the backend's limits): what {@link #openWriter}
     * would refuse before its first I/O. A run of many saves calls it for each before the first.
     * The default checks nothing.
     *
     * @throws IllegalArgumentException naming the limit
     */
    default void checkWrite(WriteRequest request) {
    }

    /**
     * Opens a writer: nothing is visible at the target until {@link StorageWriter#commit()}, and then
     * the data and its metadata are visible together.
     *
     * @throws IOException with the target when it cannot be written (missing bucket or directory,
     *                     credentials, another save writing it)
     */
    StorageWriter openWriter(WriteRequest request) throws IOException;

    /**
     * Opens a reader of a committed object and of the metadata saved with it.
     *
     * @throws java.nio.file.NoSuchFileException when there is no object at the target
     */
    StorageReader openReader(ReadRequest request) throws IOException;

    /** Removes the object at {@code target} and its metadata, if there is one; returns whether there was. */
    boolean delete(StorageTarget target, StorageOptions options) throws IOException;
}
