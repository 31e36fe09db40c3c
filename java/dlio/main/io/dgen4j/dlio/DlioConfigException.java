package io.dgen4j.dlio;

/** A DLIO config that cannot be used: the message names the key ({@link #key()}) and says why. */
public final class DlioConfigException extends IllegalArgumentException {
    private final String key;

    /** A failure of {@code key} (a dotted path such as {@code model.parallelism.zero_stage}). */
    public DlioConfigException(String key, String message) {
        super(key + ": " + message);
        this.key = key;
    }

    /** The dotted path of the key at fault. */
    public String key() {
        return key;
    }
}
