package io.dgen4j.storage;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Backend options, one object per backend type ({@link FileOptions} for files; each S3 backend its
 * own): a caller sets those of every backend it may use, and each backend reads its own, so the
 * generic interfaces carry none of them.
 *
 * {@snippet :
 * StorageOptions o = StorageOptions.empty().with(FileOptions.defaults().withFsync(false));
 * FileOptions f = o.get(FileOptions.class).orElseGet(FileOptions::defaults);
 * }
 */
public final class StorageOptions {
    private static final StorageOptions EMPTY = new StorageOptions(Map.of());
    private final Map<Class<?>, Object> byType;

    private StorageOptions(Map<Class<?>, Object> byType) {
        this.byType = byType;
    }

    /** No options: every backend uses its defaults. */
    public static StorageOptions empty() {
        return EMPTY;
    }

    /** A copy with {@code options} set for its type (replacing an earlier object of that type). */
    public StorageOptions with(Object options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        Map<Class<?>, Object> m = new LinkedHashMap<>(byType);
        m.put(options.getClass(), options);
        return new StorageOptions(Map.copyOf(m));
    }

    /** The options of this type, if set. */
    public <T> Optional<T> get(Class<T> type) {
        return Optional.ofNullable(byType.get(type)).map(type::cast);
    }

    /** Names the option types only: option values may hold credentials. */
    @Override
    public String toString() {
        return "StorageOptions" + byType.keySet().stream().map(Class::getSimpleName).toList();
    }
}
