package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Timeouts;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3Errors;
import io.dgen4j.storage.EndpointBackoff;
import io.dgen4j.storage.EndpointStatistics;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of one writer or reader (one object): each sent to the endpoint the pool chooses,
 * timed and counted in this object's figures and the session's, its failure classified by the
 * transport; an endpoint's failure marks it down and the caller retries elsewhere, or on the same
 * endpoint once its back-off is over, for the settings' retry budget ({@link S3Timeouts#retry()})
 * after the request's first failure. With {@link S3Endpoints#pinUpload()} every request goes to
 * the endpoint of the first.
 *
 * <p>Neither an interrupt of the waiting thread (the request is cancelled) nor an {@link Error} in
 * a client library's thread is an endpoint's fault: neither is retried nor marks the endpoint down.
 */
final class Requests {
    private static final Logger LOG = LoggerFactory.getLogger(Requests.class);

    /** How long a request never sent anywhere waits for an endpoint's back-off to end: the longest back-off, and some. */
    static final long FIRST_ATTEMPT_WAIT_NANOS = EndpointBackoff.MAX_BACKOFF_NANOS + TimeUnit.SECONDS.toNanos(5);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MIN_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** The most endpoints a failure's line names with their causes. */
    private static final int NAMED_IN_FAILURE = 8;

    private final S3Endpoints pool;
    private final S3Location where;
    private final EndpointFigures[] figures;
    /** The retry budget ({@link S3Timeouts#retry()}). */
    private final long retryNanos;
    private volatile Endpoint pinned;

    Requests(S3Endpoints pool, S3Location where) {
        this(pool, where, null);
    }

    /** Requests of {@code where}, all sent to {@code pinnedTo} when it is not null. */
    Requests(S3Endpoints pool, S3Location where, Endpoint pinnedTo) {
        this.pool = pool;
        this.where = where;
        this.figures = new EndpointFigures[pool.size()];
        for (int i = 0; i < figures.length; i++) {
            figures[i] = new EndpointFigures();
        }
        this.pinned = pinnedTo;
        this.retryNanos = pool.settings().timeouts().retry().toNanos();
    }

    /** One request on its way. */
    record Sent<T>(String operation, Endpoint endpoint, EndpointBackoff.Admission admission, long start,
                   CompletableFuture<T> future) {}

    /**
     * A request refused because the object is no longer the one it named ({@link S3Transport.FailureKind#CHANGED}):
     * the transport's one line, as its cause's message.
     */
    static final class Changed extends IOException {
        Changed(IOException described) {
            super(described.getMessage(), described);
        }
    }

    /** A failed request: its one-line description, and whose fault it was (the endpoint's: retry elsewhere). */
    record Failure(IOException exception, S3Transport.FailureKind kind) {
        /** Whether the endpoint failed (connection, timeout, 5xx): another may take the request. */
        boolean endpointFault() {
            return kind == S3Transport.FailureKind.ENDPOINT;
        }
    }

    /** The endpoint this object is pinned to, if pinning is on and its first request was sent. */
    Endpoint pinned() {
        return pinned;
    }

    /**
     * One request's attempts so far: the endpoints that failed it and why. An endpoint that failed it
     * is not tried again unless it came back up meanwhile (another request's probe) or its back-off
     * ended while the request waited; one on which it timed out (a stall, a black hole), only when it
     * came back up: a gateway that restarts refuses connections, one that hangs would hang the retry
     * too. No attempt starts once the retry budget has passed since the request's first failure.
     */
    static final class Attempts {
        private final Map<Endpoint, IOException> causes = new LinkedHashMap<>();
        private final Set<Endpoint> recovering = new HashSet<>();
        private final Set<Endpoint> timedOut = new HashSet<>();
        private int count;
        /** When this request first found no endpoint to take it (0: never). */
        private long waitingSince;
        /** When this request first failed (meaningful once {@link #count} > 0). */
        private long firstFailure;

        /** {@code ep} failed the request, by its own fault. */
        void failed(Endpoint ep, IOException cause) {
            causes.put(ep, cause);
            if (S3Errors.isTimeout(cause)) {
                timedOut.add(ep);
                recovering.remove(ep);
            }
            if (count++ == 0) {
                firstFailure = System.nanoTime();
            }
        }

        /** Whether the retry budget since this request's first failure is spent. */
        boolean spent(long now, long retryNanos) {
            return count > 0 && now - firstFailure > retryNanos;
        }

