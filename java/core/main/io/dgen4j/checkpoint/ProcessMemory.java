package io.dgen4j.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Resident memory of this whole JVM process, read from {@code /proc/self/statm} (RSS: the sampler reads it
 * every 10 ms, and the kernel writes statm's one line of numbers for a fraction of what the ~55 lines of
 * {@code status} cost it and us) and {@code /proc/self/status} (the kernel's own peak, VmHWM), and a sampler
 * that records RSS and progress over time.
 */
public final class ProcessMemory {
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path STATM = Path.of("/proc/self/statm");
    /** Bytes per page of statm's counts: derived once from VmRSS (4 KiB on x86-64, 4-64 KiB on aarch64). */
    private static final long PAGE_BYTES = pageBytes();
    private static final Path CLEAR_REFS = Path.of("/proc/self/clear_refs");

    private ProcessMemory() {}

    /** Current resident set size in bytes (0 where /proc is not available). */
    public static long rss() {
        long pages = residentPages();
        return pages > 0 ? pages * PAGE_BYTES : field("VmRSS:");
    }

    /** The kernel's peak resident set size of this process in bytes (since start or the last reset). */
    public static long peakRss() {
        return field("VmHWM:");
    }

    /**
     * Resets the kernel's peak RSS to the current RSS (writes 5 to /proc/self/clear_refs), so the
     * next {@link #peakRss()} covers only what follows. Returns false where the kernel refuses.
     */
    public static boolean resetPeak() {
        try {
            Files.writeString(CLEAR_REFS, "5");
            return true;
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /** statm's second number, resident pages (0 where it cannot be read). */
    private static long residentPages() {
        try {
            return residentPages(ByteBuffer.wrap(Files.readAllBytes(STATM)));
        } catch (IOException e) {
            return 0;
        }
    }

    /** The second number of a statm line from its position to its limit: resident pages. */
    private static long residentPages(ByteBuffer line) {
        int i = line.position();
        while (i < line.limit() && line.get(i) != ' ') {
            i++;
        }
        long pages = 0;
        for (i++; i < line.limit() && line.get(i) >= '0' && line.get(i) <= '9'; i++) {
            pages = pages * 10 + (line.get(i) - '0');
        }
        return pages;
    }

    /**
     * statm kept open for a sampler: each reading is one pread at offset 0 (the kernel writes the line
     * anew for every read from the start), where {@link #rss()} opens, reads and closes the file and
     * allocates for it. At 100 readings a second the difference was 1.6 % of a CPU (async-profiler:
     * 0.24 of an aws save's 5 CPU s for 3 GiB went to the sampler).
     */
    private static final class Statm implements AutoCloseable {
        private final FileChannel channel;
        private final ByteBuffer line = ByteBuffer.allocateDirect(128);

        Statm() {
            FileChannel c;
            try {
                c = FileChannel.open(STATM, StandardOpenOption.READ);
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                c = null;
            }
            channel = c;
        }

        /** This process's RSS in bytes, as {@link #rss()} reads it. */
        long rss() {
            long pages = 0;
            if (channel != null) {
                line.clear();
                try {
                    channel.read(line, 0);
                    pages = residentPages(line.flip());
                } catch (IOException e) {
                    pages = 0;
                }
            }
            return pages > 0 ? pages * PAGE_BYTES : ProcessMemory.rss();
        }

        @Override
        public void close() {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException e) {
                    // a read-only /proc file: nothing was written that a failed close could lose
                }
            }
        }
    }

    /** The page size statm counts in: VmRSS over resident pages, rounded to a power of two (4 KiB if unknown). */
    private static long pageBytes() {
        long pages = residentPages();
        long bytes = field("VmRSS:");
        if (pages <= 0 || bytes <= 0) {
            return 4096;
        }
        long ratio = Math.round((double) bytes / pages);
        long page = Long.highestOneBit(Math.max(4096, ratio));
        return ratio - page > page / 2 ? page * 2 : page;
    }

    private static long field(String name) {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith(name)) {
                    String[] parts = line.substring(name.length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    /** One sample: seconds since start, RSS bytes, bytes done. */
    public record Sample(double seconds, long rssBytes, long bytesDone) {}

    /**
     * Samples RSS and a progress counter on a daemon thread until closed, in bounded memory: once it
     * holds {@value #MAX_SAMPLES} samples it drops every other one and samples half as often, so a
     * run of any length keeps its whole course (at a resolution that halves each time) in a few
     * hundred KiB. At every 10 ms without a bound, a 1 TiB save at 200 MB/s would have kept 540,000
     * samples, ~26 MB of a 96 MiB heap, twice over while a result copies them.
     */
    public static final class Sampler implements AutoCloseable {
        /** Most samples kept: 41 s of them at every 10 ms before the first thinning. */
        static final int MAX_SAMPLES = 4096;

        private final List<Sample> samples = new ArrayList<>();
        private final int maxSamples;
        private final AtomicLong peak = new AtomicLong();
        private final Thread thread;
        private final long start = System.nanoTime();
        private volatile boolean running = true;

        /** Starts sampling every {@code periodMillis} ms (less often once {@value #MAX_SAMPLES} are kept). */
        public Sampler(long periodMillis, LongSupplier bytesDone) {
            this(periodMillis, bytesDone, MAX_SAMPLES);
        }

        /** As above, keeping at most {@code maxSamples} (at least 2). */
        Sampler(long periodMillis, LongSupplier bytesDone, int maxSamples) {
            if (maxSamples < 2) {
                throw new IllegalArgumentException("maxSamples must be >= 2, got " + maxSamples);
            }
            this.maxSamples = maxSamples;
            thread = Thread.ofPlatform().daemon().name("dgen4j-rss-sampler").start(() -> {
                long period = periodMillis;
                try (Statm statm = new Statm()) {
                    while (running) {
                        try {
                            if (take(statm, bytesDone)) {
                                period *= 2;
                            }
                        } catch (OutOfMemoryError e) {
                            // The heap is full: the run that filled it fails with its own error, and a
                            // sampler's trace on the console would only hide it. Sampling stops here.
                            return;
                        }
                        try {
                            Thread.sleep(period);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            });
        }

        /** Takes one sample; true when that filled the samples and every other one was dropped. */
        private boolean take(Statm statm, LongSupplier bytesDone) {
            long rss = statm.rss();
            if (rss == 0 && !running) {
                return false; // the read that close() interrupted: no reading, not a process without memory
            }
            peak.accumulateAndGet(rss, Math::max);
            synchronized (samples) {
                samples.add(new Sample((System.nanoTime() - start) / 1e9, rss, bytesDone.getAsLong()));
                if (samples.size() < maxSamples) {
                    return false;
                }
                // keep the first, third, ...: evenly spaced at twice the period, the start kept
                int kept = 0;
                for (int i = 0; i < samples.size(); i += 2) {
                    samples.set(kept++, samples.get(i));
                }
                samples.subList(kept, samples.size()).clear();
                return true;
            }
        }

        /** Highest RSS sampled. */
        public long peakSampled() {
            return peak.get();
        }

        /** The samples so far. */
        public List<Sample> samples() {
            synchronized (samples) {
                return List.copyOf(samples);
            }
        }

        @Override
        public void close() {
            running = false;
            thread.interrupt();
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
