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

    /**
     * The length of the pieces whose CRC-32C this writer sends with the data (an S3 writer's part
     * size when it sends part checksums), or 0 when it sends none. A caller that generates the data
     * can sum each such piece as it fills it and pass the sums to
     * {@link #write(long, MemorySegment, int[])}, so that the writer does not read the data again.
     */
    default long crc32cPiece() {
        return 0;
    }

    /**
     * {@link #write(long, MemorySegment)} with the CRC-32C of each {@link #crc32cPiece()}-long piece
     * of {@code data} from its start (the last one may be shorter), in order; {@code offset} is a
     * multiple of the piece length. This default ignores the sums.
     *
     * @throws IllegalArgumentException when the sums do not match the pieces of {@code data}
     */
    default void write(long offset, MemorySegment data, int[] crc32cs) throws IOException {
        write(offset, data);
    }

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
