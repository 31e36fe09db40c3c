package io.dgen4j.cli.s3;

import io.dgen4j.s3.S3StorageProvider;
import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.StorageOptions;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The S3 clients' per-endpoint transports ({@link S3ClientProvider#transports}), for {@code dgen4j endpoints}. */
public final class TransportFactories {
    private TransportFactories() {}

    /**
     * The transports of client {@code named}; when it is null or blank, those of the highest-priority
     * available client that stores, else of the first installed.
     *
     * @throws IllegalArgumentException naming the installed clients, when none fits
     */
    public static S3TransportFactory choose(String named) {
        List<S3ClientProvider> all = S3StorageProvider.clients();
        String list = all.isEmpty() ? "none" : all.stream().map(S3ClientProvider::name).sorted(Comparator.naturalOrder())
                .collect(Collectors.joining(", "));
        S3ClientProvider client;
        if (named != null && !named.isBlank()) {
            String n = named.strip().toLowerCase(Locale.ROOT);
            client = all.stream().filter(c -> c.name().equals(n)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException(String.format("backend '%s' cannot probe endpoints: it has no "
                            + "per-endpoint transport installed (backends that have one: %s)", named.strip(), list)));
        } else {
            client = all.stream().filter(c -> c.stores() && c.unavailable().isEmpty()).findFirst()
                    .or(() -> all.stream().findFirst()).orElseThrow(() -> new IllegalArgumentException(
                            "no installed S3 backend can probe endpoints (none registers an "
                                    + "io.dgen4j.s3.spi.S3ClientProvider)"));
        }
        return client.transports(StorageOptions.empty(), 0);
    }
}