        Map<Endpoint, IOException> causes() {
            return causes;
        }

        /** The endpoints not to try now: those that failed the request and are not up again. */
        Set<Endpoint> excluded() {
            Set<Endpoint> out = new HashSet<>();
            causes.keySet().stream().filter(e -> !recovering.contains(e) && e.health().state() != EndpointBackoff.State.UP)
                    .forEach(out::add);
            return out;
        }

        /**
         * After a wait for an endpoint: those this request failed on may be chosen again once their
         * back-off is over (this request then being their half-open probe); their causes are kept
         * for the final message, and the attempt count still bounds the request.
         */
        void forgetRecovering() {
            causes.keySet().stream().filter(e -> !timedOut.contains(e)).forEach(recovering::add);
        }

        /** Whether every endpoint of {@code all} timed out on this request and none is up again. */
        boolean allTimedOut(List<Endpoint> all) {
            return all.stream().allMatch(e -> timedOut.contains(e) && e.health().state() != EndpointBackoff.State.UP);
        }
    }

    /**
     * Sends one request to the endpoint chosen for it, skipping those that failed its earlier
     * attempts (unless up again).
     *
     * @throws IOException when no endpoint takes requests (the message names each one's cause), or
     *         the pinned endpoint cannot take it
     */
    <T> Sent<T> send(String operation, Attempts attempts, Function<S3Transport, CompletableFuture<T>> call)
            throws IOException {
        while (true) {
            S3Endpoints.Choice c;
            if (attempts.spent(System.nanoTime(), retryNanos)) {
                throw noEndpoint(operation, attempts.causes());
            } else if (pool.pinUpload()) {
                c = pinnedChoice(operation, attempts);
            } else {
                c = pool.choose(attempts.excluded());
            }
            if (c != null) {
                return start(operation, c.endpoint(), c.admission(), call);
            }
            awaitEndpoint(operation, attempts);
        }
    }

