package io.dgen4j.storage;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one endpoint of a storage backend did for one save or load (S3 backends with several
 * gateways report one entry per gateway; the file backend reports none).
 *
 * @param endpoint      the endpoint, as configured (e.g. {@code http://127.0.0.1:9000})
 * @param requests      requests sent to it (parts, ranged GETs and the calls around them)
 * @param bytes         payload bytes sent to it or received from it
 * @param errors        requests that failed on it
 * @param active        requests in flight on it when the figures were taken
 * @param p50Millis     median request latency, milliseconds (0 when no request finished)
 * @param p99Millis     99th percentile request latency, milliseconds
 * @param markedDown    times it was marked down (connect failure, timeout, 5xx)
 * @param state         {@code up}, {@code down} or {@code probing} (half-open) when the figures were taken
 * @param lastFailure   the last failure's one-line cause, empty when none
 */
public record EndpointStatistics(String endpoint, long requests, long bytes, long errors, int active,
                                 double p50Millis, double p99Millis, long markedDown, String state,
                                 String lastFailure) {

    /** The figures as an ordered map (for JSON). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("endpoint", endpoint);
        m.put("requests", requests);
        m.put("bytes", bytes);
        m.put("errors", errors);
        m.put("active", active);
        m.put("p50Millis", Math.round(p50Millis * 1000) / 1000.0);
        m.put("p99Millis", Math.round(p99Millis * 1000) / 1000.0);
        m.put("markedDown", markedDown);
        m.put("state", state);
        m.put("lastFailure", lastFailure);
        return m;
    }
}
