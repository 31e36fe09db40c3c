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
    public static final Map<String, Integer> COPIES_PER_BYTE = Map.of("aws", 0, "crt", 1, "minio", 1);

    private S3Backends() {}

    /** One backend's run: its save and verified load, or why it did not run or failed. */
    public record Run(String backend, String target, SaveResult save, LoadResult load, double cpuSeconds,
               Integer copiesPerByte, String unavailable, String error, int exitCode) {
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
            return save.totalBytes() == 0 ? Double.NaN : cpuSeconds / (save.totalBytes() / (double) (1L << 30));
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
            picked.add(s3.stream().filter(p -> p.name().equals(n)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException(String.format("--backends: no S3 backend called '%s' is installed "
                            + "(installed: %s)", n, String.join(", ", s3.stream().map(StorageProvider::name).toList())))));
        }
        return picked;
    }

    /**
     * Saves {@code size} bytes in chunks of {@code chunk} through each backend to {@code endpoint}'s prefix (one object per
     * backend, {@code <backend>.bin}), loads it back with verify, and deletes it unless {@code keep}.
     * A backend that fails is reported in its row; the others still run. Every backend saves and
     * loads through one buffer pool, mapped once, so that whoever goes first does not pay for
     * mapping it. With {@code warmUp}, each backend first saves as many chunks as the pool holds
     * (not measured, deleted), so that its client's start (class loading, connection pool, JIT) and
     * the pool's first touch do not count against it.
     */
    public static List<Run> run(S3Endpoint endpoint, List<StorageProvider> providers, long size, CheckpointOptions options,
            Environment env, long chunk, boolean bars, boolean keep, boolean warmUp, PrintWriter err)
            throws InterruptedException {
        // buffers not above writers: no shared pool, and the builder says what to change
        try (BufferPool shared = options.buffers > options.writers ? new BufferPool(options.buffers, chunk) : null) {
            return run(endpoint, providers, size, options, env, chunk, bars, keep, warmUp, err,
                    b -> shared == null ? b : b.bufferPool(shared));
        }
    }

    private static List<Run> run(S3Endpoint endpoint, List<StorageProvider> providers, long size,
            CheckpointOptions options, Environment env, long chunk, boolean bars, boolean keep, boolean warmUp,
            PrintWriter err, UnaryOperator<StreamingCheckpoint.Builder> pooled) throws InterruptedException {
        List<Run> runs = new ArrayList<>();
        StorageOptions storage = StorageOptions.empty().with(endpoint.settings());
        for (StorageProvider p : providers) {
            String target = endpoint.target(p.name() + ".bin");
            Integer copies = COPIES_PER_BYTE.get(p.name());
            Optional<String> why = p.unavailable();
            if (why.isPresent()) {
                runs.add(new Run(p.name(), target, null, null, Double.NaN, copies, why.get(), null, 0));
                continue;
            }
            StorageTarget where = StorageTarget.parse(target);
            SaveResult saved = null;
            LoadResult loaded = null;
            double cpu = Double.NaN;
            boolean interrupted = false;
            try {
                if (warmUp) {
                    StorageTarget warm = StorageTarget.parse(endpoint.target(p.name() + ".warmup.bin"));
                    try {
                        pooled.apply(options.builder(n -> { }, env).chunkSize(chunk).backend(p.name())
                                .backendOptions(endpoint.settings())).build()
                                .save(warm, Math.min(size, (long) options.buffers * chunk));
                    } finally {
                        delete(p, warm, storage, err);
                    }
                }
                // what the previous backend left on the heap is not this one's peak RSS
                System.gc();
                try (Progress bar = new Progress(System.err, String.format("%-5s save       ", p.name()), size, bars)) {
                    StreamingCheckpoint ckpt = pooled.apply(options.builder(bar::update, env).chunkSize(chunk)
                            .backend(p.name()).backendOptions(endpoint.settings())).build();
                    Duration before = cpuTime();
                    saved = ckpt.save(where, size);
                    Duration after = cpuTime();
                    cpu = before == null || after == null ? Double.NaN : after.minus(before).toNanos() / 1e9;
                }
                try (Progress bar = new Progress(System.err, String.format("%-5s load+verify", p.name()), size, bars)) {
                    loaded = pooled.apply(options.builder(bar::update, env).chunkSize(chunk).backend(p.name())
                            .backendOptions(endpoint.settings())).build().load(where, true);
                }
                runs.add(new Run(p.name(), target, saved, loaded, cpu, copies, null, null, 0));
            } catch (IOException | RuntimeException e) {
                if (ExitCodes.of(e) == ExitCodes.INTERRUPTED) {
                    interrupted = true; // the aborted save left nothing; no more requests now
                    throw interrupted(e);
                }
                runs.add(new Run(p.name(), target, saved, loaded, cpu, copies, null, Errors.describe(e),
                        ExitCodes.of(e)));
            } finally {
                if (!keep && !interrupted) {
                    delete(p, where, storage, err);
                }
            }
            // The next backend's peak RSS is its own: this one's clients (their connections, native
            // buffers and threads) go now, unless a failure may have left an upload for them to abort.
            if (runs.getLast().error() == null && p instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    err.printf("dgen4j: closing the %s backend's clients failed: %s%n", p.name(), Errors.describe(e));
                    err.flush();
                }
            }
        }
        return runs;
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

    /** The best save throughput of the runs that succeeded (MB/s), or NaN. */
    public static double bestMBps(List<Run> runs) {
        return runs.stream().filter(Run::ok).mapToDouble(Run::saveMBps).max().orElse(Double.NaN);
    }

    /** The lowest client CPU per GiB of the runs that succeeded, or NaN. */
    public static double bestCpu(List<Run> runs) {
        return runs.stream().filter(Run::ok).mapToDouble(Run::cpuSecondsPerGiB).filter(Double::isFinite).min()
                .orElse(Double.NaN);
    }

    /** One run as a JSON object. */
    public static Map<String, Object> toMap(Run r, double bestMBps, double bestCpu) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("backend", r.backend());
        m.put("target", r.target());
        m.put("available", r.unavailable() == null);
        if (r.unavailable() != null) {
            m.put("unavailable", r.unavailable());
        }
        m.put("ok", r.ok());
        if (r.error() != null) {
            m.put("error", r.error());
        }
        m.put("copiesPerByte", r.copiesPerByte());
        if (r.ok()) {
            m.put("saveSeconds", r.save().totalSeconds());
            m.put("saveMBps", r.saveMBps());
            m.put("cpuSeconds", r.cpuSeconds());
            m.put("cpuSecondsPerGiB", r.cpuSecondsPerGiB());
            m.put("peakRssBytes", r.save().peakRssBytes());
            m.put("loadSeconds", r.load().totalSeconds());
            m.put("loadMBps", r.loadMBps());
            m.put("verified", r.load().verified());
            m.put("ratioToBest", r.saveMBps() / bestMBps);
            m.put("cpuRatioToBest", r.cpuSecondsPerGiB() / bestCpu);
            m.put("save", r.save().toMap());
            m.put("load", r.load().toMap());
        }
        return m;
    }
}
