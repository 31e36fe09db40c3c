package io.dgen4j.s3.spi;

import io.dgen4j.s3.S3Timeouts;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;

/**
 * The one-line texts of failed S3 calls, shared by every backend's
 * {@link S3Transport#describe}, so that the same failure reads the same through any client: the
 * operation, the object, the endpoint and the cause, never a secret (the access key id masked).
 */
public final class S3Errors {
    private S3Errors() {}

    /** {@code bucket b does not exist at http://...}. */
    public static String noSuchBucket(S3Location where, String endpoint) {
        return String.format("bucket %s does not exist at %s", where.bucket(), endpoint);
    }

    /**
     * No credentials for {@code target} (an {@code s3://} URI or location): where the settings look for
     * them. Every client says it in these words.
     */
    public static String noCredentials(Object target) {
        return String.format("no S3 credentials for %s: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (in the "
                + "environment or a .env file in the working directory), or AWS_PROFILE naming a profile of "
                + "~/.aws/credentials", target);
    }

    /** A 403 or a refused key or signature: which key (masked), from where, and what to check. */
    public static String credentialsRefused(String operation, S3Location where, String endpoint, S3Settings s,
                                            int status, String code) {
        return String.format("%s of %s: %s refused the credentials (access key %s%s) with HTTP %d%s: check "
                + "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and the bucket's permissions", operation, where,
                endpoint, S3Settings.mask(s.accessKeyId().orElse(null)),
                s.credentialsSource().map(src -> ", from " + src).orElse(""), status, code == null ? "" : " " + code);
    }

    /** Whether an error answer means the credentials were refused. */
    public static boolean refusesCredentials(int status, String code) {
        return status == 403 || "InvalidAccessKeyId".equals(code) || "SignatureDoesNotMatch".equals(code)
                || "AccessDenied".equals(code);
    }

    /**
     * Whether an error answer says that the body the store received differs from the checksum sent
     * with it ({@code BadDigest} for a CRC or Content-MD5, and the SHA-256 and checksum mismatches of
     * signed payloads): the bytes were damaged on their way, and the same bytes may be sent again.
     */
    public static boolean corrupted(int status, String code) {
        return status == 400 && ("BadDigest".equals(code) || "XAmzContentSHA256Mismatch".equals(code)
                || "XAmzContentChecksumMismatch".equals(code));
    }

    /** Whether an error answer says that a condition ({@code If-Match}) failed: the object was replaced. */
    public static boolean preconditionFailed(int status) {
        return status == 412;
    }

    /** Any other error answer: its status, code and message. */
    public static String httpError(String operation, S3Location where, String endpoint, int status, String code,
                                   String message) {
        return String.format("%s of %s at %s failed: HTTP %d%s%s", operation, where, endpoint, status,
                code == null ? "" : " " + code, message == null ? "" : ": " + message);
    }

    /** A TLS failure, with the variable that trusts a private certificate authority. */
    public static String tls(String operation, S3Location where, String endpoint, String reason) {
        return String.format("%s of %s: TLS with %s failed: %s (trust its certificate authority with "
                + "AWS_CA_BUNDLE=/path/to/ca.pem)", operation, where, endpoint, reason);
    }

    /** A refused or unreachable endpoint. */
    public static String cannotConnect(String operation, S3Location where, String endpoint, String reason) {
        return String.format("%s of %s: cannot connect to the S3 endpoint %s: %s", operation, where, endpoint, reason);
    }

    /** A call that ran out of time. */
    public static String timedOut(String operation, S3Location where, String endpoint, String reason) {
        return String.format("%s of %s at %s timed out: %s", operation, where, endpoint, reason);
    }

    /** A connection that broke during the call. */
    public static String connectionBroke(String operation, S3Location where, String endpoint, String reason) {
        return String.format("%s of %s at %s failed: the connection broke: %s", operation, where, endpoint, reason);
    }

    /** Any other failure. */
    public static String failed(String operation, S3Location where, String endpoint, String reason) {
        return String.format("%s of %s at %s failed: %s", operation, where, endpoint, reason);
    }

    /**
     * Whether {@code t} is a timeout of the request's (connect, first-byte, idle), as any of the
     * client libraries reports one: a {@code TimeoutException} or {@code SocketTimeoutException}
     * anywhere in its causes (Netty's {@code ReadTimeoutException}, the SDK's
     * {@code ApiCallAttemptTimeoutException} included, by name), OkHttp's {@code "timeout"}, or the
     * CRT's connection monitor dropping a connection below its throughput minimum.
     */
    public static boolean isTimeout(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(java.util.Locale.ROOT);
            if (c instanceof java.util.concurrent.TimeoutException || c instanceof java.net.SocketTimeoutException
                    || c.getClass().getSimpleName().endsWith("TimeoutException")
                    || c instanceof java.io.InterruptedIOException && m.equals("timeout")
                    || m.contains("throughput minimum") || m.contains("timed out")
                    // the AWS SDK's write-idle timeout (e.g. no "100 Continue" came)
                    || m.startsWith("no data was written to the request body within")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why a request timed out, in the settings' words: {@code no byte for 10 s (the first-byte and
     * idle timeouts, DGEN4J_S3_TIMEOUTS)}, or the connect timeout when it never connected.
     */
    public static String timeoutReason(S3Settings s, Throwable t) {
        S3Timeouts to = s.timeouts();
        boolean connect = false;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(java.util.Locale.ROOT);
            connect |= c.getClass().getSimpleName().startsWith("ConnectTimeout") || m.contains("connect timed out");
        }
        if (connect) {
            return String.format("no connection within %s (the connect timeout, %s)", seconds(to.connect()),
                    S3Timeouts.VAR);
        }
        return String.format("no byte for %s (the first-byte and idle timeouts, %s)", seconds(to.read()),
                S3Timeouts.VAR);
    }

    private static String seconds(java.time.Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** The innermost cause's message, or its class's name when it has none. */
    public static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage();
        return m == null || m.isBlank() ? root.getClass().getSimpleName() : m;
    }

    /** Whether {@code t} or one of its causes is a {@code type}. */
    public static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
