package io.dgen4j.checkpoint;

import io.dgen4j.storage.EndpointStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a load measured.
 *
 * @param target        what was read
 * @param backend       the backend's one-line description
 * @param directIo      whether reads bypassed the page cache
 * @param totalBytes    bytes read
 * @param chunkSize     bytes per read
 * @param readersInFlight concurrent reads
 * @param verified      whether every byte was compared with the regenerated stream
 * @param verifier      what regenerated the stream: {@code native}, {@code java-vector}, {@code java-scalar},
 *                      or {@code none} without verification
 * @param readSeconds   time at least one read was in flight
 * @param verifySeconds time spent regenerating and comparing (overlapped with the reads)
 * @param totalSeconds  wall time
 * @param peakBuffersInUse most buffers taken at once
 * @param peakRssBytes  peak resident memory of the process during the load
 * @param endpoints     per-endpoint figures (S3 backends; empty for files)
 */
public record LoadResult(String target, String backend, boolean directIo, long totalBytes, long chunkSize,
                         int readersInFlight, boolean verified, String verifier, double readSeconds, double verifySeconds,
                         double totalSeconds, int peakBuffersInUse, long peakRssBytes,
                         List<EndpointStatistics> endpoints) {

    /** Compatibility: a result without per-endpoint figures. */
    public LoadResult(String target, String backend, boolean directIo, long totalBytes, long chunkSize,
                      int readersInFlight, boolean verified, String verifier, double readSeconds, double verifySeconds,
                      double totalSeconds, int peakBuffersInUse, long peakRssBytes) {
        this(target, backend, directIo, totalBytes, chunkSize, readersInFlight, verified, verifier, readSeconds,
                verifySeconds, totalSeconds, peakBuffersInUse, peakRssBytes, List.of());
    }

    public LoadResult {
        endpoints = List.copyOf(endpoints);
    }

    /** Read rate in GB/s over the time reads were in flight. */
    public double readGBps() {
        return SaveResult.rate(totalBytes, readSeconds);
    }

    /** End-to-end rate in GB/s, verification included. */
    public double totalGBps() {
        return SaveResult.rate(totalBytes, totalSeconds);
    }

    /** The figures as an ordered map (for JSON). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("target", target);
        m.put("backend", backend);
        m.put("directIo", directIo);
        m.put("totalBytes", totalBytes);
        m.put("chunkSize", chunkSize);
        m.put("readersInFlight", readersInFlight);
        m.put("verified", verified);
        m.put("verifier", verifier);
        m.put("readSeconds", SaveResult.round(readSeconds));
        m.put("readGBps", SaveResult.round(readGBps()));
        m.put("verifySeconds", SaveResult.round(verifySeconds));
        m.put("totalSeconds", SaveResult.round(totalSeconds));
        m.put("totalGBps", SaveResult.round(totalGBps()));
        m.put("peakBuffersInUse", peakBuffersInUse);
        m.put("peakRssBytes", peakRssBytes);
        if (!endpoints.isEmpty()) {
            m.put("endpoints", endpoints.stream().map(EndpointStatistics::toMap).toList());
        }
        return m;
    }
}
