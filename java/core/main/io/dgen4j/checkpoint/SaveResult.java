package io.dgen4j.checkpoint;

import io.dgen4j.storage.EndpointStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a save measured, in small groups; the figures are also read one by one ({@link #totalBytes()},
 * {@link #totalSeconds()}, ...) and as the flat map of {@link #toMap()}.
 *
 * @param method    {@code streaming} or {@code preallocated} (the old method)
 * @param where     where the checkpoint went
 * @param plan      how it was cut and carried
 * @param data      what filled it
 * @param times     where the time went
 * @param memory    what memory it took
 * @param samples   RSS and progress over time
 * @param endpoints per-endpoint figures (S3 backends; empty for files)
 */
public record SaveResult(String method, Where where, Plan plan, Data data, Times times, Memory memory,
                         List<ProcessMemory.Sample> samples, List<EndpointStatistics> endpoints) {

    /**
     * How a save cut and carried the checkpoint.
     *
     * @param totalBytes      checkpoint size
     * @param chunkSize       bytes per write
     * @param chunks          number of writes
     * @param buffers         buffers in the pool (0 for the old method)
     * @param writersInFlight concurrent writes allowed
     */
    public record Plan(long totalBytes, long chunkSize, long chunks, int buffers, int writersInFlight) {}

    /**
     * What filled the checkpoint.
     *
     * @param generator native, java or jdk-random
     * @param seed      the stream's seed (unsigned decimal)
     */
    public record Data(String generator, String seed) {}

    /**
     * Where a save's time went.
     *
     * @param generationSeconds time spent filling buffers (pure fill time, waits excluded; overlapped
     *                          with the writes in a streaming save)
     * @param ioSeconds         time at least one write was in flight
     * @param closeSeconds      fsync, rename and manifest time at the end
     * @param totalSeconds      wall time of the whole save
     * @param phases            the wall time cut into phases that follow one another and add up to
     *                          {@code totalSeconds} (empty when not measured)
     */
    public record Times(double generationSeconds, double ioSeconds, double closeSeconds, double totalSeconds,
                        List<Phase> phases) {
        public Times {
            phases = List.copyOf(phases);
        }

        /** Times without phases. */
        public Times(double generationSeconds, double ioSeconds, double closeSeconds, double totalSeconds) {
            this(generationSeconds, ioSeconds, closeSeconds, totalSeconds, List.of());
        }
    }

    /**
     * The memory a save took.
     *
     * @param peakBuffersInUse most buffers taken at once
     * @param poolBytes        memory the pool may hold
     * @param peakRssBytes     peak resident memory of the whole process during the save
     */
    public record Memory(int peakBuffersInUse, long poolBytes, long peakRssBytes) {}

    public SaveResult {
        samples = List.copyOf(samples);
        endpoints = List.copyOf(endpoints);
    }

    /** Where the checkpoint went. */
    public String target() {
        return where.target();
    }

    /** The backend's one-line description. */
    public String backend() {
        return where.backend();
    }

    /** Whether writes bypassed the page cache. */
    public boolean directIo() {
        return where.directIo();
    }

    /** Checkpoint size. */
    public long totalBytes() {
        return plan.totalBytes();
    }

    /** Bytes per write. */
    public long chunkSize() {
        return plan.chunkSize();
    }

    /** Number of writes. */
    public long chunks() {
        return plan.chunks();
    }

    /** Buffers in the pool (0 for the old method). */
    public int buffers() {
        return plan.buffers();
    }

    /** Concurrent writes allowed. */
    public int writersInFlight() {
        return plan.writersInFlight();
    }

    /** native, java or jdk-random. */
    public String generator() {
        return data.generator();
    }

    /** The stream's seed (unsigned decimal). */
    public String seed() {
        return data.seed();
    }

    /** Time spent filling buffers (pure fill time, waits excluded). */
    public double generationSeconds() {
        return times.generationSeconds();
    }

    /** Time at least one write was in flight. */
    public double ioSeconds() {
        return times.ioSeconds();
    }

    /** fsync, rename and manifest time at the end. */
    public double closeSeconds() {
        return times.closeSeconds();
    }

    /** Wall time of the whole save. */
    public double totalSeconds() {
        return times.totalSeconds();
    }

    /** Most buffers taken at once. */
    public int peakBuffersInUse() {
        return memory.peakBuffersInUse();
    }

    /** Memory the pool may hold. */
    public long poolBytes() {
        return memory.poolBytes();
    }

    /** Peak resident memory of the whole process during the save. */
    public long peakRssBytes() {
        return memory.peakRssBytes();
    }

    /** Generation rate in GB/s (10^9 bytes per second of fill time). */
    public double generationGBps() {
        return rate(totalBytes(), generationSeconds());
    }

    /** I/O rate in GB/s over the time writes were in flight. */
    public double ioGBps() {
        return rate(totalBytes(), ioSeconds());
    }

    /** End-to-end rate in GB/s, fsync included. */
    public double totalGBps() {
        return rate(totalBytes(), totalSeconds());
    }

    /**
     * The wall time cut into phases that follow one another and add up to {@link #totalSeconds()}
     * (start-up, opening the target, the run's own phases, fsync+rename); one {@code other} phase
     * holding the total when they were not measured.
     */
    public List<Phase> phases() {
        return times.phases().isEmpty()
                ? List.of(new Phase("other", "other", totalSeconds(), "not cut into phases")) : times.phases();
    }

    /**
     * Throughput ratio: the time the storage was busy (writes in flight, then fsync+rename) over the
     * wall time, that is the end-to-end rate over the rate storage alone would give: 1.0 means the
     * save cost nothing beyond its storage's time.
     */
    public double throughputRatio() {
        return ioSeconds() > 0 ? (ioSeconds() + closeSeconds()) / totalSeconds() : 0;
    }

    /**
     * Overhead: the percent of the wall time outside the slower stage (generation, or writes plus
     * fsync+rename); what a perfect pipeline, whose slower stage runs all the time, would not spend.
     */
    public double pipelineOverheadPercent() {
        double slowest = Math.max(generationSeconds(), ioSeconds() + closeSeconds());
        return totalSeconds() > 0 ? Math.max(0, (totalSeconds() - slowest) / totalSeconds() * 100) : 0;
    }

    /** {@code generation} or {@code io}: the stage that took longer. */
    public String bottleneck() {
        return generationSeconds() > ioSeconds() ? "generation" : "io";
    }

    /** The figures as an ordered map (for JSON), samples left out. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", method);
        m.put("target", target());
        m.put("backend", backend());
        m.put("directIo", directIo());
        m.put("totalBytes", totalBytes());
        m.put("chunkSize", chunkSize());
        m.put("chunks", chunks());
        m.put("buffers", buffers());
        m.put("writersInFlight", writersInFlight());
        m.put("generator", generator());
        m.put("seed", seed());
        m.put("generationSeconds", round(generationSeconds()));
        m.put("generationGBps", round(generationGBps()));
        m.put("ioSeconds", round(ioSeconds()));
        m.put("ioGBps", round(ioGBps()));
        m.put("closeSeconds", round(closeSeconds()));
        m.put("totalSeconds", round(totalSeconds()));
        m.put("totalGBps", round(totalGBps()));
        m.put("throughputRatio", round(throughputRatio()));
        m.put("pipelineOverheadPercent", round(pipelineOverheadPercent()));
        m.put("bottleneck", bottleneck());
        m.put("peakBuffersInUse", peakBuffersInUse());
        m.put("poolBytes", poolBytes());
        m.put("peakRssBytes", peakRssBytes());
        m.put("phases", phaseMap(phases()));
        if (!endpoints.isEmpty()) {
            m.put("endpoints", endpoints.stream().map(EndpointStatistics::toMap).toList());
        }
        return m;
    }

    /** Phases as {@code {key: seconds}}, in order, rounded like the other figures. */
    static Map<String, Object> phaseMap(List<Phase> phases) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Phase p : phases) {
            m.put(p.key(), round(p.seconds()));
        }
        return m;
    }

    static double rate(long bytes, double seconds) {
        return seconds > 0 ? bytes / seconds / 1e9 : 0;
    }

    static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
