package io.dgen4j.cli.s3;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3TransportFactory;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** The S3 backends' per-endpoint transports ({@link S3TransportFactory}), found with {@link ServiceLoader}. */
public final class TransportFactories {
    private TransportFactories() {}

    /** Every installed factory, by backend name; one that cannot be loaded is left out. */
    public static List<S3TransportFactory> installed() {
        List<S3TransportFactory> found = new ArrayList<>();
        var it = ServiceLoader.load(S3TransportFactory.class, TransportFactories.class.getClassLoader()).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                found.add(it.next());
            } catch (ServiceConfigurationError e) {
                // a backend whose client library is missing: the others can still probe
            }
        }
        found.sort(Comparator.comparing(S3TransportFactory::backend));
        return found;
    }

    /**
     * The factory of backend {@code named}; when it is null or blank, that of the highest-priority
     * available S3 storage backend that has one, else the first installed.
     *
     * @throws IllegalArgumentException naming the backends that have one, when none fits
     */
    public static S3TransportFactory choose(String named) {
        List<S3TransportFactory> all = installed();
        String list = all.isEmpty() ? "none" : all.stream().map(S3TransportFactory::backend)
                .collect(Collectors.joining(", "));
        if (named != null && !named.isBlank()) {
            String n = named.strip().toLowerCase(Locale.ROOT);
            return all.stream().filter(f -> f.backend().equals(n)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException(String.format("backend '%s' cannot probe endpoints: it has no "
                            + "per-endpoint transport installed (backends that have one: %s)", named.strip(), list)));
        }
        for (StorageProvider p : StorageProviders.installed()) {
            if (p.schemes().contains(S3Location.SCHEME) && p.unavailable().isEmpty()) {
                Optional<S3TransportFactory> f = all.stream().filter(x -> x.backend().equals(p.name())).findFirst();
                if (f.isPresent()) {
                    return f.get();
                }
            }
        }
        return all.stream().findFirst().orElseThrow(() -> new IllegalArgumentException("no installed S3 backend can "
                + "probe endpoints (none registers an io.dgen4j.s3.S3TransportFactory)"));
    }
}
