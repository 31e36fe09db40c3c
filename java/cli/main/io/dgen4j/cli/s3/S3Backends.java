package io.dgen4j.cli.s3;

import io.dgen4j.checkpoint.BufferPool;
import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.Errors;
import io.dgen4j.cli.ExitCodes;
import io.dgen4j.cli.option.CheckpointOptions;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.cli.report.Spread;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.s3.S3Location;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The same generated checkpoint saved and loaded with verify through each installed S3 backend,
 * one after the other, to one endpoint: what {@code dgen4j backends} and quickstart's part 2 run.
 */
public final class S3Backends {
    /**
     * Copies of each byte that a backend's client makes on the way out (documented here because
     * the providers do not declare it): {@code aws} sends the pool segment itself
     * ({@code AsyncRequestBody.fromRemainingByteBufferUnsafe}); {@code crt} hands the body to the
     * CRT's native buffers (one copy); {@code minio} only takes {@code byte[]} bodies (one copy).
     */
    public static final Map<String, Integer> COPIES_PER_BYTE = Map.of("aws", 0, "crt", 1, "minio", 1, "azure", 0);

    /** The name of the {@code az://} backend, which {@code --backends} may name beside the S3 ones. */
    public static final String AZURE = "azure";

    /** Where one backend writes: its prefix ({@code s3://bucket/p/} or {@code az://container/p/}) and its settings. */
    private record Place(StorageProvider provider, String prefix, Object settings) {
        String target(String name) {
            return prefix + name;
        }
    }

    private S3Backends() {}

    /** One backend's run: its save and verified load, or why it did not run or failed. */
    public record Run(String backend, String target, SaveResult save, LoadResult load, double cpuSeconds,
               double firstCpuSeconds, Integer copiesPerByte, String unavailable, String error, int exitCode) {
        public boolean ok() {
            return save != null && load != null && error == null;
        }

        public double saveMBps() {
            return save.totalBytes() / Math.max(1e-9, save.totalSeconds()) / 1e6;
        }

        public double loadMBps() {
            return load.totalBytes() / Math.max(1e-9, load.totalSeconds()) / 1e6;
        }

        public double cpuSecondsPerGiB() {
            return perGiB(cpuSeconds);
        }

        /**
         * The CPU seconds per GiB of the round's first save, its clients starting (a one-shot run's
         * figure); the measured save's own when there was no first save before it.
         */
        public double firstCpuSecondsPerGiB() {
            return perGiB(Double.isNaN(firstCpuSeconds) ? cpuSeconds : firstCpuSeconds);
        }

        private double perGiB(double seconds) {
            return save.totalBytes() == 0 ? Double.NaN : seconds / (save.totalBytes() / (double) (1L << 30));
        }
    }

    /**
     * One backend over every round: its figures as medians and min-max spreads. A backend is ok when
     * every round was; one that failed has its failing round last.
     */
    public record Backend(String backend, List<Run> rounds) {
        public Backend {
            rounds = List.copyOf(rounds);
        }

        public boolean ok() {
            return !rounds.isEmpty() && rounds.stream().allMatch(Run::ok);
        }

        /** The first round (its target, copies per byte, whether available). */
        public Run first() {
            return rounds.getFirst();
        }

        /** Why it did not run, or null. */
        public String unavailable() {
            return first().unavailable();
        }

        /** Why a round failed, or null. */
        public String error() {
            return rounds.stream().map(Run::error).filter(e -> e != null).findFirst().orElse(null);
        }

        /** The failed round's exit status, or 0. */
        public int exitCode() {
            return rounds.stream().filter(r -> r.error() != null).mapToInt(Run::exitCode).findFirst().orElse(0);
        }

        public Spread saveMBps() {
            return Spread.of(rounds.stream().mapToDouble(Run::saveMBps).toArray());
        }

        public Spread loadMBps() {
            return Spread.of(rounds.stream().mapToDouble(Run::loadMBps).toArray());
        }

        public Spread saveSeconds() {
            return Spread.of(rounds.stream().mapToDouble(r -> r.save().totalSeconds()).toArray());
        }

        public Spread loadSeconds() {
            return Spread.of(rounds.stream().mapToDouble(r -> r.load().totalSeconds()).toArray());
        }

        public Spread cpuSecondsPerGiB() {
            return Spread.of(rounds.stream().mapToDouble(Run::cpuSecondsPerGiB).toArray());
        }

        public Spread firstCpuSecondsPerGiB() {
            return Spread.of(rounds.stream().mapToDouble(Run::firstCpuSecondsPerGiB).toArray());
        }

        public Spread cpuSeconds() {
            return Spread.of(rounds.stream().mapToDouble(Run::cpuSeconds).toArray());
        }

