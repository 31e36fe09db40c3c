package io.dgen4j.storage;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * Writes one object (a file, an S3 object) from native segments, with several writes in
 * flight. Nothing is visible under the final name until {@link #commit()} returns.
 */
public interface StorageWriter extends AutoCloseable {
    /** Writes {@code data} at {@code offset}; callable from several threads at once. */
    void write(long offset, MemorySegment data) throws IOException;

    /** Makes all written data durable and visible under the final name. */
    void commit() throws IOException;

    /** Removes everything written so far; idempotent, never throws. */
    void abort();

    /**
     * What is under the final name now, for a failure's message: e.g. "the previous checkpoint is
     * intact", "nothing was left", "the new checkpoint is in place".
     */
    String state();

    /** Whether writes bypass the page cache (O_DIRECT). */
    boolean directIo();

    /** A one-line description for results, e.g. {@code file /x (O_DIRECT, fsync)}. */
    String description();

    /** Per-endpoint figures of this write so far (empty for backends with one endpoint, like files). */
    default java.util.List<EndpointStatistics> endpointStatistics() {
        return java.util.List.of();
    }

    /** What its open took, where the backend timed it (client start, first requests); {@link OpenTimes#NONE} otherwise. */
    default OpenTimes openTimes() {
        return OpenTimes.NONE;
    }

    /** How a report labels what {@link #commit()} does, in a word or two (a file's: fsync+rename). */
    default String commitLabel() {
        return "fsync+rename";
    }

    /** What {@link #commit()} does, in a few words, for a report. */
    default String commitWhat() {
        return "commit: fsync, manifest, renames, directory fsyncs";
    }

    /** Aborts unless committed, and releases the target. */
    @Override
    void close();
}
