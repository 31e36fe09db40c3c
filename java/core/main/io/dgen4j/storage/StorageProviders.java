package io.dgen4j.storage;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Stateless shortcuts to the installed storage backends, for tests and one-off tools: each call
 * loads fresh providers (found by {@link java.util.ServiceLoader}) that read the process's
 * environment, and the caller closes what it opens through them ({@link StorageProvider#close()}).
 * Programs that save or load more than once use a {@link Storage} session, which owns its providers
 * and their clients and closes them.
 */
public final class StorageProviders {
    private StorageProviders() {}

    /** Every installed backend ({@link StorageProvider#backends()} of each provider), available or not, in priority order. */
    public static List<StorageProvider> installed() {
        return Storage.sorted(Storage.load().stream().flatMap(p -> p.backends().stream()).toList());
    }

    /** The installed backend called {@code name}, if any. */
    public static Optional<StorageProvider> named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return installed().stream().filter(p -> p.name().equals(n)).findFirst();
    }

    /**
     * The backend for {@code target}, chosen as {@link Storage#forTarget} chooses.
     *
     * @throws IllegalArgumentException naming the installed backends when none fits
     */
    public static StorageProvider forTarget(StorageTarget target, Optional<String> backend) {
        return Storage.choose(installed(), target, backend);
    }
}
