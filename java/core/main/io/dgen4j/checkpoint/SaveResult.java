package io.dgen4j.checkpoint;

import io.dgen4j.storage.EndpointStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a save measured.
 *
 * @param method              {@code streaming} or {@code preallocated} (the old method)
 * @param target              where the checkpoint went
 * @param backend             the backend's one-line description
 * @param directIo            whether writes bypassed the page cache
 * @param totalBytes          checkpoint size
 * @param chunkSize           bytes per write
 * @param chunks              number of writes
 * @param buffers             buffers in the pool (0 for the old method)
 * @param writersInFlight     concurrent writes allowed
 * @param generator           native, java or jdk-random
 * @param seed                the stream's seed (unsigned decimal)
 * @param generationSeconds   time spent filling buffers (pure fill time, waits excluded)
 * @param ioSeconds           time at least one write was in flight
 * @param closeSeconds        fsync, rename and manifest time at the end
 * @param totalSeconds        wall time of the whole save
 * @param peakBuffersInUse    most buffers taken at once
 * @param poolBytes           memory the pool may hold
 * @param peakRssBytes        peak resident memory of the whole process during the save
 * @param samples             RSS and progress over time
 * @param endpoints           per-endpoint figures (S3 backends; empty for files)
 */
public record SaveResult(String method, String target, String backend, boolean directIo, long totalBytes,
                         long chunkSize, long chunks, int buffers, int writersInFlight, String generator, String seed,
                         double generationSeconds, double ioSeconds, double closeSeconds, double totalSeconds,
                         int peakBuffersInUse, long poolBytes, long peakRssBytes,
                         List<ProcessMemory.Sample> samples, List<EndpointStatistics> endpoints) {

    /** Compatibility: a result without per-endpoint figures. */
    public SaveResult(String method, String target, String backend, boolean directIo, long totalBytes,
                      long chunkSize, long chunks, int buffers, int writersInFlight, String generator, String seed,
                      double generationSeconds, double ioSeconds, double closeSeconds, double totalSeconds,
                      int peakBuffersInUse, long poolBytes, long peakRssBytes, List<ProcessMemory.Sample> samples) {
        this(method, target, backend, directIo, totalBytes, chunkSize, chunks, buffers, writersInFlight, generator,
                seed, generationSeconds, ioSeconds, closeSeconds, totalSeconds, peakBuffersInUse, poolBytes,
                peakRssBytes, samples, List.of());
    }

    public SaveResult {
        endpoints = List.copyOf(endpoints);
    }

    /** Generation rate in GB/s (10^9 bytes per second of fill time). */
    public double generationGBps() {
        return rate(totalBytes, generationSeconds);
    }

    /** I/O rate in GB/s over the time writes were in flight. */
    public double ioGBps() {
        return rate(totalBytes, ioSeconds);
    }

    /** End-to-end rate in GB/s, fsync included. */
    public double totalGBps() {
        return rate(totalBytes, totalSeconds);
    }

    /** End-to-end rate over the I/O rate: 1.0 means the pipeline costs nothing over pure I/O. */
    public double throughputRatio() {
        return ioSeconds > 0 ? (ioSeconds + closeSeconds) / totalSeconds : 0;
    }

    /** Percent of wall time not covered by the slower stage (generation or I/O plus close). */
    public double pipelineOverheadPercent() {
        double slowest = Math.max(generationSeconds, ioSeconds + closeSeconds);
        return totalSeconds > 0 ? Math.max(0, (totalSeconds - slowest) / totalSeconds * 100) : 0;
    }

    /** {@code generation} or {@code io}: the stage that took longer. */
    public String bottleneck() {
        return generationSeconds > ioSeconds ? "generation" : "io";
    }

    /** The figures as an ordered map (for JSON), samples left out. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", method);
        m.put("target", target);
        m.put("backend", backend);
        m.put("directIo", directIo);
        m.put("totalBytes", totalBytes);
        m.put("chunkSize", chunkSize);
        m.put("chunks", chunks);
        m.put("buffers", buffers);
        m.put("writersInFlight", writersInFlight);
        m.put("generator", generator);
        m.put("seed", seed);
        m.put("generationSeconds", round(generationSeconds));
        m.put("generationGBps", round(generationGBps()));
        m.put("ioSeconds", round(ioSeconds));
        m.put("ioGBps", round(ioGBps()));
        m.put("closeSeconds", round(closeSeconds));
        m.put("totalSeconds", round(totalSeconds));
        m.put("totalGBps", round(totalGBps()));
        m.put("throughputRatio", round(throughputRatio()));
        m.put("pipelineOverheadPercent", round(pipelineOverheadPercent()));
        m.put("bottleneck", bottleneck());
        m.put("peakBuffersInUse", peakBuffersInUse);
        m.put("poolBytes", poolBytes);
        m.put("peakRssBytes", peakRssBytes);
        if (!endpoints.isEmpty()) {
            m.put("endpoints", endpoints.stream().map(EndpointStatistics::toMap).toList());
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
