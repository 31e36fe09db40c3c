package io.dgen4j.storage;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The installed storage backends ({@link StorageProvider}s found by {@link ServiceLoader}), and the
 * choice of one for a target: the one named, else the available one of highest priority that
 * serves the target's scheme.
 */
public final class StorageProviders {
    private static final Logger LOG = LoggerFactory.getLogger(StorageProviders.class);
    private static volatile List<StorageProvider> installed;

    private StorageProviders() {}

    /** Every installed backend ({@link StorageProvider#backends()} of each provider), available or not, in priority order. */
    public static List<StorageProvider> installed() {
        List<StorageProvider> list = installed;
        if (list == null) {
            List<StorageProvider> found = new ArrayList<>();
            ServiceLoader<StorageProvider> loader = ServiceLoader.load(StorageProvider.class,
                    StorageProviders.class.getClassLoader());
            var it = loader.iterator();
            while (true) {
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    found.addAll(it.next().backends());
                } catch (ServiceConfigurationError e) {
                    // A backend whose client library is missing or broken: the others still work.
                    LOG.warn("a storage backend could not be loaded: {}", e.getMessage());
                }
            }
            found.sort(Comparator.comparingInt(StorageProvider::priority).reversed()
                    .thenComparing(StorageProvider::name));
            installed = list = List.copyOf(found);
        }
        return list;
    }

    /** The installed backend called {@code name}, if any. */
    public static Optional<StorageProvider> named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return installed().stream().filter(p -> p.name().equals(n)).findFirst();
    }

    /**
     * The backend for {@code target}: {@code backend} when given (it must serve the target's
     * scheme and be available), else the available backend of highest priority for the scheme.
     *
     * @throws IllegalArgumentException naming the installed backends when none fits
     */
    public static StorageProvider forTarget(StorageTarget target, Optional<String> backend) {
        String scheme = target.scheme();
        if (backend.isPresent()) {
            StorageProvider p = named(backend.get()).orElseThrow(() -> new IllegalArgumentException(String.format(
                    "no storage backend called '%s' is installed (installed: %s)", backend.get(), describe())));
            if (!p.schemes().contains(scheme)) {
                throw new IllegalArgumentException(String.format("backend %s does not serve %s:// targets like %s "
                        + "(it serves %s)", p.name(), scheme, target, schemesOf(p)));
            }
            p.unavailable().ifPresent(why -> {
                throw new IllegalArgumentException("backend " + p.name() + " cannot be used here: " + why);
            });
            return p;
        }
        List<StorageProvider> serving = installed().stream().filter(p -> p.schemes().contains(scheme)).toList();
        return serving.stream().filter(p -> p.unavailable().isEmpty()).findFirst().orElseThrow(() ->
                new IllegalArgumentException(serving.isEmpty()
                        ? String.format("no storage backend for '%s://' in %s (installed: %s)", scheme, target, describe())
                        : String.format("no backend for '%s://' can be used here: %s", scheme, serving.stream()
                                .map(p -> p.name() + ": " + p.unavailable().orElse(""))
                                .collect(Collectors.joining("; ")))));
    }

    private static String describe() {
        return installed().stream().map(p -> p.name() + " (" + schemesOf(p) + ")").collect(Collectors.joining(", "));
    }

    private static String schemesOf(StorageProvider p) {
        return p.schemes().stream().sorted().map(s -> s + "://").collect(Collectors.joining(", "));
    }
}
