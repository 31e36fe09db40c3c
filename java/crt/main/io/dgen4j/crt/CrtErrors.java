package io.dgen4j.crt;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;

/**
 * Reads what the SDK and the CRT throw: the cause inside the futures' wrappers, its HTTP status and
 * S3 error code, its message on one line, and whose fault it is (the endpoint's or the request's).
 */
final class CrtErrors {
    private CrtErrors() {}

    /** The cause inside the wrappers of futures. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** A throwable's message on one line, without the SDK's attempt-count suffix. */
    static String oneLine(Throwable t) {
        t = unwrap(t);
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            m = t.getClass().getSimpleName();
        }
        m = m.replaceAll("\\s*\\(SDK Attempt Count: \\d+\\)", "").replaceAll("[\\r\\n]+", " ").strip();
        return m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
    }

    /** The HTTP status of a service error, or 0. */
    static int status(Throwable t) {
        return unwrap(t) instanceof AwsServiceException e ? e.statusCode() : 0;
    }

    /** The S3 error code of a service error ({@code NoSuchKey}, ...), or an empty string. */
    static String code(Throwable t) {
        if (unwrap(t) instanceof AwsServiceException e && e.awsErrorDetails() != null
                && e.awsErrorDetails().errorCode() != null) {
            return e.awsErrorDetails().errorCode();
        }
        return "";
    }

    /**
     * Whether {@code failure} is the endpoint's fault, so that another endpoint may succeed: no
     * answer at all (connection refused or reset, DNS, a TLS handshake that failed, a timeout, the
     * CRT's "Failed to send the request"), or HTTP 5xx. An answer in 4xx, a request the client
     * refused to build, a cancellation or an interrupt are the request's: another endpoint would
     * say the same.
     */
    static boolean endpointsFault(Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof AwsServiceException e) {
            return e.statusCode() >= 500 || e.statusCode() == 429; // 429: this gateway throttles (another may not)
        }
        if (t instanceof CancellationException || t instanceof InterruptedException
                || t instanceof InterruptedIOException) {
            return false;
        }
        if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException) {
            return true;
        }
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof IOException || c instanceof java.util.concurrent.TimeoutException) {
                return true; // connect, reset, TLS (SSLException), socket timeout
            }
            String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
            if (m.startsWith("failed to send the request") || NO_ANSWER.matcher(m).find()) {
                return true;
            }
            if (c.getClass().getName().equals("software.amazon.awssdk.crt.CrtRuntimeException")
                    && (m.contains("aws_io_") || m.contains("aws_error_http_"))) {
                return true;
            }
        }
        return false;
    }

    /** What the CRT's error strings say when no answer came: {@code CRT.awsErrorString} of aws-c-io and aws-c-http errors. */
    private static final java.util.regex.Pattern NO_ANSWER = java.util.regex.Pattern.compile(
            "socket|connection (refused|reset|closed|has closed)|timed out|timeout|tls|ssl|negotiation|dns|host name"
                    + "|broken pipe|network|unreachable");

    /**
     * {@code failure}, or an {@link OutOfMemoryError} (with it as the cause) when the CRT reports
     * that a call of its event loop into Java ran out of heap ("OutOfMemoryError has been raised from
     * JVM"): no network fault.
     */
    static Throwable jvmError(Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof Error) {
                return failure;
            }
            if (c.getMessage() != null && c.getMessage().contains("OutOfMemoryError")) {
                OutOfMemoryError oom = new OutOfMemoryError("in the CRT's event loop: " + oneLine(c));
                oom.initCause(failure);
                return oom;
            }
        }
        return failure;
    }

    /** Whether a request failed because the object or upload does not exist. */
    static boolean notFound(Throwable t) {
        return status(t) == 404;
    }
}
