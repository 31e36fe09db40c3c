package io.dgen4j.aws;

import java.util.function.Supplier;

/**
 * A value made on its first {@link #get()}, once, and whether it has been made: a load never makes
 * the async client (its HEAD and GETs go through the sync one), a save never makes the sync client.
 */
final class Lazy<T> implements Supplier<T> {
    private final Supplier<T> maker;
    private volatile T value;

    Lazy(Supplier<T> maker) {
        this.maker = maker;
    }

    @Override
    public T get() {
        T v = value;
        if (v == null) {
            synchronized (this) {
                v = value;
                if (v == null) {
                    v = maker.get();
                    value = v;
                }
            }
        }
        return v;
    }

    /** Whether {@link #get()} has made the value. */
    boolean made() {
        return value != null;
    }

    /** The value if made, else null. */
    T ifMade() {
        return value;
    }
}
