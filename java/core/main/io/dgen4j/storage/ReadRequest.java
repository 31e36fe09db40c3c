package io.dgen4j.storage;

/**
 * What a reader is opened for.
 *
 * @param target      the object to read
 * @param maxInFlight reads the caller may have in flight at once
 * @param options     backend options (each backend reads its own type)
 */
public record ReadRequest(StorageTarget target, int maxInFlight, StorageOptions options) {
    public ReadRequest {
        if (target == null || options == null) {
            throw new IllegalArgumentException("target and options must not be null");
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("reads in flight must be >= 1, got " + maxInFlight);
        }
    }
}
