package io.dgen4j.cli;

import io.dgen4j.checkpoint.DataSource;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.FileOptions;
import java.util.Locale;
import java.util.function.LongConsumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The data and pipeline options shared by save, load, compare and quickstart. */
final class CheckpointOptions {
    @Option(names = "--chunk", defaultValue = "32MiB", converter = ByteSize.class,
            description = "Bytes per write, a multiple of 4KiB (default ${DEFAULT-VALUE}).")
    long chunk;

    @Option(names = "--buffers", defaultValue = "" + StreamingCheckpoint.DEFAULT_BUFFERS,
            description = "Buffers in the pool; memory is buffers x chunk (default ${DEFAULT-VALUE}).")
    int buffers;

    @Option(names = "--writers", defaultValue = "" + StreamingCheckpoint.DEFAULT_WRITERS,
            description = "Writes (and reads) in flight (default ${DEFAULT-VALUE}).")
    int writers;

    @Mixin
    DataOptions data;

    @Option(names = "--generator", description = "native, java, jdk-random or auto (default; or DGEN4J_DATA_GEN).")
    String generator;

    @Option(names = "--fadvise", defaultValue = "none",
            description = "Page-cache advice when I/O is buffered: none, sequential, dontneed (default ${DEFAULT-VALUE}).")
    String fadvise;

    @Option(names = "--no-fsync", description = "Skip fsync before the rename (not durable; for experiments).")
    boolean noFsync;

    @Option(names = "--no-preallocate", description = "Do not reserve the file's space with fallocate first.")
    boolean noPreallocate;

    DataSource source() {
        String g = generator != null ? generator : System.getenv("DGEN4J_DATA_GEN");
        return g == null || g.isBlank() ? DataSource.AUTO : DataSource.parse(g);
    }

    StreamingCheckpoint build(LongConsumer progress) {
        DataSpec.Builder spec = data.spec();
        FileOptions.Fadvise advice;
        try {
            advice = FileOptions.Fadvise.valueOf(fadvise.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--fadvise must be none, sequential or dontneed, got " + fadvise);
        }
        FileOptions files = FileOptions.defaults().withFadvise(advice).withFsync(!noFsync).withPreallocate(!noPreallocate);
        return StreamingCheckpoint.builder().chunkSize(chunk).buffers(buffers).writersInFlight(writers)
                .spec(spec.build()).source(source()).threads(data.threads).fileOptions(files).progress(progress).build();
    }
}
