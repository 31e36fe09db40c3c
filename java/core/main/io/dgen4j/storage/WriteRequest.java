package io.dgen4j.storage;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a writer is opened for.
 *
 * @param target      where the object goes
 * @param size        its exact size in bytes (backends may reserve it, or size their parts)
 * @param chunkSize   bytes per write: every write starts at a multiple of it and covers it, the
 *                    last one up to the end (backends size their parts to hold whole chunks);
 *                    0 when writes may have any offset and length
 * @param metadata    scalar fields (String, Long, Integer, Double, Boolean) stored with the object,
 *                    atomically with its data; a backend stores them and reads none of them
 * @param maxInFlight writes the caller may have in flight at once
 * @param options     backend options (each backend reads its own type)
 */
public record WriteRequest(StorageTarget target, long size, long chunkSize, Map<String, Object> metadata,
                           int maxInFlight, StorageOptions options) {
    public WriteRequest {
        if (target == null || metadata == null || options == null) {
            throw new IllegalArgumentException("target, metadata and options must not be null");
        }
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, got " + size);
        }
        if (chunkSize < 0) {
            throw new IllegalArgumentException("chunk size must be >= 0, got " + chunkSize);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("writes in flight must be >= 1, got " + maxInFlight);
        }
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }

    /** A request whose writes may have any offset and length (no chunk size). */
    public WriteRequest(StorageTarget target, long size, Map<String, Object> metadata, int maxInFlight,
                        StorageOptions options) {
        this(target, size, 0, metadata, maxInFlight, options);
    }
}
