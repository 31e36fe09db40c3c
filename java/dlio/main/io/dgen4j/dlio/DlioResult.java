package io.dgen4j.dlio;

import io.dgen4j.json.JsonWriter;
import java.io.IOException;
import java.io.Writer;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@link DlioRun} measured, and DLIO's output files made from it: {@code summary.json}
 * (written where rank 0 ran), {@code {rank}_per_epoch_stats.json} and {@code {rank}_output.json}
 * per rank, and the {@code [METRIC]} lines. DLIO's "GB" are GiB (2^30 bytes): the same keys keep
 * that meaning here. Our own figures (peak RSS, generation vs I/O time, fsync time, bottleneck)
 * go under a {@code dgen4j} key beside DLIO's.
 */
public final class DlioResult {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
            Locale.ROOT);

    private final CheckpointPlan plan;
    private final RankGroup group;
    private final String folder;
    private final String hostname;
    private final LocalDateTime start;
    private final LocalDateTime end;
    private final double seconds;
    private final List<DlioRun.RankStats> ranks;
    private final List<DlioRun.FileResult> files;
    private final List<DlioRun.StepWall> walls;
    private final long peakRssBytes;
    private final boolean verified;

    DlioResult(CheckpointPlan plan, RankGroup group, String folder, String hostname, LocalDateTime start,
               LocalDateTime end, double seconds, List<DlioRun.RankStats> ranks, List<DlioRun.FileResult> files,
               List<DlioRun.StepWall> walls, long peakRssBytes, boolean verified) {
        this.plan = plan;
        this.group = group;
        this.folder = folder;
        this.hostname = hostname;
        this.start = start;
        this.end = end;
        this.seconds = seconds;
        this.ranks = List.copyOf(ranks);
        this.files = List.copyOf(files);
        this.walls = List.copyOf(walls);
        this.peakRssBytes = peakRssBytes;
        this.verified = verified;
    }

    /** DLIO's timestamp format ({@code utcnow()}: local time, microseconds). */
    static String timestamp(LocalDateTime t) {
        return TS.format(t);
    }

    /** The plan run. */
    public CheckpointPlan plan() {
        return plan;
    }

    /** Per-rank timings of the ranks this process ran. */
    public List<DlioRun.RankStats> rankStats() {
        return ranks;
    }

    /** Every file saved or loaded by this process. */
    public List<DlioRun.FileResult> files() {
        return files;
    }

    /** Peak resident memory of this process over the run. */
    public long peakRssBytes() {
        return peakRssBytes;
    }

    /** Wall seconds of the whole run (pauses included). */
    public double seconds() {
        return seconds;
    }

    /** Bytes written per second of the slowest rank's save time, over all saves (10^9 bytes per second). */
    public double saveGBps() {
        return rate("save_ckpt");
    }

    /** Bytes read per second of the slowest rank's load time, over all loads (10^9 bytes per second). */
    public double loadGBps() {
        return rate("load_ckpt");
    }

    private double rate(String prefix) {
        double s = 0;
        long b = 0;
        for (DlioRun.StepWall w : walls) {
            if (w.key().startsWith(prefix)) {
                s += w.seconds();
                b += w.bytes();
            }
        }
        return s > 0 ? b / s / 1e9 : 0;
    }

    /** Whether every rank's figures reached this process (the summary is then the whole run's). */
    public boolean aggregated() {
        return walls.stream().allMatch(w -> w.ranks() == plan.ranks());
    }

    /** Bytes saved by every rank whose figures reached this process, over all checkpoints. */
    public long savedBytes() {
        return bytes("save_ckpt");
    }

    /** Bytes loaded by every rank whose figures reached this process, over all checkpoints. */
    public long loadedBytes() {
        return bytes("load_ckpt");
    }

    private long bytes(String prefix) {
        return walls.stream().filter(w -> w.key().startsWith(prefix)).mapToLong(DlioRun.StepWall::bytes).sum();
    }

    /** The rank whose timings make the summary: rank 0 where it ran here, else the first rank of this process. */
    private DlioRun.RankStats reference() {
        return ranks.stream().filter(r -> r.rank() == 0).findFirst().orElse(ranks.get(0));
    }

    /** DLIO's {@code summary.json} object, with our figures under {@code dgen4j}. */
    public Map<String, Object> summary() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("start", timestamp(start));
        s.put("num_accelerators", plan.ranks());
        s.put("num_hosts", group.hosts());
        s.put("hostname", hostname);
        Map<String, Object> metric = new LinkedHashMap<>();
        List<Double> saveIo = new ArrayList<>();
        List<Double> saveDur = new ArrayList<>();
        List<Double> loadIo = new ArrayList<>();
        List<Double> loadDur = new ArrayList<>();
        if (aggregated()) {
            // DLIO's figure for the whole run: per checkpoint, every rank's bytes over the slowest rank's time
            for (DlioRun.StepWall w : walls) {
                boolean save = w.key().startsWith("save_ckpt");
                (save ? saveIo : loadIo).add(w.gibPerSecond());
                (save ? saveDur : loadDur).add(w.seconds());
            }
        } else {
            // a launched rank without MPI knows its own figures only: DLIO's per-rank ones
            reference().timings().forEach((k, t) -> {
                if (k.startsWith("save_ckpt")) {
                    saveIo.add(t.throughput());
                    saveDur.add(t.duration());
                } else if (k.startsWith("load_ckpt")) {
                    loadIo.add(t.throughput());
                    loadDur.add(t.duration());
                }
            });
        }
        if (!saveIo.isEmpty()) {
            metric.put("save_checkpoint_io_mean_GB_per_second", mean(saveIo));
            metric.put("save_checkpoint_io_stdev_GB_per_second", stdev(saveIo));
            metric.put("save_checkpoint_duration_mean_seconds", mean(saveDur));
            metric.put("save_checkpoint_duration_stdev_seconds", stdev(saveDur));
        }
        if (!loadIo.isEmpty()) {
            metric.put("load_checkpoint_io_mean_GB_per_second", mean(loadIo));
            metric.put("load_checkpoint_io_stdev_GB_per_second", stdev(loadIo));
            metric.put("load_checkpoint_duration_mean_seconds", mean(loadDur));
            metric.put("load_checkpoint_duration_stdev_seconds", stdev(loadDur));
        }
        metric.put("checkpoint_size_GB", CheckpointPlan.gib(plan.totalBytes()));
        s.put("metric", metric);
        s.put("host_cpu_count", List.of(Runtime.getRuntime().availableProcessors()));
        s.put("host_memory_GB", List.of(hostMemoryGiB()));
        s.put("end", timestamp(end));
        s.put("dgen4j", extras());
        return s;
    }

    /** Our figures beside DLIO's: sizes in bytes, rates in 10^9 bytes per second. */
    public Map<String, Object> extras() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("note", "DLIO's GB are GiB (2^30 bytes); figures here are bytes and 10^9 bytes per second");
        m.put("model", plan.config().model().name());
        m.put("ranks", plan.ranks());
        m.put("ranksInThisProcess", group.localRanks().size());
        m.put("aggregate", aggregated() ? "every rank: per checkpoint, all ranks' bytes / the slowest rank's seconds"
                : "this rank alone: " + group.alone().orElse("?"));
        m.put("checkpointFolder", folder);
        m.put("checkpointBytes", plan.totalBytes());
        m.put("checkpointFormat", plan.format().label());
        m.put("checkpointTensorBytes", plan.tensorBytes());
        m.put("dlioLoggedCheckpointBytes", plan.dlioLoggedBytes());
        m.put("filesPerCheckpoint", plan.fileCount());
        m.put("fsync", plan.config().checkpoint().fsync());
        m.put("verified", verified);
        m.put("saveGBps", round(saveGBps()));
        m.put("loadGBps", round(loadGBps()));
        if (aggregated()) {
            m.put("allRanksSavedBytes", savedBytes());
            m.put("allRanksLoadedBytes", loadedBytes());
        }
        m.putAll(totals("save"));
        m.putAll(totals("load"));
        m.put("peakRssBytes", peakRssBytes);
        m.put("seconds", round(seconds));
        return m;
    }

    private Map<String, Object> totals(String op) {
        double gen = 0;
        double io = 0;
        double close = 0;
        long bytes = 0;
        int n = 0;
        for (DlioRun.FileResult f : files) {
            if (f.operation().equals(op)) {
                gen += f.generationSeconds();
                io += f.ioSeconds();
                close += f.closeSeconds();
                bytes += f.bytes();
                n++;
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        if (n == 0) {
            return m;
        }
        m.put(op + "Files", n);
        m.put(op + "Bytes", bytes);
        if (op.equals("save")) {
            m.put("saveGenerationSeconds", round(gen));
            m.put("saveIoSeconds", round(io));
            m.put("saveFsyncSeconds", round(close));
            m.put("saveBottleneck", gen > io + close ? "generation" : "io");
        } else {
            m.put("loadReadSeconds", round(io));
            m.put("loadVerifySeconds", round(gen));
        }
        return m;
    }

    /** DLIO's {@code {rank}_per_epoch_stats.json} object of {@code rank}. */
    public Map<String, Object> perEpochStats(int rank) {
        DlioRun.RankStats r = stats(rank);
        Map<String, Object> epoch = new LinkedHashMap<>();
        epoch.put("start", timestamp(start));
        r.timings().forEach((k, t) -> {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("start", timestamp(t.start()));
            e.put("end", timestamp(t.end()));
            e.put("duration", t.duration());
            e.put("throughput", t.throughput());
            epoch.put(k, e);
        });
        epoch.put("end", timestamp(end));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("1", epoch);
        return out;
    }

    /** DLIO's {@code {rank}_output.json} object of {@code rank}, with its files' figures under {@code dgen4j}. */
    public Map<String, Object> rankOutput(int rank) {
        stats(rank);
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("host_memory_GB", hostMemoryGiB());
        o.put("host_cpu_count", Runtime.getRuntime().availableProcessors());
        Map<String, Object> epoch = new LinkedHashMap<>();
        epoch.put("start", timestamp(start));
        epoch.put("end", timestamp(end));
        o.put("1", epoch);
        o.put("hostname", hostname);
        CheckpointPlan.RankPlan p = plan.rank(rank);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("tensorRank", p.tensorRank());
        d.put("pipelineRank", p.pipelineRank());
        d.put("dataRank", p.dataRank());
        d.put("bytesPerCheckpoint", p.bytes());
        List<Object> fl = new ArrayList<>();
        for (DlioRun.FileResult f : files) {
            if (f.rank() == rank) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("checkpoint", f.checkpoint());
                m.put("operation", f.operation());
                m.putAll(f.details());
                fl.add(m);
            }
        }
        d.put("files", fl);
        o.put("dgen4j", d);
        return o;
    }

    private DlioRun.RankStats stats(int rank) {
        return ranks.stream().filter(r -> r.rank() == rank).findFirst().orElseThrow(() ->
                new IllegalArgumentException("rank " + rank + " did not run in this process"));
    }

    /** DLIO's closing {@code [METRIC]} block, line by line. */
    public List<String> metricLines() {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) summary().get("metric");
        List<String> lines = new ArrayList<>();
        lines.add("[METRIC] ==========================================================");
        lines.add("[METRIC] Number of Simulated Accelerators: " + plan.ranks());
        if (m.containsKey("save_checkpoint_duration_mean_seconds")) {
            lines.add(String.format(Locale.ROOT, "[METRIC] Checkpoint save duration (seconds): %.4f (%.4f)",
                    m.get("save_checkpoint_duration_mean_seconds"), m.get("save_checkpoint_duration_stdev_seconds")));
            lines.add(String.format(Locale.ROOT, "[METRIC] Checkpoint save I/O Throughput (GB/second): %.4f (%.4f)",
                    m.get("save_checkpoint_io_mean_GB_per_second"), m.get("save_checkpoint_io_stdev_GB_per_second")));
        }
        if (m.containsKey("load_checkpoint_duration_mean_seconds")) {
            lines.add(String.format(Locale.ROOT, "[METRIC] Checkpoint load duration (seconds): %.4f (%.4f)",
                    m.get("load_checkpoint_duration_mean_seconds"), m.get("load_checkpoint_duration_stdev_seconds")));
            lines.add(String.format(Locale.ROOT, "[METRIC] Checkpoint load I/O Throughput (GB/second): %.4f (%.4f)",
                    m.get("load_checkpoint_io_mean_GB_per_second"), m.get("load_checkpoint_io_stdev_GB_per_second")));
        }
        lines.add("[METRIC] ==========================================================");
        return lines;
    }

    /**
     * Makes sure {@link #write} will be able to write into {@code dir}, before any checkpoint is written:
     * the folder is created if missing (a file in its place is refused), a probe file is created in it and
     * removed (a read-only or full folder fails here), and a name {@link #write} uses that is taken by
     * something other than a regular file (a folder, a FIFO) is refused.
     *
     * @param what  names the folder in messages ({@code --output}, {@code output.folder})
     * @param ranks the ranks whose files this process writes ({@code summary.json} too when 0 is one)
     * @throws IllegalArgumentException when a name is taken by something that is not a regular file
     * @throws IOException              when the folder cannot be created or written (the message names it)
     */
    public static void checkOutput(Path dir, String what, List<Integer> ranks) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException(String.format("%s %s is %s, not a folder", what, dir,
                    io.dgen4j.storage.ConfigFiles.kind(dir)));
        }
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".dgen4j-output-", ".tmp"));
        } catch (java.nio.file.FileSystemException e) {
            String reason = e.getReason() != null ? e.getReason()
                    : e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.getClass().getSimpleName();
            throw new java.nio.file.FileSystemException(dir.toString(), null, String.format("%s cannot be written, "
                    + "so DLIO's output files would be lost after the run: %s", what, reason));
        }
        List<String> names = new ArrayList<>();
        for (int r : ranks) {
            names.add(r + "_per_epoch_stats.json");
            names.add(r + "_output.json");
            if (r == 0) {
                names.add("summary.json");
            }
        }
        for (String n : names) {
            Path f = dir.resolve(n);
            if (Files.exists(f) && !Files.isRegularFile(f)) {
                throw new IllegalArgumentException(String.format("%s %s: %s is %s, where DLIO's output file goes",
                        what, dir, n, io.dgen4j.storage.ConfigFiles.kind(f)));
            }
        }
    }

    /**
     * Writes DLIO's files into {@code dir} (created if missing): {@code summary.json} where rank 0 ran,
     * and {@code {rank}_per_epoch_stats.json}, {@code {rank}_output.json} for every rank of this
     * process. Returns the files written.
     */
    public List<Path> write(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (DlioRun.RankStats r : ranks) {
            written.add(writeJson(dir.resolve(r.rank() + "_per_epoch_stats.json"), perEpochStats(r.rank())));
            written.add(writeJson(dir.resolve(r.rank() + "_output.json"), rankOutput(r.rank())));
        }
        if (group.hostsRankZero()) {
            written.add(writeJson(dir.resolve("summary.json"), summary()));
        }
        return written;
    }

    /** {@code value} indented as DLIO's files are, and a newline, into {@code file} (replaced). */
    private static Path writeJson(Path file, Object value) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            JsonWriter.INDENTED.write(value, w);
            w.write('\n');
        }
        return file;
    }

    static double mean(List<Double> v) {
        double s = 0;
        for (double d : v) {
            s += d;
        }
        return v.isEmpty() ? 0 : s / v.size();
    }

    /** Population standard deviation, as numpy's {@code std}. */
    static double stdev(List<Double> v) {
        double m = mean(v);
        double s = 0;
        for (double d : v) {
            s += (d - m) * (d - m);
        }
        return v.isEmpty() ? 0 : Math.sqrt(s / v.size());
    }

    private static double round(double v) {
        return Math.round(v * 1e4) / 1e4;
    }

    /** This host's name; where it does not resolve, {@code HOSTNAME} of {@code env}, else {@code localhost}. */
    static String hostname(Map<String, String> env) {
        return hostname(() -> InetAddress.getLocalHost().getHostName(), env);
    }

    /** The name {@code resolve} gives; when it fails, {@code HOSTNAME} of {@code env}, else {@code localhost}. */
    static String hostname(java.util.concurrent.Callable<String> resolve, Map<String, String> env) {
        try {
            return resolve.call();
        } catch (Exception e) {
            String h = env.get("HOSTNAME");
            return h != null ? h : "localhost";
        }
    }

    /** Host memory in GiB from /proc/meminfo (0 where it is not available). */
    static double hostMemoryGiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return kib / 1024.0 / 1024.0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }
}
