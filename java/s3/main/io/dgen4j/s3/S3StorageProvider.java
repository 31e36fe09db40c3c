package io.dgen4j.s3;

import io.dgen4j.s3.internal.PartPlan;
import io.dgen4j.s3.internal.S3Pools;
import io.dgen4j.s3.spi.S3Errors;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage provider of {@code s3://} targets, registered once: it serves every installed S3 client
 * ({@link S3ClientProvider}s found with {@link ServiceLoader}) as a backend of its own name
 * ({@link #backends()}: {@code aws}, {@code crt}, {@code minio}), so that a backend is chosen by name
 * ({@code --backend}, {@code DGEN4J_S3_BACKEND}) or, when none is named, by the clients' priorities.
 * Used directly, it writes and reads through the available client of highest priority.
 *
 * <p>Each instance is one storage session's ({@link io.dgen4j.storage.Storage} loads one per session
 * and {@linkplain #open opens} it with the session's environment): its backends share its pools of
 * clients and its endpoint health, which no other instance sees, and {@link #close()} closes them.
 * An instance no session opened reads the process's environment and working directory.
 */
public final class S3StorageProvider implements StorageProvider {
    private static final Logger LOG = LoggerFactory.getLogger(S3StorageProvider.class);

    private final List<S3Backend> backends;
    private final S3Pools pools = new S3Pools();
    private volatile Map<String, String> environment = System.getenv();
    private volatile Path workingDirectory = Path.of("").toAbsolutePath();

    /** The service loader's constructor: one backend per installed client that stores. */
    public S3StorageProvider() {
        this.backends = clients().stream().filter(S3ClientProvider::stores).map(c -> new S3Backend(c, this))
                .toList();
    }

    /** Reads the settings that requests do not carry from {@code environment} and {@code workingDirectory}'s {@code .env}. */
    @Override
    public void open(Map<String, String> environment, Path workingDirectory) {
        this.environment = Map.copyOf(environment);
        this.workingDirectory = workingDirectory.toAbsolutePath();
    }

    /** The pools of this provider's backends (internal: for the CLI's reports and the clients' shutdown). */
    public S3Pools pools() {
        return pools;
    }

    /** The settings of the provider's environment and working directory, for requests that carry none. */
    S3Settings defaultSettings() {
        return S3Settings.fromEnvironment(environment, workingDirectory);
    }

    /**
     * The request's settings, else {@link #defaultSettings()}.
     *
     * @throws IOException when there are no credentials
     */
    S3Settings settings(StorageOptions options, S3Location where) throws IOException {
        S3Settings s = options.get(S3Settings.class).orElseGet(this::defaultSettings);
        if (!s.hasCredentials()) {
            throw new IOException(S3Errors.noCredentials(where));
        }
        return s;
    }

    /**
     * Every installed S3 client, available or not, in priority order (then by name); one whose module
     * cannot be loaded is left out with a warning. {@code dgen4j endpoints} probes through these.
     */
    public static List<S3ClientProvider> clients() {
        List<S3ClientProvider> found = new ArrayList<>();
        var it = ServiceLoader.load(S3ClientProvider.class, S3StorageProvider.class.getClassLoader()).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                found.add(it.next());
            } catch (ServiceConfigurationError e) {
                // a client whose library is missing or broken: the others still work
                LOG.warn("an S3 client could not be loaded: {}", e.getMessage());
            }
        }
        found.sort(Comparator.comparingInt(S3ClientProvider::priority).reversed()
                .thenComparing(S3ClientProvider::name));
        return List.copyOf(found);
    }

    @Override
    public String name() {
        return S3Location.SCHEME;
    }

    @Override
    public Set<String> schemes() {
        return Set.of(S3Location.SCHEME);
    }

    /** One backend per installed S3 client, in priority order. */
    @Override
    public List<StorageProvider> backends() {
        return List.copyOf(backends);
    }

    @Override
    public Optional<String> unavailable() {
        if (backends.isEmpty()) {
            return Optional.of("no S3 client is installed (add dgen4j-aws, dgen4j-crt or dgen4j-minio)");
        }
        if (backends.stream().anyMatch(b -> b.unavailable().isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(backends.stream().map(b -> b.name() + ": " + b.unavailable().orElse(""))
                .collect(Collectors.joining("; ")));
    }

    @Override
    public void checkWrite(WriteRequest request) {
        // the part plan of the backend that openWriter would use
        long largest = backends.stream().filter(b -> b.unavailable().isEmpty()).findFirst()
                .map(S3Backend::largestEfficientPart).orElse(PartPlan.MAX_PART_SIZE);
        PartPlan.check(request, this::defaultSettings, largest);
    }

    @Override
    public StorageWriter openWriter(WriteRequest request) throws IOException {
        return best().openWriter(request);
    }

    @Override
    public StorageReader openReader(ReadRequest request) throws IOException {
        return best().openReader(request);
    }

    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        return best().delete(target, options);
    }

    /** Uploads a failure left open that this provider's pools still abort in the background. */
    @Override
    public List<String> uploadsLeftOpen() {
        return pools.uploadsLeftOpen();
    }

    /** For each upload left open, the AWS CLI command that aborts it. */
    @Override
    public List<String> abortCommands() {
        return pools.abortCommands();
    }

    /** Closes every backend's pools of clients; requests after it are refused. */
    @Override
    public void close() {
        pools.close();
    }

    private S3Backend best() throws IOException {
        Optional<String> why = unavailable();
        if (why.isPresent()) {
            throw new IOException("no S3 client can be used here: " + why.get());
        }
        return backends.stream().filter(b -> b.unavailable().isEmpty()).findFirst().orElseThrow();
    }

    @Override
    public String toString() {
        return "s3:// storage provider (clients: " + backends.stream().map(S3Backend::name)
                .collect(Collectors.joining(", ")) + ")";
    }
}
