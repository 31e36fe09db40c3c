package io.dgen4j.azure;

import com.azure.core.exception.HttpResponseException;
import com.azure.storage.blob.models.BlobStorageException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import reactor.core.Exceptions;

/** One-line messages for the Azure SDK's failures: the operation, the blob, the cause; never a secret. */
final class AzureErrors {
    private AzureErrors() {}

    /**
     * An {@link IOException} for {@code e} thrown by {@code what} on {@code where}: the service's status
     * and error code, or the transport's cause (connection refused, reset, timeout), masked by {@code s}.
     */
    static IOException io(String what, AzureLocation where, AzureSettings s, Throwable e) {
        Throwable t = Exceptions.unwrap(e);
        String msg = s.mask(String.format("%s %s: %s", what, where, describe(t, s)));
        if (t instanceof BlobStorageException b && b.getStatusCode() == 404 && b.getErrorCode() != null
                && b.getErrorCode().toString().equals("BlobNotFound")) {
            NoSuchFileException n = new NoSuchFileException(where.toString(), null, msg);
            n.initCause(t);
            return n;
        }
        return new IOException(msg, t);
    }

    /** The cause in one line: {@code 403 AuthenticationFailed at <endpoint> (...)} or the transport's error. */
    static String describe(Throwable t, AzureSettings s) {
        t = Exceptions.unwrap(t);
        if (t instanceof BlobStorageException b) {
            String code = b.getErrorCode() == null ? "" : " " + b.getErrorCode();
            String hint = switch (b.getStatusCode()) {
                case 403 -> String.format(" (account %s at %s: check the %s from %s)", s.account(), s.endpoint(),
                        s.usesSharedKey() ? "account key" : "SAS token", s.source());
                case 404 -> code.contains("ContainerNotFound") ? " (no such container in account " + s.account()
                        + " at " + s.endpoint() + ")" : "";
                default -> "";
            };
            return b.getStatusCode() + code + hint;
        }
        if (t instanceof HttpResponseException h && h.getResponse() != null) {
            return "HTTP " + h.getResponse().getStatusCode() + " from " + s.endpoint();
        }
        // a transport failure: the innermost cause names it (connection refused, reset, timeout)
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + firstLine(root.getMessage());
        return m + " (endpoint " + s.endpoint() + ")";
    }

    private static String firstLine(String m) {
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
