package io.dgen4j.checkpoint;

import java.io.IOException;
import java.util.OptionalLong;

/** A save or load failed; names the target and, where one applies, the byte offset. */
public class CheckpointException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long offset;

    /** A failure at {@code offset} (or -1 when no offset applies). */
    public CheckpointException(String message, long offset, Throwable cause) {
        super(message, cause);
        this.offset = offset;
    }

    /** Throws a pipeline's first failure as it is (I/O, runtime or error), wrapping anything else. */
    static void rethrow(Throwable t) throws IOException {
        switch (t) {
            case null -> { }
            case IOException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IOException(t);
        }
    }

    /** The byte offset the failure concerns, if any. */
    public OptionalLong offset() {
        return offset < 0 ? OptionalLong.empty() : OptionalLong.of(offset);
    }
}
