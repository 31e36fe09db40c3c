package io.dgen4j.minio;

import io.dgen4j.s3.spi.S3Errors;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.minio.errors.ErrorResponseException;
import io.minio.errors.ServerException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;

/**
 * Turns MinIO client failures into one clear line naming the object and the endpoint (never a
 * secret: the access key id is masked, the secret never reaches a message; MinIO's own exception
 * strings, which carry the request's headers, are never quoted), keeping its exception as the cause.
 */
final class MinioErrors {
    private MinioErrors() {}

    /** The client's exception inside a future's wrapper. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** An IOException for a failed {@code operation} (e.g. "UploadPart 3") on {@code where}. */
    static IOException io(String operation, S3Location where, S3Settings s, Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof IOException io && !(t.getClass().getName().startsWith("io.minio"))
                && t.getMessage() != null && t.getMessage().contains(where.toString())) {
            return io; // already ours
        }
        return new IOException(describe(operation, where, s, t), t);
    }

    /** One line saying what failed and why. */
    static String describe(String operation, S3Location where, S3Settings s, Throwable failure) {
        Throwable t = unwrap(failure);
        String endpoint = s.endpointDescription();
        if (t instanceof ErrorResponseException e) {
            String code = code(e);
            int status = e.response() == null ? 0 : e.response().code();
            if ("NoSuchBucket".equals(code)) {
                return S3Errors.noSuchBucket(where, endpoint);
            }
            if (status == 403 || "InvalidAccessKeyId".equals(code) || "SignatureDoesNotMatch".equals(code)
                    || "AccessDenied".equals(code)) {
                return String.format("%s of %s: %s refused the credentials (access key %s%s) with HTTP %d%s: check "
                        + "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and the bucket's permissions", operation, where,
                        endpoint, S3Settings.mask(s.accessKeyId().orElse(null)),
                        s.credentialsSource().map(src -> ", from " + src).orElse(""), status,
                        code == null ? "" : " " + code);
            }
            String message = e.errorResponse() == null ? null : e.errorResponse().message();
            return String.format("%s of %s at %s failed: HTTP %d%s%s", operation, where, endpoint, status,
                    code == null ? "" : " " + code, message == null ? "" : ": " + oneLine(message));
        }
        if (t instanceof ServerException e) {
            return String.format("%s of %s at %s failed: HTTP %d", operation, where, endpoint, e.statusCode());
        }
        if (has(t, SSLException.class)) {
            return String.format("%s of %s: TLS with %s failed: %s (trust its certificate authority with "
                    + "AWS_CA_BUNDLE=/path/to/ca.pem)", operation, where, endpoint, rootMessage(t));
        }
        if (has(t, ConnectException.class) || String.valueOf(rootMessage(t)).contains("Connection refused")
                || String.valueOf(rootMessage(t)).startsWith("Failed to connect")) {
            return String.format("%s of %s: cannot connect to the S3 endpoint %s: %s", operation, where, endpoint,
                    rootMessage(t));
        }
        if (has(t, InterruptedIOException.class) || io.dgen4j.s3.spi.S3Errors.isTimeout(t)) {
            return String.format("%s of %s at %s timed out: %s", operation, where, endpoint,
                    io.dgen4j.s3.spi.S3Errors.timeoutReason(s, t));
        }
        if (has(t, IOException.class)) {
            return String.format("%s of %s at %s failed: the connection broke: %s", operation, where, endpoint,
                    rootMessage(t));
        }
        return String.format("%s of %s at %s failed: %s", operation, where, endpoint, rootMessage(t));
    }

    /** The S3 error code, or null. */
    static String code(ErrorResponseException e) {
        return e.errorResponse() == null ? null : e.errorResponse().code();
    }

    /** Whether the failure is S3's "not found" for the object or the upload (not the bucket). */
    static boolean notFound(Throwable failure) {
        return unwrap(failure) instanceof ErrorResponseException e && !"NoSuchBucket".equals(code(e))
                && (e.response() != null && e.response().code() == 404 || "NoSuchKey".equals(code(e))
                        || "NoSuchUpload".equals(code(e)));
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage();
        return m == null || m.isBlank() ? root.getClass().getSimpleName() : oneLine(m);
    }
}
