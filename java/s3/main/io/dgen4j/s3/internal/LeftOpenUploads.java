package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Location;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Multipart uploads that no endpoint let a writer abort (every endpoint down): aborted in the
 * background, every second for ten minutes, as soon as an endpoint answers again, so that a store
 * whose gateway comes back is left with no open upload (open uploads keep their parts' storage).
 */
final class LeftOpenUploads {
    private static final Logger LOG = LoggerFactory.getLogger(LeftOpenUploads.class);
    static final long RETRY_MILLIS = 1000;
    static final long GIVE_UP_NANOS = TimeUnit.MINUTES.toNanos(10);

    private record Upload(S3Location where, String uploadId, Endpoint pinned, long since) {
        String label() {
            return "upload " + uploadId + " of " + where;
        }
    }

    private final S3Endpoints pool;
    private final Map<String, Upload> uploads = new ConcurrentHashMap<>();
    private ScheduledExecutorService timer;
    private ScheduledFuture<?> task;

    LeftOpenUploads(S3Endpoints pool) {
        this.pool = pool;
    }

    /** Aborts {@code uploadId} of {@code where} as soon as an endpoint answers ({@code pinned}'s only, when set). */
    synchronized void add(S3Location where, String uploadId, Endpoint pinned) {
        uploads.put(uploadId, new Upload(where, uploadId, pinned, System.nanoTime()));
        if (timer == null) {
            timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("dgen4j-s3-abort-left-open").factory());
        }
        if (task == null) {
            task = timer.scheduleWithFixedDelay(this::retry, RETRY_MILLIS, RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    List<String> list() {
        return uploads.values().stream().map(Upload::label).sorted().toList();
    }

    /**
     * For each upload left open, the AWS CLI command that aborts it, with its real bucket, key, id
     * and endpoint (the one it is pinned to, else the set's first), shell-quoted where needed.
     */
    List<String> abortCommands() {
        return uploads.values().stream().sorted(java.util.Comparator.comparing(Upload::label)).map(u -> {
            String endpoint = u.pinned() != null ? u.pinned().name()
                    : pool.settings().endpoint().map(Object::toString).orElse(null);
            return "aws s3api abort-multipart-upload" + (endpoint == null ? "" : " --endpoint-url " + quote(endpoint))
                    + " --bucket " + quote(u.where().bucket()) + " --key " + quote(u.where().key()) + " --upload-id "
                    + quote(u.uploadId());
        }).toList();
    }

    /** {@code s} as one shell word: as it is when plain, else in single quotes. */
    static String quote(String s) {
        return s.matches("[A-Za-z0-9._/:@%+=,-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    private void retry() {
        for (Upload u : uploads.values()) {
            Requests r = new Requests(pool, u.where(), u.pinned());
            try {
                r.callAny("AbortMultipartUpload", t -> t.abortMultipartUpload(u.where(), u.uploadId()));
                if (!r.callAny("ListMultipartUploads", t -> t.uploadListed(u.where(), u.uploadId()))) {
                    uploads.remove(u.uploadId());
                    LOG.info("{}, left open when no S3 endpoint answered, is now aborted", u.label());
                }
            } catch (IOException | RuntimeException e) {
                if (System.nanoTime() - u.since() > GIVE_UP_NANOS) {
                    uploads.remove(u.uploadId());
                    LOG.error("{} is left open: no S3 endpoint answered its abort for 10 minutes: {}", u.label(),
                            e.getMessage());
                }
            }
        }
        synchronized (this) {
            if (uploads.isEmpty() && task != null) {
                task.cancel(false);
                task = null;
            }
        }
    }

    synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
            task = null;
        }
        // the session that closed these pools reports what it left open (Storage.close, the CLI's lines)
        uploads.values().forEach(u -> LOG.info("{} is left open: its S3 endpoints were closed before one answered "
                + "its abort", u.label()));
    }
}