        public Spread peakRssBytes() {
            return Spread.of(rounds.stream().mapToDouble(r -> r.save().peakRssBytes()).toArray());
        }

        /** Whether every round's load verified every byte. */
        public boolean verified() {
            return ok() && rounds.stream().allMatch(r -> r.load().verified());
        }

        /** The round whose save MB/s is the median (of an even count, the lower middle one). */
        public Run medianRound() {
            List<Run> sorted = rounds.stream().sorted(java.util.Comparator.comparingDouble(Run::saveMBps)).toList();
            return sorted.get((sorted.size() - 1) / 2);
        }
    }

    /**
     * The backends of {@code s3://} of the command's storage session ({@code env}'s; else freshly loaded), in
     * priority order, limited to {@code only} when not empty.
     */
    public static List<StorageProvider> providers(Environment env, List<String> only) {
        List<StorageProvider> all = env.storage() != null ? env.storage().backends() : StorageProviders.installed();
        List<StorageProvider> s3 = all.stream()
                .filter(p -> p.schemes().contains(S3Location.SCHEME)).toList();
        if (only == null || only.isEmpty()) {
            return s3;
        }
        Set<String> names = new LinkedHashSet<>();
        for (String n : only) {
            names.add(n.strip().toLowerCase(Locale.ROOT));
        }
        List<StorageProvider> picked = new ArrayList<>();
        for (String n : names) {
            if (n.equals(AZURE)) {
                continue; // not an S3 backend: azureProvider
            }
            picked.add(s3.stream().filter(p -> p.name().equals(n)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException(String.format("--backends: no S3 backend called '%s' is installed "
                            + "(installed: %s)", n, String.join(", ", s3.stream().map(StorageProvider::name).toList())))));
        }
        return picked;
    }

    /**
     * The {@code az://} backend of the command's storage session, when it is installed and {@code only} (the
     * {@code --backends} names) is empty or names it.
     */
    public static Optional<StorageProvider> azureProvider(Environment env, List<String> only) {
        if (only != null && !only.isEmpty() && only.stream().noneMatch(n -> n.strip().equalsIgnoreCase(AZURE))) {
            return Optional.empty();
        }
        List<StorageProvider> all = env.storage() != null ? env.storage().backends() : StorageProviders.installed();
        return all.stream().filter(p -> p.name().equals(AZURE)).findFirst();
    }

    /** Whether {@code only} (the {@code --backends} names) names no S3 backend but the {@code az://} one alone. */
    public static boolean azureOnly(List<String> only) {
        return only != null && !only.isEmpty() && only.stream().allMatch(n -> n.strip().equalsIgnoreCase(AZURE));
    }

    /** The S3 backends alone: the other {@code run} without an {@code az://} row. */
    public static List<Backend> run(S3Endpoint endpoint, List<StorageProvider> providers, long size,
            CheckpointOptions options, Environment env, long chunk, boolean bars, boolean keep, boolean warmUp,
            int rounds, PrintWriter err) throws InterruptedException {
        return run(endpoint, null, null, providers, size, options, env, chunk, bars, keep, warmUp, rounds, err);
    }

    /**
     * Saves {@code size} bytes in chunks of {@code chunk} through each backend to {@code endpoint}'s prefix (one object per
     * backend, {@code <backend>.bin}), loads it back with verify, and deletes it unless {@code keep}.
     * A backend that fails is reported in its row; the others still run. Every backend saves and
     * loads through one buffer pool, mapped once, so that whoever goes first does not pay for
     * mapping it. With {@code warmUp}, each backend first saves the same size once more (deleted), its
     * CPU time the one-shot figure, so that its client's start (class loading, connection pool, JIT) and
     * the pool's first touch do not count against the measured save, the steady state. With {@code rounds} above 1 this repeats,
     * interleaved (round 1 of every backend, then round 2, ...); a backend that failed or is
     * unavailable is not tried again. With {@code azure} and its provider ({@code azureProvider}), the
     * {@code az://} backend runs last in each round, the same way, to {@code azure}'s prefix ({@code azure.bin}).
     */
    public static List<Backend> run(S3Endpoint endpoint, AzureEndpoint azure, StorageProvider azureProvider,
            List<StorageProvider> providers, long size, CheckpointOptions options, Environment env, long chunk,
            boolean bars, boolean keep, boolean warmUp, int rounds, PrintWriter err) throws InterruptedException {
        List<Place> places = new ArrayList<>();
        for (StorageProvider p : providers) {
            places.add(new Place(p, endpoint.prefix(), endpoint.settings()));
        }
        if (azure != null && azure.skipped() == null && azureProvider != null) {
            places.add(new Place(azureProvider, azure.prefix(), azure.settings()));
        }
        // buffers not above writers: no shared pool, and the builder says what to change
        try (BufferPool shared = options.buffers > options.writers ? new BufferPool(options.buffers, chunk) : null) {
            return run(places, size, options, env, chunk, bars, keep, warmUp, rounds, err,
                    b -> shared == null ? b : b.bufferPool(shared));
        }
    }

