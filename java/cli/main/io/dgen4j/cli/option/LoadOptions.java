package io.dgen4j.cli.option;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.storage.FileOptions;
import io.dgen4j.unit.ByteSize;
import java.util.function.LongConsumer;
import picocli.CommandLine.Option;

/**
 * The options of {@code load}: only what a load uses. The stream's spec (size, seed, ratios,
 * block size) comes from the checkpoint's manifest, so none of the data options is offered.
 */
public final class LoadOptions {
    @Option(names = "--chunk", defaultValue = StreamingCheckpoint.DEFAULT_CHUNK, converter = ByteSizeConverter.class,
            description = "Bytes per read, a multiple of 4KiB up to 2GiB (default ${DEFAULT-VALUE}).")
    long chunk;

    @Option(names = "--readers", defaultValue = "" + StreamingCheckpoint.DEFAULT_READERS,
            description = "Reads in flight, 1 to " + Limits.MAX_IN_FLIGHT + " (default ${DEFAULT-VALUE}).")
    int readers;

    @Option(names = "--buffers", defaultValue = "" + StreamingCheckpoint.DEFAULT_BUFFERS,
            description = "Buffers in the pool, at most " + Limits.MAX_BUFFERS + " (at least one per reader is used); "
                    + "memory is max(buffers, readers) x chunk, one chunk more for a verified load from the network "
                    + "(default ${DEFAULT-VALUE}).")
    int buffers;

    @Option(names = "--threads", defaultValue = "0",
            description = "Threads regenerating the stream for --verify; 0 = the CPUs this process may use (default).")
    public int threads;

    @Option(names = "--fadvise", defaultValue = "none",
            description = "Page-cache advice when reads are buffered: none, sequential, dontneed (default ${DEFAULT-VALUE}).")
    String fadvise;

    /**
     * Checks every count and the pool's memory (with {@code verify}, the one chunk more a verified
     * load from the network takes); call before anything is read.
     */
    public void check(boolean verify) {
        Limits.chunk(chunk);
        Limits.count("--readers", readers, 1, Limits.MAX_IN_FLIGHT);
        Limits.count("--buffers", buffers, 1, Limits.MAX_BUFFERS);
        Limits.threads(threads);
        int pool = Math.max(buffers, readers + (verify ? 1 : 0));
        Limits.memory(pool * chunk, String.format("the buffer pool (%d buffers for --readers %d x --chunk %s)", pool,
                readers, ByteSize.format(chunk)), "use a smaller --chunk or fewer --readers");
    }

    StreamingCheckpoint build(LongConsumer progress) {
        return builder(progress).build();
    }

    /** The checkpoint's builder, for adding backend options. */
    public StreamingCheckpoint.Builder builder(LongConsumer progress) {
        check(false); // the least any load takes: `load` checked with its --verify first
        FileOptions.Fadvise advice = CheckpointOptions.fadvise(fadvise);
        return StreamingCheckpoint.builder().chunkSize(chunk).buffers(buffers).readersInFlight(readers)
                .threads(threads).backendOptions(FileOptions.defaults().withFadvise(advice)).progress(progress)
                .resetPeakRss(true); // the CLI owns its process: the peak RSS of each load from its start
    }
}
