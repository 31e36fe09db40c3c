package io.dgen4j.storage;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a writer is opened for.
 *
 * @param target      where the object goes
 * @param size        its exact size in bytes (backends may reserve it, or size their parts)
 * @param metadata    scalar fields (String, Long, Integer, Double, Boolean) stored with the object,
 *                    atomically with its data
 * @param maxInFlight writes the caller may have in flight at once
 * @param options     backend options (each backend reads its own type)
 */
public record WriteRequest(StorageTarget target, long size, Map<String, Object> metadata, int maxInFlight,
                           StorageOptions options) {
    public WriteRequest {
        if (target == null || metadata == null || options == null) {
            throw new IllegalArgumentException("target, metadata and options must not be null");
        }
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, got " + size);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("writes in flight must be >= 1, got " + maxInFlight);
        }
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }
}
