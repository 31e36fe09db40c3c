package io.dgen4j.storage;

/**
 * What opening a target took, as its backend timed it, so that a report can show a client's start
 * and the store's first requests beside the transfer instead of folding them into the total.
 *
 * @param clientStartSeconds seconds spent starting the backend's clients (threads, connection pools,
 *                           a process's first also loads their classes); 0 where none was started
 * @param requestSeconds     seconds spent in the requests made before the first byte moved (e.g. S3's
 *                           HeadBucket and CreateMultipartUpload for a save, its HEAD for a load)
 * @param requests           those requests, named, e.g. {@code HeadBucket, CreateMultipartUpload}; empty
 *                           when none
 */
public record OpenTimes(double clientStartSeconds, double requestSeconds, String requests) {
    /** A backend that times nothing of its open (files: the open is all local work). */
    public static final OpenTimes NONE = new OpenTimes(0, 0, "");

    /** Checks the fields. */
    public OpenTimes {
        if (!(clientStartSeconds >= 0) || !(requestSeconds >= 0)) {
            throw new IllegalArgumentException("open times must be >= 0, got client start " + clientStartSeconds
                    + " s, requests " + requestSeconds + " s");
        }
        java.util.Objects.requireNonNull(requests, "requests");
    }

    /** Whether the backend timed any part of its open. */
    public boolean timed() {
        return !requests.isEmpty() || clientStartSeconds > 0;
    }
}
