package io.dgen4j.checkpoint;

import io.dgen4j.storage.StorageWriter;
import java.io.IOException;
import java.util.List;

/**
 * What a save runs between opening its writer and committing it: every byte of the stream,
 * written ({@link SavePipeline}, the streaming method; {@link PreallocatedSave}, the old one), and
 * what it measured.
 */
interface SaveRun {
    /** Writes every byte of {@code filler}'s stream through {@code writer}; throws the first failure. */
    void run(DataSource.Filler filler, StorageWriter writer) throws IOException;

    /** {@code streaming} or {@code preallocated}. */
    String method();

    /** Writes in flight at most. */
    int inFlight();

    /** Buffers in its pool (0 without one). */
    int buffers();

    /** Most buffers taken at once. */
    int peakBuffersInUse();

    /** Memory its buffers may hold. */
    long poolBytes();

    /** Bytes written so far (read by the memory sampler while it runs). */
    long written();

    /** Time spent filling buffers with the stream (pure fill time, waits excluded). */
    double generationSeconds();

    /** Time at least one write was in flight. */
    double ioSeconds();

    /**
     * The {@link #run} that took {@code runSeconds} (measured by the caller, around it) cut into
     * phases that follow one another and add up to {@code runSeconds}.
     */
    List<Phase> phases(double runSeconds);
}
