package io.dgen4j.checkpoint;

import io.dgen4j.storage.EndpointStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a load measured, in small groups; the figures are also read one by one ({@link #totalBytes()},
 * {@link #verified()}, ...) and as the flat map of {@link #toMap()}.
 *
 * @param where        what was read
 * @param plan         how it was read
 * @param verification whether and by what every byte was compared with the regenerated stream
 * @param times        where the time went
 * @param memory       what memory it took
 * @param endpoints    per-endpoint figures (S3 backends; empty for files)
 */
public record LoadResult(Where where, Plan plan, Verification verification, Times times, Memory memory,
                         List<EndpointStatistics> endpoints) {

    /**
     * How a load read the checkpoint.
     *
     * @param totalBytes      bytes read
     * @param chunkSize       bytes per read
     * @param readersInFlight concurrent reads
     */
    public record Plan(long totalBytes, long chunkSize, int readersInFlight) {}

    /**
     * Whether and by what a load compared every byte with the regenerated stream.
     *
     * @param verified whether every byte was compared
     * @param verifier what regenerated the stream: {@code native}, {@code java-vector}, {@code java-scalar},
     *                 or {@code none} without verification
     */
    public record Verification(boolean verified, String verifier) {}

    /**
     * Where a load's time went.
     *
     * @param readSeconds   time at least one read was in flight
     * @param verifySeconds time spent regenerating and comparing (overlapped with the reads)
     * @param totalSeconds  wall time
     * @param phases        the wall time cut into phases that follow one another and add up to
     *                      {@code totalSeconds} (empty when not measured)
     */
    public record Times(double readSeconds, double verifySeconds, double totalSeconds, List<Phase> phases) {
        public Times {
            phases = List.copyOf(phases);
        }

        /** Times without phases. */
        public Times(double readSeconds, double verifySeconds, double totalSeconds) {
            this(readSeconds, verifySeconds, totalSeconds, List.of());
        }
    }

    /**
     * The memory a load took.
     *
     * @param peakBuffersInUse most buffers taken at once
     * @param peakRssBytes     peak resident memory of the process during the load
     */
    public record Memory(int peakBuffersInUse, long peakRssBytes) {}

    public LoadResult {
        endpoints = List.copyOf(endpoints);
    }

    /** What was read. */
    public String target() {
        return where.target();
    }

    /** The backend's one-line description. */
    public String backend() {
        return where.backend();
    }

    /** Whether reads bypassed the page cache. */
    public boolean directIo() {
        return where.directIo();
    }

    /** Bytes read. */
    public long totalBytes() {
        return plan.totalBytes();
    }

    /** Bytes per read. */
    public long chunkSize() {
        return plan.chunkSize();
    }

    /** Concurrent reads. */
    public int readersInFlight() {
        return plan.readersInFlight();
    }

    /** Whether every byte was compared with the regenerated stream. */
    public boolean verified() {
        return verification.verified();
    }

    /** What regenerated the stream, or {@code none}. */
    public String verifier() {
        return verification.verifier();
    }

    /** Time at least one read was in flight. */
    public double readSeconds() {
        return times.readSeconds();
    }

    /** Time spent regenerating and comparing (overlapped with the reads). */
    public double verifySeconds() {
        return times.verifySeconds();
    }

    /** Wall time. */
    public double totalSeconds() {
        return times.totalSeconds();
    }

    /**
     * The wall time cut into phases that follow one another and add up to {@link #totalSeconds()}
     * (opening, the pipeline's phases, freeing the buffers); one {@code other} phase holding the
     * total when they were not measured.
     */
    public List<Phase> phases() {
        return times.phases().isEmpty()
                ? List.of(new Phase("other", "other", totalSeconds(), "not cut into phases")) : times.phases();
    }

    /** Most buffers taken at once. */
    public int peakBuffersInUse() {
        return memory.peakBuffersInUse();
    }

    /** Peak resident memory of the process during the load. */
    public long peakRssBytes() {
        return memory.peakRssBytes();
    }

    /** Read rate in GB/s over the time reads were in flight. */
    public double readGBps() {
        return SaveResult.rate(totalBytes(), readSeconds());
    }

    /** End-to-end rate in GB/s, verification included. */
    public double totalGBps() {
        return SaveResult.rate(totalBytes(), totalSeconds());
    }

    /** The figures as an ordered map (for JSON). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("target", target());
        m.put("backend", backend());
        m.put("directIo", directIo());
        m.put("totalBytes", totalBytes());
        m.put("chunkSize", chunkSize());
        m.put("readersInFlight", readersInFlight());
        m.put("verified", verified());
        m.put("verifier", verifier());
        m.put("readSeconds", SaveResult.round(readSeconds()));
        m.put("readGBps", SaveResult.round(readGBps()));
        m.put("verifySeconds", SaveResult.round(verifySeconds()));
        m.put("totalSeconds", SaveResult.round(totalSeconds()));
        m.put("totalGBps", SaveResult.round(totalGBps()));
        m.put("peakBuffersInUse", peakBuffersInUse());
        m.put("peakRssBytes", peakRssBytes());
        m.put("phases", SaveResult.phaseMap(phases()));
        if (!endpoints.isEmpty()) {
            m.put("endpoints", endpoints.stream().map(EndpointStatistics::toMap).toList());
        }
        return m;
    }
}
