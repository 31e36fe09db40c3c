package io.dgen4j.cli.option;

import io.dgen4j.gen.DataSpec;
import picocli.CommandLine.Option;

/** The stream options every data-producing command takes: dedup, compression, block size, seed, threads. */
public final class DataOptions {
    @Option(names = "--dedup", defaultValue = "1", description = "Dedup ratio, >= 1 (default ${DEFAULT-VALUE}).")
    double dedup;

    @Option(names = "--compress", defaultValue = "1", description = "Compression ratio, 1 to 146.2857 (1024/7, the format's maximum) (default ${DEFAULT-VALUE}).")
    double compress;

    @Option(names = "--block-size", defaultValue = "" + DataSpec.DEFAULT_BLOCK_SIZE, converter = ByteSizeConverter.class,
            description = "Dedup block size, a power of two in [512, 64MiB] (default ${DEFAULT-VALUE}).")
    long blockSize;

    @Option(names = "--seed", converter = SeedConverter.class,
            description = "Seed (unsigned 64-bit); default: a random seed, printed.")
    public Long seed;

    @Option(names = "--threads", defaultValue = "0",
            description = "Generator threads; 0 = the CPUs this process may use (default).")
    public int threads;

    /** A spec builder holding these options (size not set). */
    public DataSpec.Builder spec() {
        if (blockSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("block size must be a power of two in [512, 67108864] bytes, got " + blockSize);
        }
        DataSpec.Builder b = DataSpec.builder().dedupRatio(dedup).compressRatio(compress).blockSize((int) blockSize);
        if (seed != null) {
            b.seed(seed);
        }
        return b;
    }
}
