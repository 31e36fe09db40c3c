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

    /** The byte offset the failure concerns, if any. */
    public OptionalLong offset() {
        return offset < 0 ? OptionalLong.empty() : OptionalLong.of(offset);
    }
}