    /**
     * No endpoint takes requests now: every one is within its back-off, has its half-open probe out,
     * or failed this very request. A request not yet sent anywhere waits for a back-off to end and
     * gets its attempt (a gateway that came back is not refused for other requests' back-off).
     * One that failed waits, within the retry budget since its first failure and while some endpoint
     * of the set answered a request of this session within that budget (a cluster that was working
     * moments ago: a gateway restarting, a burst of 503s), for a back-off to end or a probe to
     * succeed, then lets the caller choose again, endpoints it failed on included once they may be
     * probed; otherwise (never answered, silent for that long, or the budget spent) it fails at once,
     * naming each endpoint's cause. So a lone gateway's restart costs a pause, and a set that never
     * answered (a wrong port) still fails at once.
     */
    private void awaitEndpoint(String operation, Attempts attempts) throws IOException {
        long now = System.nanoTime();
        long sinceAnswer = Long.MAX_VALUE;
        long soonest = Long.MAX_VALUE;
        for (Endpoint ep : pool.all()) {
            sinceAnswer = Math.min(sinceAnswer, ep.health().sinceAnswer(now));
            long left = ep.health().backoffLeft(now);
            soonest = Math.min(soonest, left > 0 ? left : POLL_NANOS);
        }
        if (attempts.waitingSince == 0) {
            attempts.waitingSince = now;
        }
        // A request not yet sent anywhere waits for its one real attempt (at most the longest
        // back-off, plus a probe's answer): an endpoint that came back must not be refused for a
        // back-off other requests earned. One that failed goes on only while the set answers.
        boolean neverSent = attempts.count == 0 && now - attempts.waitingSince < FIRST_ATTEMPT_WAIT_NANOS;
        if (!neverSent && (sinceAnswer > retryNanos || attempts.spent(now, retryNanos)
                || attempts.allTimedOut(pool.pinUpload() && pinned != null ? List.of(pinned) : pool.all()))) {
            throw noEndpoint(operation, attempts.causes());
        }
        attempts.forgetRecovering();
        try {
            TimeUnit.NANOSECONDS.sleep(Math.max(MIN_SLEEP_NANOS, Math.min(soonest, POLL_NANOS)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted(operation);
        }
    }

    /** {@code UploadPart 3 of s3://b/k interrupted}. */
    private InterruptedIOException interrupted(String operation) {
        return new InterruptedIOException(operation + " of " + where + " interrupted");
    }

    private S3Endpoints.Choice pinnedChoice(String operation, Attempts attempts) throws IOException {
        Endpoint p = pinned;
        if (p == null) {
            synchronized (this) {
                if (pinned == null) {
                    S3Endpoints.Choice c = pool.choose(attempts.excluded());
                    if (c != null) {
                        pinned = c.endpoint();
                    }
                    return c;
                }
                p = pinned;
            }
        }
        IOException cause = attempts.causes().get(p);
        if (cause != null) {
            // a pinned object has nowhere else to go: the same endpoint again once its back-off is
            // over, within the retry budget (then the caller fails with its cause); after a timeout
            // only once it is up again
            boolean again = attempts.timedOut.contains(p) ? p.health().state() == EndpointBackoff.State.UP
                    : p.health().usable(System.nanoTime());
            return again ? pinnedAdmission(p) : null;
        }
        EndpointBackoff.Admission a = p.health().admitPinned(System.nanoTime());
        if (a == null) {
            if (attempts.count == 0 && p.health().sinceAnswer(System.nanoTime()) <= retryNanos) {
                return null; // down moments ago: wait for its back-off like any request not yet sent
            }
            throw new IOException(String.format("%s of %s cannot be sent: %s, the endpoint its upload is pinned to, is "
                    + "down (pinned uploads do not fail over); its last failure: %s", operation, where, p.name(),
                    lastFailure(p)));
        }
        return new S3Endpoints.Choice(p, a);
    }

    private S3Endpoints.Choice pinnedAdmission(Endpoint p) {
        EndpointBackoff.Admission a = p.health().admitPinned(System.nanoTime());
        return a == null ? null : new S3Endpoints.Choice(p, a);
    }

    private <T> Sent<T> start(String operation, Endpoint ep, EndpointBackoff.Admission how,
                              Function<S3Transport, CompletableFuture<T>> call) {
        figures[ep.index()].started();
        ep.health().figures().started();
        long start = System.nanoTime();
        CompletableFuture<T> f;
        try {
            f = call.apply(ep.transport());
        } catch (IOException e) { // the endpoint's transport cannot be made: one of our lines, the request's fault
            f = CompletableFuture.failedFuture(new IOException(String.format("%s of %s at %s: %s", operation, where,
                    ep.name(), e.getMessage()), e));
        } catch (RuntimeException | Error e) { // an Error too: finish() reports it, and releases a probe
            f = CompletableFuture.failedFuture(e);
        }
        return new Sent<>(operation, ep, how, start, f);
    }

    /**
     * Waits for a request's answer. An interrupt cancels the request (its client stops it where it
     * can; the transports write nothing into a segment after that) and is no fault of the endpoint.
     *
     * @return the failure the future completed with, or null on success (then {@code result[0]} is set)
     * @throws InterruptedIOException when the waiting thread is interrupted (its flag stays set)
     */
    private <T> Throwable await(Sent<T> s, Object[] result) throws InterruptedIOException {
        try {
            result[0] = s.future().get();
            return null;
        } catch (ExecutionException | CancellationException e) {
            return e;
        } catch (InterruptedException e) {
            s.future().cancel(true);
            finish(s, new CancellationException("interrupted"), 0);
            Thread.currentThread().interrupt();
            throw interrupted(s.operation());
        }
    }

    /** Whether a failure is an interrupt or a cancellation, ours: no endpoint's fault. */
    private static boolean interruptedOrCancelled(Throwable t) {
        return t instanceof CancellationException || S3Errors.has(t, InterruptedException.class)
                || S3Errors.has(t, java.nio.channels.ClosedByInterruptException.class);
    }

    /**
     * Records how a request ended (figures, the endpoint's health).
     *
     * @param failure null on success, else how its future completed
     * @param bytes   payload bytes moved, on success
     * @return null on success, else the failure described in one line
     */
    Failure finish(Sent<?> s, Throwable failure, long bytes) {
        long nanos = System.nanoTime() - s.start();
        Endpoint ep = s.endpoint();
        if (failure == null) {
            figures[ep.index()].finished(nanos, bytes, false);
            ep.health().figures().finished(nanos, bytes, false);
            ep.health().answered(s.admission());
            return null;
        }
        Throwable t = unwrap(failure);
        Error error = clientError(t);
        if (interruptedOrCancelled(t) || error != null) {
            // ours, or the client library's own breakdown: never retried, never held against the endpoint
            figures[ep.index()].finished(nanos, 0, false);
            ep.health().figures().finished(nanos, 0, false);
            ep.health().released(s.admission(), System.nanoTime());
            if (error != null) {
                return new Failure(new IOException(String.format("%s of %s at %s failed in the S3 client's thread: %s",
                        s.operation(), where, ep.name(), errorText(error)), t), S3Transport.FailureKind.REQUEST);
            }
            return new Failure(interrupted(s.operation()), S3Transport.FailureKind.REQUEST);
        }
        figures[ep.index()].finished(nanos, 0, true);
        ep.health().figures().finished(nanos, 0, true);
        S3Transport.FailureKind kind;
        try {
            S3Transport transport = ep.opened();
            kind = transport == null ? S3Transport.FailureKind.REQUEST : transport.classify(t);
        } catch (RuntimeException e) {
            kind = S3Transport.FailureKind.REQUEST;
        }
        IOException described = describe(ep, s.operation(), t);
        figures[ep.index()].lastFailure(described.getMessage());
        if (kind == S3Transport.FailureKind.ENDPOINT) {
            endpointFailed(ep, s.admission(), described.getMessage(), S3Errors.isTimeout(t));
        } else {
            ep.health().answered(s.admission()); // it answered, with a refusal of this request
        }
        return new Failure(kind == S3Transport.FailureKind.CHANGED ? new Changed(described) : described, kind);
    }

    private void endpointFailed(Endpoint ep, EndpointBackoff.Admission how, String cause, boolean timeout) {
        figures[ep.index()].lastFailure(cause);
        if (ep.health().failed(how, cause, System.nanoTime(), timeout)) {
            figures[ep.index()].markedDown();
            LOG.warn("S3 endpoint {} marked down: {}", ep.name(), cause);
        }
    }

    /**
     * The {@link Error} a client library's thread met, if {@code t} carries one: itself, a cause, or
     * suppressed (OkHttp fails the call with {@code IOException("canceled due to ...")} and the Error
     * suppressed in it, then lets it kill its thread).
     */
    private static Error clientError(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof Error e) {
                return e;
            }
            for (Throwable s : c.getSuppressed()) {
                if (s instanceof Error e) {
                    return e;
                }
            }
        }
        return null;
    }

