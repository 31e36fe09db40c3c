package io.dgen4j.nativelib;

import io.dgen4j.ffi.dgen4j_h;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A native entry point returned an error code that no standard exception describes; the message
 * is the core's own. {@link #check} and {@link #checkIo} are the one place where the core's
 * {@code DGEN4J_ERR_*} codes become Java exceptions.
 */
public final class NativeCallException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int code;

    NativeCallException(String function, int code, String message) {
        super(String.format("%s failed (%s): %s", function, codeName(code), message));
        this.code = code;
    }

    /** The {@code DGEN4J_ERR_*} code. */
    public int code() {
        return code;
    }

    /**
     * Throws when {@code rc} is not {@code DGEN4J_OK}, with the calling thread's native message:
     * {@link IllegalArgumentException} for {@code DGEN4J_ERR_INVALID_ARGUMENT} (the message is the
     * core's validation message alone), {@link UncheckedIOException} for {@code DGEN4J_ERR_IO}, a
     * {@code NativeCallException} naming the function otherwise. Must run on the thread that made
     * the failing call (the message is per thread).
     */
    public static void check(int rc, String function) {
        if (rc == dgen4j_h.DGEN4J_OK()) {
            return;
        }
        String message = lastError();
        if (rc == dgen4j_h.DGEN4J_ERR_IO()) {
            throw new UncheckedIOException(new IOException(message));
        }
        if (rc == dgen4j_h.DGEN4J_ERR_INVALID_ARGUMENT()) {
            throw new IllegalArgumentException(message);
        }
        throw new NativeCallException(function, rc, message);
    }

    /**
     * {@link #check}, for calls that do I/O: {@code DGEN4J_ERR_IO} is an {@link IOException} whose
     * message is the core's (it names the path, the offset and the system's reason).
     */
    public static void checkIo(int rc, String function) throws IOException {
        try {
            check(rc, function);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** The calling thread's last native error message ("" when none). */
    public static String lastError() {
        long len = dgen4j_h.dgen4j_last_error(MemorySegment.NULL, 0);
        if (len == 0) {
            return "";
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(len + 1);
            dgen4j_h.dgen4j_last_error(buf, len + 1);
            return buf.getString(0);
        }
    }

    static String codeName(int code) {
        return switch (code) {
            case 1 -> "DGEN4J_ERR_INVALID_ARGUMENT";
            case 2 -> "DGEN4J_ERR_OUT_OF_RANGE";
            case 3 -> "DGEN4J_ERR_RESOURCE";
            case 4 -> "DGEN4J_ERR_PANIC";
            case 5 -> "DGEN4J_ERR_IO";
            default -> "error " + code;
        };
    }
}
