package io.dgen4j.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A storage backend: opens writers and readers of targets of its URI schemes. Backends are found
 * with {@link java.util.ServiceLoader} ({@code META-INF/services/io.dgen4j.storage.StorageProvider}
 * on the class path, {@code provides} on the module path), afresh for each {@link Storage} session,
 * which {@linkplain #open opens} them with its environment, picks one per target and
 * {@linkplain #close closes} them. The file backend registers like any other.
 *
 * {@snippet :
 * try (Storage storage = Storage.open();
 *      StorageWriter w = storage.forTarget(target, Optional.empty())
 *              .openWriter(new WriteRequest(target, size, metadata, 4, StorageOptions.empty()))) {
 *     w.write(0, chunk);   // several in flight, any order
 *     w.commit();          // durable and visible, with its metadata, atomically
 * }
 * }
 */
public interface StorageProvider extends AutoCloseable {
    /**
     * Called once by the {@link Storage} session that loaded this provider, before any other use:
     * where the provider reads settings that a request does not carry (S3 credentials and endpoints,
     * a {@code .env} file). A provider that no session opened reads the process's. The default
     * ignores them.
     */
    default void open(Map<String, String> environment, Path workingDirectory) {
    }

    /**
     * Releases what this provider opened (clients, connections, background aborts); called by its
     * session's {@link Storage#close()}. The default holds nothing.
     */
    @Override
    default void close() {
    }

    /**
     * Writes a failure left open that this provider still tries to abort in the background (as
     * {@code upload <id> of s3://b/k}); empty by default.
     */
    default List<String> uploadsLeftOpen() {
        return List.of();
    }

    /** For each of {@link #uploadsLeftOpen()}, the command that aborts it by hand; empty by default. */
    default List<String> abortCommands() {
        return List.of();
    }

    /** The backend's short name ({@code file}; {@code aws}, {@code crt}, {@code minio}). */
    String name();

    /** The URI schemes it serves, lower case ({@code file} also serves plain paths). */
    Set<String> schemes();

    /** Preference among available backends of one scheme when none is named: higher wins. */
    default int priority() {
        return 0;
    }

    /**
     * The backends this provider offers, each under a name of its own: itself alone, or (the one
     * {@code s3://} provider) one per installed client library. {@link Storage} lists and
     * chooses among these.
     */
    default List<StorageProvider> backends() {
        return List.of(this);
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