    private static List<Backend> run(List<Place> providers, long size,
            CheckpointOptions options, Environment env, long chunk, boolean bars, boolean keep, boolean warmUp,
            int rounds, PrintWriter err, UnaryOperator<StreamingCheckpoint.Builder> pooled)
            throws InterruptedException {
        List<List<Run>> runs = new ArrayList<>();
        providers.forEach(p -> runs.add(new ArrayList<>()));
        // interleaved: round 1 of every backend, then round 2, ... so that a drift of the store or the
        // machine over time spreads over every backend instead of favouring the one that ran first
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < providers.size(); i++) {
                List<Run> mine = runs.get(i);
                if (!mine.isEmpty() && !mine.getLast().ok()) {
                    continue; // unavailable or failed: said once, in its first round
                }
                mine.add(runOnce(providers.get(i), size, options, env, chunk, bars, keep, warmUp,
                        rounds > 1 ? " " + round + "/" + rounds : "", err, pooled));
            }
        }
        List<Backend> backends = new ArrayList<>();
        for (int i = 0; i < providers.size(); i++) {
            backends.add(new Backend(providers.get(i).provider().name(), runs.get(i)));
        }
        return backends;
    }

    private static Run runOnce(Place endpoint, long size, CheckpointOptions options,
            Environment env, long chunk, boolean bars, boolean keep, boolean warmUp, String round, PrintWriter err,
            UnaryOperator<StreamingCheckpoint.Builder> pooled) throws InterruptedException {
        StorageProvider p = endpoint.provider();
        String target = endpoint.target(p.name() + ".bin");
        Integer copies = COPIES_PER_BYTE.get(p.name());
        Optional<String> why = p.unavailable();
        if (why.isPresent()) {
            return new Run(p.name(), target, null, null, Double.NaN, Double.NaN, copies, why.get(), null, 0);
        }
        StorageTarget where = StorageTarget.parse(target);
        StorageOptions storage = StorageOptions.empty().with(endpoint.settings());
        SaveResult saved = null;
        LoadResult loaded = null;
        double cpu = Double.NaN;
        double firstCpu = Double.NaN;
        boolean interrupted = false;
        Run run;
        try {
            if (warmUp) {
                // every round: the clients closed after the previous one start again; the same size
                // as the measured save, so that its CPU per GiB is what a one-shot run of it costs
                StorageTarget warm = StorageTarget.parse(endpoint.target(p.name() + ".warmup.bin"));
                try (Progress bar = new Progress(System.err, String.format("%-5s 1st save%s   ", p.name(), round),
                        size, bars)) {
                    StreamingCheckpoint first = pooled.apply(options.builder(bar::update, env).chunkSize(chunk)
                            .backend(p.name()).backendOptions(endpoint.settings())).build();
                    Duration before = cpuTime();
                    first.save(warm, size);
                    Duration after = cpuTime();
                    firstCpu = before == null || after == null ? Double.NaN : after.minus(before).toNanos() / 1e9;
                } finally {
                    delete(p, warm, storage, err);
                }
            }
            // what the previous backend left on the heap is not this one's peak RSS
            System.gc();
            try (Progress bar = new Progress(System.err, String.format("%-5s save%s       ", p.name(), round), size,
                    bars)) {
                StreamingCheckpoint ckpt = pooled.apply(options.builder(bar::update, env).chunkSize(chunk)
                        .backend(p.name()).backendOptions(endpoint.settings())).build();
                Duration before = cpuTime();
                saved = ckpt.save(where, size);
                Duration after = cpuTime();
                cpu = before == null || after == null ? Double.NaN : after.minus(before).toNanos() / 1e9;
            }
            try (Progress bar = new Progress(System.err, String.format("%-5s load+verify%s", p.name(), round), size,
                    bars)) {
                loaded = pooled.apply(options.builder(bar::update, env).chunkSize(chunk).backend(p.name())
                        .backendOptions(endpoint.settings())).build().load(where, true);
            }
            run = new Run(p.name(), target, saved, loaded, cpu, firstCpu, copies, null, null, 0);
        } catch (IOException | RuntimeException e) {
            if (ExitCodes.of(e) == ExitCodes.INTERRUPTED) {
                interrupted = true; // the aborted save left nothing; no more requests now
                throw interrupted(e);
            }
            run = new Run(p.name(), target, saved, loaded, cpu, firstCpu, copies, null, Errors.describe(e),
                    ExitCodes.of(e));
        } finally {
            if (!keep && !interrupted) {
                delete(p, where, storage, err);
            }
        }
        // The next backend's peak RSS is its own: this one's clients (their connections, native
        // buffers and threads) go now, unless a failure may have left an upload for them to abort.
        if (run.error() == null && p instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                err.printf("dgen4j: closing the %s backend's clients failed: %s%n", p.name(), Errors.describe(e));
                err.flush();
            }
        }
        return run;
    }

    private static InterruptedException interrupted(Exception e) {
        InterruptedException ie = new InterruptedException("interrupted");
        ie.initCause(e);
        return ie;
    }

    private static void delete(StorageProvider p, StorageTarget where, StorageOptions storage, PrintWriter err) {
        try {
            p.delete(where, storage);
        } catch (IOException | RuntimeException e) {
            // the run's own result says what failed; a leftover object is named by the caller's report
            err.printf("dgen4j: could not delete %s through %s: %s%n", where, p.name(), Errors.describe(e));
            err.flush();
        }
    }

    /** The process's CPU time so far (every thread, user and system), or null where the OS does not tell. */
    static Duration cpuTime() {
        return ProcessHandle.current().info().totalCpuDuration().orElse(null);
    }

    /** The backend of the best median save throughput of those that succeeded, or null. */
    public static Backend best(List<Backend> backends) {
        return backends.stream().filter(Backend::ok)
                .max(java.util.Comparator.comparingDouble(b -> b.saveMBps().median())).orElse(null);
    }

    /** The best median save throughput of the backends that succeeded (MB/s), or NaN. */
    public static double bestMBps(List<Backend> backends) {
        Backend best = best(backends);
        return best == null ? Double.NaN : best.saveMBps().median();
    }

    /** The lowest median client CPU per GiB of the backends that succeeded, or NaN. */
    public static double bestCpu(List<Backend> backends) {
        return backends.stream().filter(Backend::ok).mapToDouble(b -> b.cpuSecondsPerGiB().median())
                .filter(Double::isFinite).min().orElse(Double.NaN);
    }

    /** Whether {@code b}'s save MB/s ties with the best's: not the best, and their min-max ranges overlap. */
    public static boolean tiesBest(Backend b, Backend best) {
        return best != null && b != best && b.ok() && b.saveMBps().ties(best.saveMBps());
    }

    /**
     * One backend as a JSON object: the keys of one run with the medians over the rounds as their
     * values ({@code save} and {@code load}: the median round's), then {@code rounds}, {@code spread}
     * (each figure's median, min and max) and {@code tiesBest}.
     */
    public static Map<String, Object> toMap(Backend b, Backend best, double bestCpu) {
        Map<String, Object> m = new LinkedHashMap<>();
        Run r = b.first();
        m.put("backend", b.backend());
        m.put("target", r.target());
        m.put("available", r.unavailable() == null);
        if (r.unavailable() != null) {
            m.put("unavailable", r.unavailable());
        }
        m.put("ok", b.ok());
        if (b.error() != null) {
            m.put("error", b.error());
        }
        m.put("copiesPerByte", r.copiesPerByte());
        if (b.ok()) {
            double bestMBps = best.saveMBps().median();
            Run median = b.medianRound();
            m.put("saveSeconds", b.saveSeconds().median());
            m.put("saveMBps", b.saveMBps().median());
            m.put("cpuSeconds", b.cpuSeconds().median());
            m.put("cpuSecondsPerGiB", b.cpuSecondsPerGiB().median());
            m.put("firstSaveCpuSecondsPerGiB", b.firstCpuSecondsPerGiB().median());
            m.put("peakRssBytes", Math.round(b.peakRssBytes().median()));
            m.put("loadSeconds", b.loadSeconds().median());
            m.put("loadMBps", b.loadMBps().median());
            m.put("verified", b.verified());
            m.put("ratioToBest", b.saveMBps().median() / bestMBps);
            m.put("cpuRatioToBest", b.cpuSecondsPerGiB().median() / bestCpu);
            m.put("save", median.save().toMap());
            m.put("load", median.load().toMap());
            m.put("rounds", b.rounds().size());
            Map<String, Object> spread = new LinkedHashMap<>();
            spread.put("saveSeconds", b.saveSeconds().toMap());
            spread.put("saveMBps", b.saveMBps().toMap());
            spread.put("cpuSecondsPerGiB", b.cpuSecondsPerGiB().toMap());
            spread.put("firstSaveCpuSecondsPerGiB", b.firstCpuSecondsPerGiB().toMap());
            spread.put("peakRssBytes", b.peakRssBytes().toMap());
            spread.put("loadSeconds", b.loadSeconds().toMap());
            spread.put("loadMBps", b.loadMBps().toMap());
            m.put("spread", spread);
            m.put("tiesBest", tiesBest(b, best));
        }
        return m;
    }
}
