package io.dgen4j.storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A storage session: the backends one caller uses and what they hold between saves and loads (for
 * S3: pools of clients, endpoint health, uploads a failure left open), owned by the caller and
 * released by {@link #close()}. Nothing of it is shared with another session: two sessions open
 * clients of their own and judge endpoints on their own. Backends are loaded afresh with
 * {@link ServiceLoader} for each session and read their settings from the session's
 * {@link #environment()} and {@link #workingDirectory()} (default: the process's).
 *
 * {@snippet :
 * try (Storage storage = Storage.open()) {
 *     StreamingCheckpoint ckpt = StreamingCheckpoint.builder().storage(storage).build();
 *     ckpt.save("s3://bucket/ckpt-1.bin", 8L << 30);   // the clients made here ...
 *     ckpt.save("s3://bucket/ckpt-2.bin", 8L << 30);   // ... are reused here
 * }   // closes the clients; waits (bounded) for the aborts of uploads a failure left open
 * }
 */
public final class Storage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Storage.class);
    /** The variable that bounds how long {@link #close()} waits for uploads left open to be aborted, in seconds. */
    public static final String ABORT_WAIT_VAR = "DGEN4J_S3_ABORT_WAIT";
    /** The wait when {@value #ABORT_WAIT_VAR} is unset or blank, in seconds. */
    public static final long DEFAULT_ABORT_WAIT_SECONDS = 30;
    /** The longest wait {@value #ABORT_WAIT_VAR} may ask for: an hour. */
    public static final long MAX_ABORT_WAIT_SECONDS = 3600;

    private final Map<String, String> environment;
    private final Path workingDirectory;
    private final Duration abortWait;
    /** The providers loaded for this session, each opened with it and closed by {@link #close()}. */
    private final List<StorageProvider> providers;
    /** Their backends, in priority order (then by name). */
    private final List<StorageProvider> backends;
    private volatile boolean closed;

    private Storage(Map<String, String> environment, Path workingDirectory) {
        this.environment = Map.copyOf(environment);
        this.workingDirectory = workingDirectory.toAbsolutePath();
        this.abortWait = Duration.ofSeconds(abortWaitSeconds(environment.get(ABORT_WAIT_VAR)));
        this.providers = load();
        List<StorageProvider> opened = new ArrayList<>();
        try {
            for (StorageProvider p : providers) {
                p.open(this.environment, this.workingDirectory);
                opened.add(p);
            }
        } catch (RuntimeException e) {
            opened.forEach(Storage::closeQuietly);
            throw e;
        }
        this.backends = sorted(providers.stream().flatMap(p -> p.backends().stream()).toList());
    }

    /** A session that reads the process's environment and working directory. */
    public static Storage open() {
        return open(System.getenv(), Path.of(""));
    }

    /**
     * A session whose backends read their settings (S3 credentials, endpoints, {@code .env}) from
     * {@code environment} and {@code workingDirectory} instead of the process's.
     *
     * @throws IllegalArgumentException when {@value #ABORT_WAIT_VAR} in {@code environment} is not a
     *         whole number of seconds from 0 to {@value #MAX_ABORT_WAIT_SECONDS}
     */
    public static Storage open(Map<String, String> environment, Path workingDirectory) {
        return new Storage(Objects.requireNonNull(environment, "environment"),
                Objects.requireNonNull(workingDirectory, "workingDirectory"));
    }

    /**
     * The wait {@value #ABORT_WAIT_VAR} asks for: whole seconds from 0 (do not wait) to
     * {@value #MAX_ABORT_WAIT_SECONDS}; {@value #DEFAULT_ABORT_WAIT_SECONDS} when unset or blank.
     *
     * @throws IllegalArgumentException naming the variable and the range, for anything else
     *         ({@code abc}, {@code -5}, {@code 1.5}, {@code 99999})
     */
    public static long abortWaitSeconds(String setting) {
        if (setting == null || setting.isBlank()) {
            return DEFAULT_ABORT_WAIT_SECONDS;
        }
        String t = setting.strip();
        if (!t.matches("\\d{1,9}") || Long.parseLong(t) > MAX_ABORT_WAIT_SECONDS) {
            throw new IllegalArgumentException(String.format("%s=%s must be a whole number of seconds from 0 to %d "
                    + "(0: do not wait; unset: %d)", ABORT_WAIT_VAR, setting, MAX_ABORT_WAIT_SECONDS,
                    DEFAULT_ABORT_WAIT_SECONDS));
        }
        return Long.parseLong(t);
    }

    /** The variables the session's backends read their settings from. */
    public Map<String, String> environment() {
        return environment;
    }

    /** The directory the session's backends resolve relative settings files ({@code .env}) against. */
    public Path workingDirectory() {
        return workingDirectory;
    }

    /** How long {@link #close()} waits for uploads left open to be aborted ({@value #ABORT_WAIT_VAR}). */
    public Duration abortWait() {
        return abortWait;
    }

    /** Every backend of the session ({@link StorageProvider#backends()} of each provider), available or not, in priority order. */
    public List<StorageProvider> backends() {
        checkOpen();
        return backends;
    }

    /** The backend called {@code name}, if one is installed. */
    public Optional<StorageProvider> named(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return backends().stream().filter(p -> p.name().equals(n)).findFirst();
    }

    /** The session's provider of type {@code type} (one that {@link ServiceLoader} found), if there is one. */
    public <T> Optional<T> provider(Class<T> type) {
        checkOpen();
        return providers.stream().filter(type::isInstance).map(type::cast).findFirst();
    }

    /**
     * The backend for {@code target}: {@code backend} when given (it must serve the target's
     * scheme and be available), else the available backend of highest priority for the scheme.
     *
     * @throws IllegalArgumentException naming the installed backends when none fits
     * @throws IllegalStateException when the session is closed
     */
    public StorageProvider forTarget(StorageTarget target, Optional<String> backend) {
        return choose(backends(), target, backend);
    }

    /**
     * Writes that a failure left open and that the backends still try to abort in the background
     * (as {@code upload <id> of s3://b/k}).
     */
    public List<String> uploadsLeftOpen() {
        List<String> all = new ArrayList<>();
        for (StorageProvider p : providers) {
            all.addAll(p.uploadsLeftOpen());
        }
        return all;
    }

    /** For each of {@link #uploadsLeftOpen()}, the command that aborts it by hand (as the backend writes it). */
    public List<String> abortCommands() {
        if (closed) {
            return leftAtClose;
        }
        List<String> all = new ArrayList<>();
        for (StorageProvider p : providers) {
            all.addAll(p.abortCommands());
        }
        return all;
    }

    /**
     * Waits until no upload is left open or {@code max} has passed; returns those still open.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public List<String> awaitUploadsLeftOpen(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        List<String> open = uploadsLeftOpen();
        while (!open.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
            open = uploadsLeftOpen();
        }
        return open;
    }

    /**
     * Waits up to {@link #abortWait()} for the uploads a failure left open to be aborted (an
     * interrupt ends the wait), then closes every backend of the session (their clients), and logs a
     * warning naming what is still open, with the commands that abort it. Calling it again does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        List<String> open = close(abortWait);
        if (!open.isEmpty()) {
            LOG.warn("still open when the storage session closed: {}; abort {} when an endpoint is back{}",
                    String.join(", ", open), open.size() == 1 ? "it" : "them",
                    leftAtClose.isEmpty() ? "" : " with: " + String.join("; ", leftAtClose));
        }
    }

    /**
     * {@link #close()} without keeping the caller: at once when nothing is left open, else from a
     * daemon thread of its own, so that the backends keep aborting what a failure left open (up to
     * {@link #abortWait()}) while the caller goes on. What a one-off save or load opened for itself
     * is closed this way.
     */
    public void closeInBackground() {
        if (closed) {
            return;
        }
        if (uploadsLeftOpen().isEmpty()) {
            close();
        } else {
            Thread.ofPlatform().daemon().name("dgen4j-storage-close").start(this::close);
        }
    }

    /**
     * Waits up to {@code wait} for the uploads a failure left open to be aborted (an interrupt ends
     * the wait and stays set), then closes every backend of the session; returns the uploads still
     * open, for the caller to report ({@link #abortCommands()} still answers after the close).
     */
    public synchronized List<String> close(Duration wait) {
        if (closed) {
            return List.of();
        }
        List<String> open = uploadsLeftOpen();
        if (!open.isEmpty() && wait.isPositive()) {
            try {
                open = awaitUploadsLeftOpen(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                open = uploadsLeftOpen();
            }
        }
        leftAtClose = open.isEmpty() ? List.of() : abortCommands();
        closed = true;
        providers.forEach(Storage::closeQuietly);
        return open;
    }

    /** The abort commands of the uploads still open when the session closed. */
    private volatile List<String> leftAtClose = List.of();

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this storage session is closed: its backends and their clients are "
                    + "released (open a new one with Storage.open())");
        }
    }

    private static void closeQuietly(StorageProvider p) {
        try {
            p.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the {} storage provider failed: {}", p.name(), e.toString());
        }
    }

    /** Fresh instances of every installed provider; one whose class cannot be loaded is left out with a warning. */
    static List<StorageProvider> load() {
        List<StorageProvider> found = new ArrayList<>();
        var it = ServiceLoader.load(StorageProvider.class, Storage.class.getClassLoader()).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                found.add(it.next());
            } catch (ServiceConfigurationError e) {
                // A backend whose client library is missing or broken: the others still work.
                LOG.warn("a storage backend could not be loaded: {}", e.getMessage());
            }
        }
        return List.copyOf(found);
    }

    static List<StorageProvider> sorted(List<StorageProvider> backends) {
        List<StorageProvider> list = new ArrayList<>(backends);
        list.sort(Comparator.comparingInt(StorageProvider::priority).reversed().thenComparing(StorageProvider::name));
        return List.copyOf(list);
    }

    /** The choice {@link #forTarget} makes among {@code installed}. */
    static StorageProvider choose(List<StorageProvider> installed, StorageTarget target, Optional<String> backend) {
        String scheme = target.scheme();
        if (backend.isPresent()) {
            String n = backend.get().toLowerCase(Locale.ROOT);
            StorageProvider p = installed.stream().filter(b -> b.name().equals(n)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(String.format(
                            "no storage backend called '%s' is installed (installed: %s)", backend.get(),
                            describe(installed))));
            if (!p.schemes().contains(scheme)) {
                throw new IllegalArgumentException(String.format("backend %s does not serve %s:// targets like %s "
                        + "(it serves %s)", p.name(), scheme, target, schemesOf(p)));
            }
            p.unavailable().ifPresent(why -> {
                throw new IllegalArgumentException("backend " + p.name() + " cannot be used here: " + why);
            });
            return p;
        }
        List<StorageProvider> serving = installed.stream().filter(p -> p.schemes().contains(scheme)).toList();
        return serving.stream().filter(p -> p.unavailable().isEmpty()).findFirst().orElseThrow(() ->
                new IllegalArgumentException(serving.isEmpty()
                        ? String.format("no storage backend for '%s://' in %s (installed: %s)", scheme, target,
                                describe(installed))
                        : String.format("no backend for '%s://' can be used here: %s", scheme, serving.stream()
                                .map(p -> p.name() + ": " + p.unavailable().orElse(""))
                                .collect(Collectors.joining("; ")))));
    }

    private static String describe(List<StorageProvider> installed) {
        return installed.stream().map(p -> p.name() + " (" + schemesOf(p) + ")").collect(Collectors.joining(", "));
    }

    private static String schemesOf(StorageProvider p) {
        return p.schemes().stream().sorted().map(s -> s + "://").collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return "storage session (" + (closed ? "closed" : backends.stream().map(StorageProvider::name)
                .collect(Collectors.joining(", "))) + ")";
    }
}
