package io.dgen4j.checkpoint;

import java.util.List;
import java.util.function.LongSupplier;

/**
 * The wall time and resident memory of one save or load: from its start, the process's RSS and
 * the bytes done sampled every {@value #PERIOD_MS} ms, and, where the caller asked for it, the
 * kernel's peak RSS of the process, reset at the start (so it covers this save or load alone) and
 * read at the end.
 */
final class Measurement implements AutoCloseable {
    /** Often enough to see each chunk of a fast save (a 64 MiB chunk at 3 GB/s takes 22 ms). */
    static final long PERIOD_MS = 10;

    private final ProcessMemory.Sampler sampler;
    /** Whether the kernel's peak was reset at the start, and so covers this save or load alone. */
    private final boolean kernelPeak;
    private final long start;

    /**
     * Starts measuring; {@code bytesDone} is sampled with the RSS. With {@code resetPeak}, the
     * kernel's peak RSS of this process is reset first (a write to /proc/self/clear_refs that every
     * other reader of that peak in the process sees too).
     */
    Measurement(boolean resetPeak, LongSupplier bytesDone) {
        this.kernelPeak = resetPeak && ProcessMemory.resetPeak();
        this.start = System.nanoTime();
        this.sampler = new ProcessMemory.Sampler(PERIOD_MS, bytesDone);
    }

    /** Seconds since the start. */
    double seconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * The peak resident memory of the whole process since the start: the kernel's where it was
     * reset, else the highest sample (the kernel's covers the life of the process).
     */
    long peakRss() {
        return Math.max(sampler.peakSampled(), kernelPeak ? ProcessMemory.peakRss() : 0);
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
