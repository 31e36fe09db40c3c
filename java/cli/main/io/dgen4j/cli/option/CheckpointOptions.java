package io.dgen4j.cli.option;

import io.dgen4j.checkpoint.DataSource;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.FileOptions;
import io.dgen4j.unit.ByteSize;
import java.util.Locale;
import java.util.function.LongConsumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The data and pipeline options of the commands that write checkpoints: save, compare and quickstart. */
public final class CheckpointOptions {
    @Option(names = "--chunk", defaultValue = StreamingCheckpoint.DEFAULT_CHUNK, converter = ByteSizeConverter.class,
            description = "Bytes per write, a multiple of 4KiB up to 2GiB (default ${DEFAULT-VALUE}).")
    public long chunk;

    @Option(names = "--buffers", defaultValue = "" + StreamingCheckpoint.DEFAULT_BUFFERS,
            description = "Buffers in the pool, more than --writers, at most " + Limits.MAX_BUFFERS
                    + "; memory is buffers x chunk (default ${DEFAULT-VALUE}).")
    public int buffers;

    @Option(names = "--writers", defaultValue = "" + StreamingCheckpoint.DEFAULT_WRITERS,
            description = "Writes in flight, 1 to " + Limits.MAX_IN_FLIGHT + " (default ${DEFAULT-VALUE}).")
    public int writers;

    @Mixin
    public DataOptions data;

    @Option(names = "--generator", description = "native, java, jdk-random or auto (default; or DGEN4J_DATA_GEN).")
    String generator;

    @Option(names = "--fadvise", defaultValue = "none",
            description = "Page-cache advice when I/O is buffered: none, sequential, dontneed (default ${DEFAULT-VALUE}).")
    String fadvise;

    @Option(names = "--no-fsync", description = "Skip fsync before the rename (not durable; for experiments).")
    boolean noFsync;

    @Option(names = "--no-preallocate", description = "Do not reserve the file's space with fallocate first.")
    boolean noPreallocate;

    DataSource source(Environment env) {
        String g = generator != null ? generator : env.get("DGEN4J_DATA_GEN");
        return g == null || g.isBlank() ? DataSource.AUTO : DataSource.parse(g);
    }

    /** Checks every count and the pool's memory; call before anything is written. */
    public void check() {
        Limits.chunk(chunk);
        Limits.count("--writers", writers, 1, Limits.MAX_IN_FLIGHT);
        Limits.count("--buffers", buffers, 1, Limits.MAX_BUFFERS);
        Limits.threads(data.threads);
        Limits.memory(buffers * chunk, String.format("the buffer pool (--buffers %d x --chunk %s)", buffers,
                ByteSize.format(chunk)), "use a smaller --chunk or fewer --buffers");
    }

    public StreamingCheckpoint build(LongConsumer progress, Environment env) {
        return builder(progress, env).build();
    }

    /**
     * The checkpoint's builder, for commands that add backend options. Commands that load what they
     * saved (quickstart, backends) read with as many in flight as they wrote. Each save and load
     * measures the process's peak RSS from its start (the CLI owns its process). Without {@code --generator},
     * {@code env}'s {@code DGEN4J_DATA_GEN} picks the generator.
     */
    public StreamingCheckpoint.Builder builder(LongConsumer progress, Environment env) {
        check();
        DataSpec.Builder spec = data.spec();
        FileOptions files = fileOptions();
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(chunk).buffers(buffers)
                .writersInFlight(writers).readersInFlight(writers).spec(spec.build()).source(source(env))
                .threads(data.threads).backendOptions(files).progress(progress).resetPeakRss(true);
        return env.storage() == null ? b : b.storage(env.storage()); // the command's session
    }

    /** The file backend's options these give: fadvise, fsync (unless --no-fsync), preallocation. */
    public FileOptions fileOptions() {
        return FileOptions.defaults().withFadvise(fadvise(fadvise)).withFsync(!noFsync).withPreallocate(!noPreallocate);
    }

    static FileOptions.Fadvise fadvise(String value) {
        try {
            return FileOptions.Fadvise.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--fadvise must be none, sequential or dontneed, got '" + value + "'");
        }
    }
}
