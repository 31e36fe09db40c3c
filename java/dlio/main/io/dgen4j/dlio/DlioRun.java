package io.dgen4j.dlio;

import io.dgen4j.checkpoint.BufferPool;
import io.dgen4j.checkpoint.DataSource;
import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.ProcessMemory;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.format.Layout;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.FileOptions;
import io.dgen4j.storage.Secrets;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DLIO's checkpoint-only workflow with streaming checkpoints: {@code num_checkpoints_write} saves
 * of every file of the plan (sleeping {@code time_between_checkpoints} before each), then
 * {@code num_checkpoints_read} loads, each file one {@link StreamingCheckpoint} save or load of its
 * exact size. {@code checkpoint.fsync} decides whether each file is fsynced before it counts as
 * written. The ranks of this process ({@link RankGroup#localRanks()}) run with at most
 * {@link Options#parallel()} at once; each rank's files go one after the other, as DLIO's do.
 *
 * <p>Timing follows DLIO's statistics: a checkpoint starts for every rank when the ranks are
 * released together, and ends for a rank when its last file is written (with
 * {@code checkpoint.rank_sync}, when every rank's is); a rank's throughput is the checkpoint size
 * of the whole run (GiB) over its own duration. DLIO-style lines go to {@link Options#log()}.
 */
public final class DlioRun {
    private static final Logger LOG = LoggerFactory.getLogger(DlioRun.class);

    /**
     * How to run.
     *
     * @param verify    compare every byte read with the regenerated stream
     * @param parallel  ranks of this process running at once (at least 1)
     * @param threads   generator threads per file (0: the CPUs shared among {@code parallel})
     * @param seed      base seed; each file's stream is seeded from it and the file's path
     * @param source    what generates the bytes
     * @param customize applied to each file's builder last (the CLI's S3 settings, ...)
     * @param log       DLIO-style output lines, as rank 0 prints them
     * @param environment the launcher's variables ({@code HOSTNAME} names the host in DLIO's files when the
     *                  host's own name does not resolve); the CLI passes its environment
     */
    public record Options(boolean verify, int parallel, int threads, long seed, DataSource source,
                          UnaryOperator<StreamingCheckpoint.Builder> customize, Consumer<String> log,
                          Map<String, String> environment) {
        public Options {
            environment = Map.copyOf(environment);
            if (parallel < 1) {
                throw new IllegalArgumentException("parallel ranks must be at least 1, got " + parallel);
            }
            if (threads < 0) {
                throw new IllegalArgumentException("threads must be >= 0, got " + threads);
            }
        }

        /** Defaults: no verification, up to 4 ranks at once, the process seed, output dropped, no variables. */
        public static Options defaults() {
            return new Options(false, 4, 0, DataSpec.processSeed(), DataSource.AUTO, b -> b, line -> { }, Map.of());
        }

        public Options withVerify(boolean v) {
            return new Options(v, parallel, threads, seed, source, customize, log, environment);
        }

        public Options withParallel(int n) {
            return new Options(verify, n, threads, seed, source, customize, log, environment);
        }

        public Options withThreads(int n) {
            return new Options(verify, parallel, n, seed, source, customize, log, environment);
        }

        public Options withSeed(long s) {
            return new Options(verify, parallel, threads, s, source, customize, log, environment);
        }

        public Options withSource(DataSource s) {
            return new Options(verify, parallel, threads, seed, s, customize, log, environment);
        }

        public Options withCustomize(UnaryOperator<StreamingCheckpoint.Builder> c) {
            return new Options(verify, parallel, threads, seed, source, c, log, environment);
        }

        public Options withLog(Consumer<String> l) {
            return new Options(verify, parallel, threads, seed, source, customize, l, environment);
        }

        public Options withEnvironment(Map<String, String> env) {
            return new Options(verify, parallel, threads, seed, source, customize, log, env);
        }
    }

    private final CheckpointPlan plan;
    private final RankGroup group;
    private final Options options;
    private final DlioConfig config;
    private final String folder;
    /**
     * Buffer pools not in use by a rank at the moment: a rank's files of a checkpoint take one and
     * give it back, so buffers are mapped once per concurrent rank for the whole run, not per file.
     */
    private final java.util.ArrayDeque<BufferPool> idlePools = new java.util.ArrayDeque<>();
    private final List<BufferPool> allPools = new ArrayList<>();

    private DlioRun(CheckpointPlan plan, RankGroup group, Options options) {
        this.plan = plan;
        this.group = group;
        this.options = options;
        this.config = plan.config();
        this.folder = folderTarget(config);
    }

    /**
     * Runs the checkpoint phase of {@code plan} for the ranks of {@code group}.
     *
     * @throws DlioConfigException  when the plan's ranks are not the group's, or the workflow has no
     *                              checkpoint phase
     * @throws IOException          when a save or load fails (the message names the file)
     * @throws InterruptedException when interrupted; files being written are removed by their saves
     */
    public static DlioResult run(CheckpointPlan plan, RankGroup group, Options options)
            throws IOException, InterruptedException {
        if (plan.ranks() != group.size()) {
            throw new DlioConfigException("ranks", String.format(Locale.ROOT,
                    "the plan is for %d ranks but the run has %d", plan.ranks(), group.size()));
        }
        if (!plan.config().workflow().checkpoint()) {
            throw new DlioConfigException("workflow.checkpoint",
                    "is False: the workload has no checkpoint phase to run (set ++workload.workflow.checkpoint=True)");
        }
        check(plan, options);
        return new DlioRun(plan, group, options).run();
    }

    /**
     * Checks, without writing anything, what the saves of {@code plan} would meet before their first
     * byte: the checkpoint folder is a target the backend takes (a local folder is a directory where it
     * exists), a file of 0 bytes is planned only for a local folder, and every distinct file size, in
     * the chunks a save of it uses, passes the backend's own checks with {@code options}' storage
     * settings ({@link StreamingCheckpoint#checkSave}: for S3, whole parts of at least 5 MiB and at most
     * 10,000 of them). {@code dlio plan} and {@link #run} call it, so a run fails here, not after some of
     * its files were written.
     *
     * @throws DlioConfigException naming the key at fault ({@code checkpoint.checkpoint_folder} or
     *                             {@code checkpoint.streaming.chunk_size}) and the file
     */
    public static void check(CheckpointPlan plan, Options options) {
        DlioConfig config = plan.config();
        String folder = folderTarget(config);
        String folderKey = "s3".equals(config.storage().type()) && !config.checkpoint().folder().contains("://")
                ? "storage.storage_root" : "checkpoint.checkpoint_folder";
        StorageTarget first;
        try {
            first = StorageTarget.parse(join(join(folder, CheckpointPlan.stepFolder(1, 1)), "f"));
        } catch (IllegalArgumentException e) {
            throw new DlioConfigException(folderKey, e.getMessage());
        }
        boolean local = first.isFile();
        if (local) {
            Path dir = Path.of(StorageTarget.parse(folder).location());
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new DlioConfigException("checkpoint.checkpoint_folder", dir + " is not a folder");
            }
        }
        // one file of each size, in the order met: the same sizes recur in every rank and checkpoint
        Map<Long, CheckpointPlan.PlannedFile> sizes = new java.util.LinkedHashMap<>();
        for (CheckpointPlan.RankPlan r : plan.rankPlans()) {
            for (CheckpointPlan.PlannedFile f : r.files()) {
                sizes.putIfAbsent(f.bytes(), f);
            }
        }
        CheckpointPlan.PlannedFile empty = sizes.get(0L);
        if (empty != null && !local) {
            throw new DlioConfigException(folderKey, String.format(Locale.ROOT, "%s of 0 bytes is planned; streaming "
                    + "checkpoints to %s need at least one byte", empty.name(), folder));
        }
        try {
            options.customize().apply(saveBuilder(config, 1, options)).build().checkSave(first, 1);
        } catch (IllegalArgumentException e) {
            throw new DlioConfigException(folderKey, Secrets.mask(e.getMessage()));
        }
        for (CheckpointPlan.PlannedFile f : sizes.values()) {
            if (f.bytes() == 0) {
                continue;
            }
            StorageTarget target = StorageTarget.parse(join(join(folder, CheckpointPlan.stepFolder(1, 1)), f.name()));
            try {
                options.customize().apply(saveBuilder(config, f.bytes(), options)).build().checkSave(target, f.bytes());
            } catch (IllegalArgumentException e) {
                throw new DlioConfigException("checkpoint.streaming.chunk_size", String.format(Locale.ROOT,
                        "%s (%d bytes) cannot be saved to %s in chunks of %d bytes: %s", f.name(), f.bytes(),
                        Secrets.mask(folder), config.streaming().chunkSize(), Secrets.mask(e.getMessage())));
            }
        }
    }

    /**
     * The builder of one file's save of {@code bytes} (the caller's pool and storage settings are added
     * by the caller): chunks of {@code checkpoint.streaming.chunk_size}, or of the file rounded up to 4 KiB
     * when it is smaller (a small file needs no chunk-sized buffers).
     */
    private static StreamingCheckpoint.Builder saveBuilder(DlioConfig config, long bytes, Options options) {
        long chunk = Math.min(config.streaming().chunkSize(), Math.max(4096, (bytes + 4095) / 4096 * 4096));
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(chunk)
                .buffers(config.streaming().numBuffers()).writersInFlight(config.streaming().writers())
                .source(options.source()).spec(DataSpec.builder().dedupRatio(config.streaming().dedupRatio())
                        .compressRatio(config.streaming().compressRatio()).build())
                .backendOptions(FileOptions.defaults().withFsync(config.checkpoint().fsync()));
        config.streaming().backend().ifPresent(b::backend);
        return b;
    }

    /** Where the checkpoint folder is: a local path, or {@code s3://storage_root/checkpoint_folder} for s3. */
    public static String folderTarget(DlioConfig config) {
        String f = config.checkpoint().folder();
        if (!"s3".equals(config.storage().type()) || f.contains("://")) {
            return f;
        }
        String bucket = config.storage().root().replaceFirst("^s3://", "").replaceAll("/+$", "");
        return "s3://" + bucket + "/" + f.replaceFirst("^\\./", "").replaceFirst("^/+", "");
    }

    private boolean local() {
        return !folder.contains("://") || folder.startsWith("file://") || folder.startsWith("direct://");
    }

    private DlioResult run() throws IOException, InterruptedException {
        LocalDateTime runStart = LocalDateTime.now();
        long runStartNanos = System.nanoTime();
        DlioConfig.Checkpoint ck = config.checkpoint();
        Map<Integer, RankStats> stats = new TreeMap<>();
        for (int r : group.localRanks()) {
            stats.put(r, new RankStats(r));
        }
        List<FileResult> files = Collections.synchronizedList(new ArrayList<>());
        List<StepWall> walls = new ArrayList<>();
        logSizes();
        try (ProcessMemory.Sampler sampler = new ProcessMemory.Sampler(100, () -> 0);
             ExecutorService pool = Executors.newFixedThreadPool(Math.min(options.parallel(),
                     group.localRanks().size()), named())) {
            if (ck.numCheckpointsWrite() > 0) {
                log("Checkpointing write started");
                for (int i = 1; i <= ck.numCheckpointsWrite(); i++) {
                    walls.add(step(pool, true, i, stats, files));
                }
                log("Checkpointing write finished");
            }
            if (ck.numCheckpointsRead() > 0) {
                checkFolderHolds(ck.numCheckpointsRead());
                log("Checkpointing read started");
                for (int i = 1; i <= ck.numCheckpointsRead(); i++) {
                    walls.add(step(pool, false, i, stats, files));
                }
                log("Checkpointing read finished");
            }
            long peak = Math.max(sampler.peakSampled(), ProcessMemory.peakRss());
            for (FileResult f : files) {
                peak = Math.max(peak, f.peakRssBytes());
            }
            List<FileResult> ordered = new ArrayList<>(files);
            ordered.sort(java.util.Comparator.comparingInt(FileResult::rank).thenComparing(FileResult::operation)
                    .thenComparingInt(FileResult::checkpoint).thenComparing(FileResult::target));
            return new DlioResult(plan, group, folder, DlioResult.hostname(options.environment()), runStart,
                    LocalDateTime.now(),
                    (System.nanoTime() - runStartNanos) / 1e9, List.copyOf(stats.values()), ordered, walls, peak,
                    options.verify());
        } finally {
            closePools(); // the ranks' executor has stopped: no save or load uses them any more
        }
    }

    private void logSizes() {
        if (plan.parameters() > 0) {
            log("Total number of parameters in the model: " + plan.parameters());
        }
        log(String.format(Locale.ROOT, "Model size: %.6f GB", CheckpointPlan.gib(plan.modelBytes())));
        log(String.format(Locale.ROOT, "Optimizer state size: %.6f GB", CheckpointPlan.gib(plan.optimizerBytes())));
        log(String.format(Locale.ROOT, "Total checkpoint size: %.6f GB (%d bytes in %d files per checkpoint)",
                CheckpointPlan.gib(plan.totalBytes()), plan.totalBytes(), plan.fileCount()));
        log("fsync: " + (config.checkpoint().fsync() ? "on (each file is fsynced before it counts as written)"
                : "off (checkpoint.fsync is False)"));
    }

    /**
     * The {@code count} checkpoints to read are in the folder: rank 0 alone lists it (one listing, not
     * one per rank) and every rank checks what it found. Object stores are not listed: a missing object
     * fails its load, naming it.
     */
    private void checkFolderHolds(int count) throws IOException {
        if (!local()) {
            return;
        }
        List<String> found = group.listOnce(this::stepFolders);
        List<String> missing = java.util.stream.IntStream.rangeClosed(1, count)
                .mapToObj(i -> CheckpointPlan.stepFolder(1, i)).filter(s -> !found.contains(s)).toList();
        if (!missing.isEmpty()) {
            throw new IOException(String.format(Locale.ROOT,
                    "%d checkpoints to read (checkpoint.num_checkpoints_read) but %s holds %d (missing: %s)",
                    count, folder, found.size(), String.join(", ", missing)));
        }
    }

    /**
     * One save or load of every local rank's files, as DLIO's checkpoint step {@code i}: the ranks start
     * together, and after it every rank's figures reach every process. A rank that fails still meets the
     * others there (no rank waits forever for it); then every rank stops, the failed one with its own
     * error, the others naming the ranks that failed.
     */
    private StepWall step(ExecutorService pool, boolean save, int i, Map<Integer, RankStats> stats,
                          List<FileResult> files) throws IOException, InterruptedException {
        double pause = config.checkpoint().timeBetweenCheckpoints();
        try {
            if (pause > 0) {
                Thread.sleep((long) (pause * 1000));
            }
            group.barrier();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted(save, i);
        }
        String key = (save ? "save_ckpt" : "load_ckpt") + i;
        log(String.format(Locale.ROOT, "Starting %s checkpoint %d after total step %d for epoch 1",
                save ? "saving" : "loading", i, i));
        LocalDateTime start = LocalDateTime.now();
        long t0 = System.nanoTime();
        String step = CheckpointPlan.stepFolder(1, i);
        List<Future<long[]>> running = new ArrayList<>();
        List<Integer> ranks = group.localRanks();
        for (int r : ranks) {
            running.add(pool.submit(() -> {
                long bytes = rank(save, i, step, r, files);
                return new long[] {System.nanoTime(), bytes};
            }));
        }
        long[] ends = new long[ranks.size()];
        long[] bytes = new long[ranks.size()];
        Throwable failure = null;
        try {
            for (int k = 0; k < running.size(); k++) {
                long[] done = running.get(k).get();
                ends[k] = done[0];
                bytes[k] = done[1];
            }
        } catch (ExecutionException e) {
            running.forEach(f -> f.cancel(true));
            failure = e.getCause();
        } catch (InterruptedException e) {
            running.forEach(f -> f.cancel(true)); // each save aborts what it was writing
            Thread.currentThread().interrupt();
            throw interrupted(save, i);
        }
        if (config.checkpoint().rankSync()) {
            // DLIO's rank_sync: a checkpoint ends for every rank when the last one is done
            group.barrier();
            java.util.Arrays.fill(ends, System.nanoTime());
        }
        Map<Integer, RankGroup.StepFigures> mine = new TreeMap<>();
        for (int k = 0; k < ranks.size(); k++) {
            mine.put(ranks.get(k), new RankGroup.StepFigures(failure == null ? (ends[k] - t0) / 1e9 : 0, bytes[k],
                    failure == null));
        }
        RankGroup.StepFigures[] all = group.exchange(mine);
        if (failure != null) {
            throw rethrow(failure);
        }
        List<Integer> failed = java.util.stream.IntStream.range(0, all.length)
                .filter(r -> all[r] != null && !all[r].ok()).boxed().toList();
        if (!failed.isEmpty()) {
            throw new IOException(String.format(Locale.ROOT, "%s: %s %s failed (their own messages say why); "
                    + "rank %d stops with them", key, failed.size() == 1 ? "rank" : "ranks", failed, ranks.get(0)));
        }
        double sizeGiB = CheckpointPlan.gib(plan.totalBytes());
        for (int k = 0; k < ranks.size(); k++) {
            double seconds = (ends[k] - t0) / 1e9;
            stats.get(ranks.get(k)).add(key, new Timing(start, start.plusNanos(ends[k] - t0), seconds,
                    seconds > 0 ? sizeGiB / seconds : 0));
        }
        StepWall wall = StepWall.of(key, all);
        if (wall.ranks() == plan.ranks()) {
            log(String.format(Locale.ROOT, "Finished %s checkpoint %d for epoch 1 in %.4f s; Throughput: %.4f GB/s "
                            + "(%d ranks, %d bytes, slowest rank %d)", save ? "saving" : "loading", i, wall.seconds(),
                    wall.gibPerSecond(), wall.ranks(), wall.bytes(), wall.slowestRank()));
        } else {
            Timing first = stats.get(ranks.get(0)).timings().get(key);
            log(String.format(Locale.ROOT, "Finished %s checkpoint %d for epoch 1 in %.4f s; Throughput: %.4f GB/s",
                    save ? "saving" : "loading", i, first.duration(), first.throughput()));
        }
        return wall;
    }

    /** Frees every buffer pool of the run (after its ranks have stopped). */
    private void closePools() {
        synchronized (idlePools) {
            for (BufferPool p : allPools) {
                try {
                    p.close();
                } catch (IllegalStateException e) {
                    LOG.error("a buffer pool of the run still had buffers in use: {}", e.getMessage());
                }
            }
            allPools.clear();
            idlePools.clear();
        }
    }

    /** An idle buffer pool, or a new one: {@code num_buffers} buffers of a chunk. */
    private BufferPool takePool() {
        synchronized (idlePools) {
            BufferPool p = idlePools.poll();
            if (p == null) {
                p = new BufferPool(config.streaming().numBuffers(), config.streaming().chunkSize());
                allPools.add(p);
            }
            return p;
        }
    }

    private void givePool(BufferPool p) {
        synchronized (idlePools) {
            idlePools.push(p);
        }
    }

    /** One rank's files of one checkpoint, one after the other, through one buffer pool. */
    private long rank(boolean save, int i, String step, int rank, List<FileResult> files) throws IOException {
        BufferPool buffers = takePool();
        try {
            return rank(save, i, step, rank, files, buffers);
        } finally {
            givePool(buffers);
        }
    }

    /** What an interrupt (Ctrl-C, SIGTERM) of checkpoint {@code i} says, as a save's does. */
    private InterruptedIOException interrupted(boolean save, int i) {
        return new InterruptedIOException(String.format(Locale.ROOT, "dlio run interrupted while %s checkpoint %d of %d "
                + "%s %s (a file being written is not kept)", save ? "saving" : "loading", i, save
                ? config.checkpoint().numCheckpointsWrite() : config.checkpoint().numCheckpointsRead(),
                save ? "to" : "from", folder));
    }

    private long rank(boolean save, int i, String step, int rank, List<FileResult> files, BufferPool buffers)
            throws IOException {
        int source = rank;
        if (!save && config.checkpoint().recoveryRankShift()) {
            if (group.hosts() < 2) {
                if (rank == 0) {
                    LOG.warn("this run is on a single host: checkpoint.recovery_rank_shift does not apply");
                }
            } else {
                source = (rank + group.ranksPerHost()) % group.size();
            }
        }
        long moved = 0;
        for (CheckpointPlan.PlannedFile f : plan.rank(source).files()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException("interrupted before " + f.name());
            }
            String target = join(join(folder, step), f.name());
            FileResult r = save ? save(rank, i, target, f, buffers) : load(rank, i, target, buffers);
            files.add(r);
            moved += r.bytes();
        }
        return moved;
    }

    private FileResult save(int rank, int i, String target, CheckpointPlan.PlannedFile file, BufferPool buffers)
            throws IOException {
        long bytes = file.bytes();
        StorageTarget where = StorageTarget.parse(target);
        if (local()) {
            Path parent = Path.of(where.location()).toAbsolutePath().getParent();
            Files.createDirectories(parent);
        }
        if (bytes == 0) {
            return empty(rank, i, target, where, true);
        }
        DataSpec spec = DataSpec.builder().seed(seedFor(target))
                .dedupRatio(config.streaming().dedupRatio()).compressRatio(config.streaming().compressRatio()).build();
        StreamingCheckpoint.Builder b = saveBuilder(config, bytes, options).bufferPool(buffers).spec(spec)
                .threads(threads());
        StreamingCheckpoint checkpoint = options.customize().apply(b).build();
        // torch: the state dict DLIO's torch.save writes, its framing computed and its payloads generated in place
        SaveResult r = plan.format() == Layout.Format.TORCH
                ? checkpoint.save(where, Layout.of(Layout.Format.TORCH, file.tensors(), true,
                        CheckpointPlan.TORCH_ALIGNMENT))
                : checkpoint.save(where, bytes);
        return FileResult.of(rank, i, target, r);
    }

    private FileResult load(int rank, int i, String target, BufferPool buffers) throws IOException {
        StorageTarget where = StorageTarget.parse(target);
        if (local() && Files.isRegularFile(Path.of(where.location()))
                && !Files.exists(Path.of(where.location() + ".manifest.json"))
                && Files.size(Path.of(where.location())) == 0) {
            return empty(rank, i, target, where, false);
        }
        StreamingCheckpoint.Builder b = StreamingCheckpoint.builder().chunkSize(config.streaming().chunkSize())
                .bufferPool(buffers).buffers(config.streaming().numBuffers()).readersInFlight(config.streaming().writers())
                .source(options.source()).threads(threads());
        config.streaming().backend().ifPresent(b::backend);
        LoadResult r = options.customize().apply(b).build().load(where, options.verify());
        return FileResult.of(rank, i, target, r);
    }

    /**
     * A file of no bytes (DLIO writes one for an empty state): a streaming checkpoint has at least
     * one byte, so it is created, fsynced as asked, and read back as what it is, without a manifest.
     */
    private FileResult empty(int rank, int i, String target, StorageTarget where, boolean save) throws IOException {
        if (!local()) {
            throw new IOException(target + ": a file of 0 bytes is planned; streaming checkpoints to " + folder
                    + " need at least one byte");
        }
        long t0 = System.nanoTime();
        Path file = Path.of(where.location());
        if (save) {
            try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
                if (config.checkpoint().fsync()) {
                    ch.force(true);
                }
            }
        } else if (Files.size(file) != 0) {
            throw new IOException(target + ": expected an empty file, found " + Files.size(file) + " bytes");
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<String, Object> details = new java.util.LinkedHashMap<>();
        details.put("target", target);
        details.put("totalBytes", 0L);
        details.put("totalSeconds", seconds);
        if (!save) {
            details.put("verified", options.verify());
        }
        return new FileResult(rank, i, save ? "save" : "load", target, 0, seconds, 0, 0, save ? seconds : 0,
                ProcessMemory.rss(), details);
    }

    private int threads() {
        if (options.threads() > 0) {
            return options.threads();
        }
        return group.threads(Math.min(options.parallel(), group.localRanks().size()));
    }

    /** The step folders in the local checkpoint folder (none when it does not exist). */
    private List<String> stepFolders() throws IOException {
        Path dir = Path.of(StorageTarget.parse(folder).location());
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().matches("global_epoch\\d+_step\\d+"))
                    .map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private long seedFor(String target) {
        // SplitMix64's finalizer over the base seed and the path: distinct streams per file and
        // checkpoint, so no two files share blocks a deduplicating store could fold
        long z = options.seed() ^ (0x9E3779B97F4A7C15L * (target.hashCode() + 0x632BE59BD9B4E019L));
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static String join(String dir, String name) {
        return dir.endsWith("/") ? dir + name : dir + "/" + name;
    }

    private void log(String line) {
        String l = DlioResult.timestamp(LocalDateTime.now()) + " " + line;
        LOG.debug(l);
        if (group.hostsRankZero()) {
            options.log().accept(l);
        }
    }

    private static java.util.concurrent.ThreadFactory named() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "dlio-rank-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static IOException rethrow(Throwable t) {
        if (t instanceof IOException io) {
            return io;
        }
        if (t instanceof RuntimeException re) {
            throw re;
        }
        if (t instanceof Error err) {
            throw err;
        }
        return new IOException(t);
    }

    /**
     * One checkpoint step's timing on one rank, as DLIO's per-epoch statistics record it.
     *
     * @param start      when the ranks were released
     * @param end        when this rank's files were done
     * @param duration   seconds
     * @param throughput the whole checkpoint's GiB over {@code duration} (DLIO's formula)
     */
    public record Timing(LocalDateTime start, LocalDateTime end, double duration, double throughput) {}

    /**
     * One checkpoint step over every rank whose figures reached this process (all of them, except for a
     * launched rank without MPI): the slowest rank's seconds and the bytes they moved together.
     *
     * @param key         {@code save_ckpt1}, ...
     * @param seconds     the slowest rank's seconds from the common start
     * @param bytes       bytes of those ranks together
     * @param ranks       how many ranks' figures these are
     * @param slowestRank the rank that took longest (the first of equals)
     */
    public record StepWall(String key, double seconds, long bytes, int ranks, int slowestRank) {
        static StepWall of(String key, RankGroup.StepFigures[] all) {
            double slowest = -1;
            int at = -1;
            long bytes = 0;
            int n = 0;
            for (int r = 0; r < all.length; r++) {
                if (all[r] != null) {
                    n++;
                    bytes += all[r].bytes();
                    if (all[r].seconds() > slowest) {
                        slowest = all[r].seconds();
                        at = r;
                    }
                }
            }
            return new StepWall(key, Math.max(0, slowest), bytes, n, at);
        }

        /** DLIO's throughput of the step: its bytes in GiB over the slowest rank's seconds. */
        public double gibPerSecond() {
            return seconds > 0 ? CheckpointPlan.gib(bytes) / seconds : 0;
        }
    }

    /** One rank's timings by key ({@code save_ckpt1}, ..., {@code load_ckpt1}, ...). */
    public static final class RankStats {
        private final int rank;
        private final Map<String, Timing> timings = Collections.synchronizedMap(new java.util.LinkedHashMap<>());

        RankStats(int rank) {
            this.rank = rank;
        }

        void add(String key, Timing t) {
            timings.put(key, t);
        }

        /** The rank. */
        public int rank() {
            return rank;
        }

        /** Its timings in the order they happened. */
        public Map<String, Timing> timings() {
            return Collections.unmodifiableMap(timings);
        }
    }

    /**
     * One file saved or loaded.
     *
     * @param rank           the rank that did it
     * @param checkpoint     the checkpoint number (1-based)
     * @param operation      {@code save} or {@code load}
     * @param target         the file
     * @param bytes          its size
     * @param seconds        wall time
     * @param generationSeconds fill time (saves) or verification time (loads)
     * @param ioSeconds      time writes or reads were in flight
     * @param closeSeconds   fsync, rename and manifest time (saves)
     * @param peakRssBytes   the process's peak resident memory during it
     * @param details        the save's or load's figures
     */
    public record FileResult(int rank, int checkpoint, String operation, String target, long bytes, double seconds,
                             double generationSeconds, double ioSeconds, double closeSeconds, long peakRssBytes,
                             Map<String, Object> details) {
        static FileResult of(int rank, int i, String target, SaveResult r) {
            return new FileResult(rank, i, "save", target, r.totalBytes(), r.totalSeconds(), r.generationSeconds(),
                    r.ioSeconds(), r.closeSeconds(), r.peakRssBytes(), r.toMap());
        }

        static FileResult of(int rank, int i, String target, LoadResult r) {
            return new FileResult(rank, i, "load", target, r.totalBytes(), r.totalSeconds(), r.verifySeconds(),
                    r.readSeconds(), 0, r.peakRssBytes(), r.toMap());
        }
    }
}
