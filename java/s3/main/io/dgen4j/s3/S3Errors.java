package io.dgen4j.s3;

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