    /** An {@link Error} in a few words: {@code out of memory (Java heap space)}. */
    private static String errorText(Error e) {
        String m = e.getMessage() == null || e.getMessage().isBlank() ? "" : " (" + e.getMessage().strip() + ")";
        if (e instanceof OutOfMemoryError) {
            return "out of memory" + m + ": give the JVM more heap (DGEN4J_JAVA_OPTS=-Xmx...) or use fewer requests "
                    + "in flight";
        }
        return e.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT) + m;
    }

    private IOException describe(Endpoint ep, String operation, Throwable t) {
        IOException d = describeRaw(ep, operation, t);
        String m = d.getMessage();
        // A garbage answer's bytes reach the client library's message (minio: "Unexpected status
        // line: ..."): the line is logged and printed, so it is kept on one line and its control
        // characters become '?'.
        if (m != null && CONTROL.matcher(m).find()) {
            return new IOException(CONTROL.matcher(m.replaceAll("\\s*\\R\\s*", " ")).replaceAll("?"), t);
        }
        return d;
    }

    /** Control characters, and the replacement character a decoder puts for bytes that are no text. */
    private static final java.util.regex.Pattern CONTROL = java.util.regex.Pattern.compile("[\\p{Cntrl}\\uFFFD]");

    private IOException describeRaw(Endpoint ep, String operation, Throwable t) {
        if (t instanceof IOException io && io.getMessage() != null && io.getMessage().contains(where.toString())
                && io.getClass() == IOException.class) {
            return io; // already one of our lines
        }
        try {
            S3Transport transport = ep.opened();
            IOException d = transport == null ? null : transport.describe(operation, where, t);
            if (d != null) {
                return d;
            }
        } catch (RuntimeException e) {
            t.addSuppressed(e);
        }
        return new IOException(String.format("%s of %s at %s failed: %s", operation, where, ep.name(), t), t);
    }

    /**
     * One request, sent again on another endpoint after each failure of an endpoint's, until one
     * answers; a failure of the request's own (4xx) fails at once.
     *
     * @param bytes the payload bytes a result stands for
     * @throws IOException the request's failure, or, when no endpoint is left, one naming each endpoint's cause
     */
    <T> T call(String operation, ToLongFunction<? super T> bytes, Function<S3Transport, CompletableFuture<T>> call)
            throws IOException {
        Attempts attempts = new Attempts();
        while (true) {
            Sent<T> s = send(operation, attempts, call);
            Object[] result = new Object[1];
            Throwable failed = await(s, result);
            @SuppressWarnings("unchecked")
            T r = (T) result[0];
            Failure f = finish(s, failed, failed == null ? bytes.applyAsLong(r) : 0);
            if (f == null) {
                return r;
            }
            if (!f.endpointFault()) {
                throw f.exception();
            }
            attempts.failed(s.endpoint(), f.exception());
        }
    }

    /**
     * One request that must reach the store if any endpoint answers (aborts, their confirmation):
     * tried on each endpoint in turn, those up first, whatever their back-off (a pinned object: its
     * endpoint only).
     *
     * @throws IOException the request's failure, or, when no endpoint answered, one naming each one's cause
     */
    <T> T callAny(String operation, Function<S3Transport, CompletableFuture<T>> call) throws IOException {
        List<Endpoint> order = new ArrayList<>();
        Endpoint p = pinned;
        if (pool.pinUpload() && p != null) {
            order.add(p);
        } else {
            long now = System.nanoTime();
            pool.all().stream().filter(e -> e.health().usable(now)).forEach(order::add);
            pool.all().stream().filter(e -> !order.contains(e)).forEach(order::add);
        }
        Map<Endpoint, IOException> causes = new LinkedHashMap<>();
        for (Endpoint ep : order) {
            Sent<T> s = start(operation, ep, null, call);
            Object[] result = new Object[1];
            Throwable failed = await(s, result);
            @SuppressWarnings("unchecked")
            T r = (T) result[0];
            Failure f = finish(s, failed, 0);
            if (f == null) {
                return r;
            }
            if (!f.endpointFault()) {
                throw f.exception();
            }
            causes.put(ep, f.exception());
        }
        throw noEndpoint(operation, causes);
    }

    /** The failure when no endpoint is left: one endpoint's own line, or each endpoint's cause. */
    IOException noEndpoint(String operation, Map<Endpoint, IOException> causes) {
        if (pool.size() == 1 && causes.size() == 1) {
            return causes.values().iterator().next();
        }
        Endpoint p = pinned;
        if (pool.pinUpload() && p != null && causes.get(p) != null) {
            IOException cause = causes.get(p);
            return new IOException(String.format("%s of %s failed on %s, the endpoint its upload is pinned to "
                    + "(pinned uploads do not fail over): %s", operation, where, p.name(), cause.getMessage()), cause);
        }
        StringBuilder each = new StringBuilder();
        IOException last = null;
        int listed = 0;
        List<Endpoint> order = pool.all();
        if (order.size() > NAMED_IN_FAILURE) { // those that failed this request first
            order = java.util.stream.Stream.concat(order.stream().filter(causes::containsKey),
                    order.stream().filter(e -> !causes.containsKey(e))).toList();
        }
        for (Endpoint ep : order) {
            IOException c = causes.get(ep);
            if (listed++ == NAMED_IN_FAILURE) { // a large set's line stays readable
                each.append(String.format(Locale.ROOT, "; and %d more", pool.size() - NAMED_IN_FAILURE));
                break;
            }
            each.append(each.isEmpty() ? "" : "; ").append(ep.name()).append(": ");
            if (c != null) {
                each.append(c.getMessage());
                last = c;
            } else {
                long left = ep.health().backoffLeft(System.nanoTime());
                each.append(String.format(Locale.ROOT, "%s%s, last failure: %s", S3Endpoints.stateLabel(ep.health()),
                        left > 0 ? String.format(Locale.ROOT, " for %.1f s more", left / 1e9) : "", lastFailure(ep)));
            }
        }
        IOException e = new IOException(String.format("%s of %s failed: no S3 endpoint is healthy (%d): %s", operation,
                where, pool.size(), each), last);
        causes.values().stream().filter(c -> c != e.getCause()).forEach(e::addSuppressed);
        return e;
    }

    private static String lastFailure(Endpoint ep) {
        String f = ep.health().figures().lastFailure();
        return f.isEmpty() ? "none" : f;
    }

    /** This object's figures per endpoint, with each endpoint's state now. */
    List<EndpointStatistics> statistics() {
        List<EndpointStatistics> out = new ArrayList<>(figures.length);
        for (Endpoint ep : pool.all()) {
            out.add(figures[ep.index()].snapshot(ep.name(), S3Endpoints.stateLabel(ep.health())));
        }
        return out;
    }

    /** The client library's exception inside a future's wrapper. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
