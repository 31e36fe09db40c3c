package io.dgen4j.checkpoint;

/** Load with verify found bytes that differ from the regenerated stream. */
public final class VerifyException extends CheckpointException {
    private static final long serialVersionUID = 1L;

    VerifyException(String target, long offset, byte expected, byte found) {
        super(String.format("verify failed for %s: first mismatch at byte offset %d (expected 0x%02x, found 0x%02x)",
                target, offset, expected & 0xff, found & 0xff), offset, null);
    }

    /** A mismatch in a file laid out in a format; {@code where} names what the byte is (a tensor, a record). */
    VerifyException(String target, long offset, byte expected, byte found, String where) {
        super(String.format("verify failed for %s: first mismatch at byte offset %d, in %s (expected 0x%02x, "
                + "found 0x%02x)", target, offset, where, expected & 0xff, found & 0xff), offset, null);
    }
}
