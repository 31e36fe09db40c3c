package io.dgen4j.aws;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Turns SDK failures into one clear line naming the object and the endpoint (never a secret: the
 * access key id is masked, the secret never reaches a message), keeping the SDK's exception as the
 * cause.
 */
final class AwsErrors {
    private AwsErrors() {}

    /** The SDK's exception inside a future's wrapper. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** An IOException for a failed {@code operation} (e.g. "UploadPart 3") on {@code where}. */
    static IOException io(String operation, S3Location where, S3Settings s, Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof IOException io && !(t.getClass().getName().startsWith("software.amazon"))
                && t.getMessage() != null && t.getMessage().contains(where.toString())) {
            return io; // already ours
        }
        return new IOException(describe(operation, where, s, t), t);
    }

    /** One line saying what failed and why. */
    static String describe(String operation, S3Location where, S3Settings s, Throwable failure) {
        Throwable t = unwrap(failure);
        String endpoint = s.endpointDescription();
        if (t instanceof NoSuchBucketException || t instanceof S3Exception e && "NoSuchBucket".equals(code(e))) {
            return String.format("bucket %s does not exist at %s", where.bucket(), endpoint);
        }
        if (t instanceof S3Exception e) {
            String code = code(e);
            int status = e.statusCode();
            if (status == 403 || "InvalidAccessKeyId".equals(code) || "SignatureDoesNotMatch".equals(code)
                    || "AccessDenied".equals(code)) {
                return String.format("%s of %s: %s refused the credentials (access key %s%s) with HTTP %d%s: check "
                        + "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and the bucket's permissions", operation, where,
                        endpoint, S3Settings.mask(s.accessKeyId().orElse(null)),
                        s.credentialsSource().map(src -> ", from " + src).orElse(""), status,
                        code == null ? "" : " " + code);
            }
            return String.format("%s of %s at %s failed: HTTP %d%s%s", operation, where, endpoint, status,
                    code == null ? "" : " " + code, e.awsErrorDetails() == null || e.awsErrorDetails().errorMessage() == null
                            ? "" : ": " + e.awsErrorDetails().errorMessage());
        }
        if (has(t, SSLException.class)) {
            return String.format("%s of %s: TLS with %s failed: %s (trust its certificate authority with "
                    + "AWS_CA_BUNDLE=/path/to/ca.pem)", operation, where, endpoint, rootMessage(t));
        }
        if (has(t, ConnectException.class) || String.valueOf(rootMessage(t)).contains("Connection refused")) {
            return String.format("%s of %s: cannot connect to the S3 endpoint %s: %s", operation, where, endpoint,
                    rootMessage(t));
        }
        if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException) {
            return String.format("%s of %s at %s timed out: %s", operation, where, endpoint, t.getMessage());
        }
        if (has(t, ClosedChannelException.class) || has(t, IOException.class)) {
            return String.format("%s of %s at %s failed: the connection broke: %s", operation, where, endpoint,
                    rootMessage(t));
        }
        return String.format("%s of %s at %s failed: %s", operation, where, endpoint, rootMessage(t));
    }

    /** The S3 error code, or null. */
    static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    /** Whether the failure is S3's "not found" (HTTP 404). */
    static boolean notFound(Throwable failure) {
        return unwrap(failure) instanceof S3Exception e && e.statusCode() == 404;
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage();
        return m == null || m.isBlank() ? root.getClass().getSimpleName() : m;
    }
}
