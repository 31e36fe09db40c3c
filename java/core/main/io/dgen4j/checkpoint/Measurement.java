package io.dgen4j.checkpoint;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * The wall time and resident memory of one save or load: from its start, the process's RSS and
 * the bytes done sampled every {@value #PERIOD_MS} ms, and the kernel's peak RSS of the process
 * reset at the start (so it covers this save or load alone) and read at the end.
 */
final class Measurement implements AutoCloseable {
    private static final long PERIOD_MS = 100;

    private final ProcessMemory.Sampler sampler;
    private final long start;

    /** Starts measuring; {@code bytesDone} is sampled with the RSS. */
    Measurement(LongSupplier bytesDone) {
        ProcessMemory.resetPeak();
        this.start = System.nanoTime();
        this.sampler = new ProcessMemory.Sampler(PERIOD_MS, bytesDone);
    }

    /** Seconds since the start. */
    double seconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    /** The peak resident memory of the whole process since the start. */
    long peakRss() {
        return Math.max(sampler.peakSampled(), ProcessMemory.peakRss());
    }

    /** RSS and bytes done over time. */
    List<ProcessMemory.Sample> samples() {
        return sampler.samples();
    }

    @Override
    public void close() {
        sampler.close();
    }
}
