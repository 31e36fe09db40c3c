package io.dgen4j.cli.command;

import io.dgen4j.cli.BuildVersion;
import io.dgen4j.cli.Environment;
import io.dgen4j.cli.Main;
import io.dgen4j.cli.report.Aggregate;
import io.dgen4j.cli.report.Progress;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.launch.Cluster;
import io.dgen4j.launch.CpuBudget;
import io.dgen4j.launch.LaunchInfo;
import io.dgen4j.launch.Mpi;
import io.dgen4j.launch.Shards;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * A save or load run as one rank of an {@code mpirun}/{@code srun} launch: this rank's shard name, seed
 * and thread count, the common start, and the gathering of every rank's figures to rank 0, which alone
 * prints the aggregate. Outside a launch everything is as for a single process (the target unchanged).
 *
 * <p>MPI is started only for the launch of this process's own environment; a command run with another
 * environment ({@link Main#run(String[], PrintWriter, PrintWriter, Map)}) names its shards and seeds by it
 * but works alone.
 *
 * <p>Save and load follow one protocol ({@link #together}), so that no rank waits forever for one that failed.
 */
final class Ranks implements AutoCloseable {
    private final LaunchInfo launch;
    private final Cluster cluster;
    private Long baseSeed;
    private boolean sameSeed;

    private Ranks(LaunchInfo launch, Cluster cluster) {
        this.launch = launch;
        this.cluster = cluster;
    }

    /**
     * Options that may differ between ranks: each rank's own CPU share, terminal, and (dlio run) folder
     * of its own output files.
     */
    static final Set<String> PER_RANK_OPTIONS = Set.of("--threads", "--no-progress", "--output");

    /**
     * The launch of this command's environment; a launched rank without MPI says so on the command's
     * error stream, once.
     *
     * @throws IllegalArgumentException on every rank at once, when the ranks were started with different
     *         commands or options ({@link #facts}): one line naming the first difference
     */
    static Ranks open(CommandSpec command, Environment env) {
        return open(command, env, Map.of());
    }

    /**
     * {@link #open(CommandSpec, Environment)}, the ranks also agreeing on {@code more} facts (e.g. the workload a
     * configuration file held: a fact named {@code workload} is compared, never shown).
     */
    static Ranks open(CommandSpec command, Environment env, Map<String, String> more) {
        PrintWriter err = command.commandLine().getErr();
        LaunchInfo launch = LaunchInfo.fromEnvironment(env.variables());
        if (!launch.launched()) {
            return new Ranks(launch, Cluster.alone(launch, "not launched"));
        }
        Cluster cluster = env.isProcess() ? Cluster.open(launch)
                : Cluster.alone(launch, "the command's environment is not this process's, so MPI is not started");
        // first of all collectives: ranks running different commands would wait in different ones forever
        Map<String, String> facts = facts(command);
        facts.putAll(more);
        Optional<Cluster.Disagreement> d = cluster.agree(facts);
        if (d.isPresent()) {
            cluster.close();
            throw new IllegalArgumentException(disagreement(d.get()));
        }
        if (!cluster.coordinated()) {
            err.printf(Locale.ROOT, "dgen4j: %s without MPI (%s): this rank works alone and the aggregate is "
                    + "unavailable%n", launch.describe(), cluster.whyAlone().orElse("?"));
            err.flush();
        }
        return new Ranks(launch, cluster);
    }

    /**
     * What this rank was asked to run, as the ranks compare it: the dgen4j version, the command, and every
     * option's and parameter's value (defaults included, so spellings of one value agree) except
     * {@link #PER_RANK_OPTIONS}. The target is compared as given: each rank's shard name derives from it.
     */
    static Map<String, String> facts(CommandSpec command) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("version", BuildVersion.version().orElse("?"));
        m.put("command", command.qualifiedName(" ").replaceFirst("^\\S+ ", ""));
        for (OptionSpec o : command.options()) {
            if (!o.usageHelp() && !o.versionHelp() && !PER_RANK_OPTIONS.contains(o.longestName())
                    && o.getValue() != null) {
                m.put(o.longestName(), text(o.getValue()));
            }
        }
        for (PositionalParamSpec p : command.positionalParameters()) {
            if (p.getValue() != null) {
                m.put(p.paramLabel(), text(p.getValue()));
            }
        }
        return m;
    }

    private static String text(Object v) {
        return v instanceof Object[] a ? Arrays.deepToString(a) : String.valueOf(v);
    }

    /** The one line every rank fails with when the ranks disagree. */
    static String disagreement(Cluster.Disagreement d) {
        String name = d.firstDifference();
        String zero = d.root().get(name);
        String theirs = d.theirs().get(name);
        int r = d.rank();
        String what = switch (name) {
            case "version" -> String.format(Locale.ROOT, "rank %d runs dgen4j %s, rank 0 dgen4j %s", r, theirs, zero);
            case "command" -> String.format(Locale.ROOT, "rank %d runs 'dgen4j %s', rank 0 'dgen4j %s'", r, theirs, zero);
            case "workload" -> String.format(Locale.ROOT, "rank %d's DLIO workload (its --config as read, overrides "
                    + "applied) differs from rank 0's", r);
            default -> String.format(Locale.ROOT, "rank %d has %s, rank 0 %s", r, shown(name, theirs),
                    shown(name, zero));
        };
        return "the ranks were started with different commands or options: " + what
                + (d.ranks() > 1 ? " (" + d.ranks() + " ranks differ from rank 0)" : "")
                + "; every rank must run the same command with the same options (only "
                + String.join(", ", PER_RANK_OPTIONS.stream().sorted().toList()) + " may differ)";
    }

    /** {@code --size 8388608}, {@code no --seed}; a value holding user info (a URL's) is not shown. */
    private static String shown(String name, String value) {
        return value == null ? "no " + name : name + " " + (value.contains("@") ? "(a different value)" : value);
    }

    boolean launched() {
        return launch.launched();
    }

    LaunchInfo launch() {
        return launch;
    }

    Cluster cluster() {
        return cluster;
    }

    /** Whether this rank prints: always outside a launch or without MPI; rank 0 alone under MPI. */
    boolean prints() {
        return !cluster.coordinated() || cluster.isRoot();
    }

    /** This rank's target ({@link Shards#target}). */
    String target(String target) {
        return Shards.target(target, launch);
    }

    /**
     * The job's base seed: {@code explicit}, else rank 0's random seed given to every rank (with MPI), else
     * this rank's own; {@code null} outside a launch (the data options' own default applies).
     */
    Long baseSeed(Long explicit) {
        if (!launch.launched()) {
            return explicit;
        }
        long mine = explicit != null ? explicit : DataSpec.processSeed();
        baseSeed = cluster.broadcast(mine);
        return baseSeed;
    }

    /** This rank's seed from the base: the base itself with {@code same}, else {@link Shards#seed}. */
    Long rankSeed(Long base, boolean same) {
        sameSeed = same;
        if (!launch.launched() || base == null) {
            return base;
        }
        return same ? base : Shards.seed(base, launch.rank());
    }

    /** Generator threads: {@code requested} when set, else this rank's share of the CPUs ({@link CpuBudget}) under a launch. */
    int threads(int requested) {
        return requested > 0 || !launch.launched() ? requested : CpuBudget.threadsFor(launch);
    }

    /** Waits for every rank, so that the timed part starts together. */
    void startTogether() {
        cluster.barrier();
    }

    /** What one rank's timed run hands the gather: its bytes, its seed (null for runs without one), its endpoints. */
    record Figures(long bytes, Long seed, List<EndpointStatistics> endpoints) {}

    /** Builds what the timed part runs (e.g. the checkpoint), counting into the progress bar; throws nothing checked. */
    @FunctionalInterface
    interface Prepare<P> {
        P prepare(Progress bar);
    }

    /** The timed part of a rank's run. */
    @FunctionalInterface
    interface Timed<P, R> {
        R run(P prepared) throws IOException;
    }

    /** A rank's result with every rank's figures, for {@link #report}. */
    record Done<R>(R result, Gathered all) {}

    /**
     * The protocol of a save or load, the same on every rank: with the progress bar open, prepare (a
     * failure is kept), wait for every rank ({@link #startTogether}), time {@code run} (a failure is kept);
     * then gather every rank's figures (a collective: a failed rank takes part too, with zeros), and only
     * then throw this rank's failure.
     *
     * @param bar     opens the progress bar, which closes before the gather
     * @param threads this rank's generator threads, as gathered
     * @param seeded  whether the run has a seed: a failed rank gathers 0 for it, a run without one null
     * @param figures this rank's figures from its result
     */
    <P, R> Done<R> together(java.util.function.Supplier<Progress> bar, Prepare<P> prepare, Timed<P, R> run,
            int threads, boolean seeded, java.util.function.Function<R, Figures> figures) throws IOException {
        R r = null;
        Exception failure = null;
        double seconds = 0;
        try (Progress b = bar.get()) {
            P prepared = null;
            try {
                prepared = prepare.prepare(b);
            } catch (RuntimeException e) {
                failure = e; // still meet the other ranks below, so that none waits forever
            }
            startTogether();
            long start = System.nanoTime();
            if (failure == null) {
                try {
                    r = run.run(prepared);
                } catch (IOException | RuntimeException e) {
                    failure = e;
                }
            }
            seconds = (System.nanoTime() - start) / 1e9;
        }
        Figures f = r != null ? figures.apply(r) : new Figures(0, seeded ? 0L : null, List.of());
        Gathered all = gather(f.bytes(), seconds, f.seed(), threads, r != null, f.endpoints());
        if (failure instanceof IOException e) {
            throw e;
        } else if (failure instanceof RuntimeException e) {
            throw e;
        }
        return new Done<>(r, all);
    }

    /**
     * Every rank's figures, on every rank (a collective: each rank calls it once, failed or not, so that
     * none waits forever). Without MPI: this rank's alone.
     */
    Gathered gather(long bytes, double seconds, Long seed, int threads, boolean ok) {
        return gather(bytes, seconds, seed, threads, ok, List.of());
    }

    /**
     * {@link #gather(long, double, Long, int, boolean)} with this rank's per-endpoint figures of an S3 endpoint
     * set (empty without one, or when this rank failed), so that rank 0 shows where each rank's requests went.
     */
    Gathered gather(long bytes, double seconds, Long seed, int threads, boolean ok, List<EndpointStatistics> endpoints) {
        long[] figures = cluster.allreduce(slots(bytes, seed == null ? 0 : seed, threads, ok ? 1 : 0), Mpi.Op.SUM);
        double[] times = cluster.gather(seconds);
        int n = times.length;
        long[] b = new long[n];
        long[] s = new long[n];
        int[] t = new int[n];
        boolean[] fine = new boolean[n];
        for (int i = 0; i < n; i++) {
            b[i] = figures[SLOTS * i];
            s[i] = figures[SLOTS * i + 1];
            t[i] = (int) figures[SLOTS * i + 2];
            fine[i] = figures[SLOTS * i + 3] != 0;
        }
        return new Gathered(new Aggregate(b, times, fine), seed == null ? null : s, t, endpoints(n, endpoints));
    }

    /** Figures per endpoint in the gathered array: requests, bytes, errors, times marked down. */
    private static final int ENDPOINT_SLOTS = 4;

    /**
     * Every rank's figures per endpoint (a collective: the endpoint count first, as a failed rank has none),
     * named by this rank's endpoints; null when no rank used an endpoint set.
     */
    private List<List<Map<String, Object>>> endpoints(int ranks, List<EndpointStatistics> mine) {
        int e = (int) cluster.allreduce((long) mine.size(), Mpi.Op.MAX);
        if (e == 0) {
            return null;
        }
        long[] v = new long[ranks * e * ENDPOINT_SLOTS];
        int at = cluster.coordinated() ? launch.rank() : 0;
        for (int i = 0; i < mine.size(); i++) {
            EndpointStatistics x = mine.get(i);
            int o = (at * e + i) * ENDPOINT_SLOTS;
            v[o] = x.requests();
            v[o + 1] = x.bytes();
            v[o + 2] = x.errors();
            v[o + 3] = x.markedDown();
        }
        long[] all = cluster.allreduce(v, Mpi.Op.SUM);
        List<List<Map<String, Object>>> out = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (int i = 0; i < e; i++) {
                int o = (r * e + i) * ENDPOINT_SLOTS;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("endpoint", mine.size() == e ? mine.get(i).endpoint() : null);
                m.put("requests", all[o]);
                m.put("bytes", all[o + 1]);
                m.put("errors", all[o + 2]);
                m.put("markedDown", all[o + 3]);
                list.add(m);
            }
            out.add(list);
        }
        return out;
    }

    /** Figures per rank in the gathered array: bytes, seed, threads, ok. */
    private static final int SLOTS = 4;

    private long[] slots(long bytes, long seed, long threads, long ok) {
        int n = cluster.coordinated() ? launch.size() : 1;
        int at = cluster.coordinated() ? launch.rank() : 0;
        long[] v = new long[SLOTS * n];
        v[SLOTS * at] = bytes;
        v[SLOTS * at + 1] = seed;
        v[SLOTS * at + 2] = threads;
        v[SLOTS * at + 3] = ok;
        return v;
    }

    /**
     * Every rank's figures, indexed by rank (with MPI), their seeds ({@code null} for runs without one) and their
     * requests per S3 endpoint ({@code null} without an endpoint set).
     */
    record Gathered(Aggregate aggregate, long[] seeds, int[] threads, List<List<Map<String, Object>>> endpoints) {}

    /**
     * Prints one run's outcome under a launch: with MPI, rank 0 prints its own report, a line per rank and the
     * aggregate line (or one JSON document with all of it); the other ranks print nothing on stdout. Without
     * MPI each rank prints its own report and says the aggregate is unavailable.
     */
    void report(PrintWriter out, boolean json, String verb, Map<String, Object> own, Runnable ownText,
                String rawTarget, Gathered g) {
        boolean seeds = g.seeds() != null;
        if (!launch.launched()) {
            if (json) {
                out.println(JsonWriter.ASCII_LINE.write(own));
            } else {
                ownText.run();
            }
            return;
        }
        if (!prints()) {
            return;
        }
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>(own);
            m.put("launch", launchMap());
            m.put("perRank", cluster.coordinated() ? perRank(rawTarget, g, seeds) : null);
            m.put("aggregate", cluster.coordinated() ? g.aggregate().toMap() : null);
            out.println(JsonWriter.ASCII_LINE.write(m));
            return;
        }
        ownText.run();
        if (!cluster.coordinated()) {
            out.printf(Locale.ROOT, "%s: aggregate unavailable without MPI (%s); each rank reported alone%n",
                    launch.describe(), cluster.whyAlone().orElse("?"));
            return;
        }
        out.printf(Locale.ROOT, "  ranks         %d (%s launch, %s)%s%n", launch.size(), launch.launcher(),
                cluster.mpiLibrary().orElse("?"), baseSeed == null ? "" : ", base seed "
                        + Long.toUnsignedString(baseSeed) + (sameSeed ? " on every rank" : " mixed with each rank"));
        Aggregate a = g.aggregate();
        for (int r = 0; r < a.ranks(); r++) {
            out.printf(Locale.ROOT, "  rank %-4d     %s  %s%s  %d thread(s)  %.3f s  %.3f GB/s%s%n", r,
                    shard(rawTarget, r), ByteSize.approx(a.bytes()[r]),
                    seeds ? "  seed " + Long.toUnsignedString(g.seeds()[r]) : "", g.threads()[r], a.seconds()[r],
                    Aggregate.rate(a.bytes()[r], a.seconds()[r]), a.ok()[r] ? "" : "  FAILED");
        }
        if (!a.failed().isEmpty()) {
            out.printf(Locale.ROOT, "aggregate: unavailable, rank(s) %s failed (their own messages say why)%n", a.failed());
            return;
        }
        out.println(a.line(verb));
    }

    private Map<String, Object> launchMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rank", launch.rank());
        m.put("size", launch.size());
        m.put("localRank", launch.localRank());
        m.put("localSize", launch.localSize());
        m.put("launcher", launch.launcher());
        m.put("mpi", cluster.mpiLibrary().orElse(null));
        m.put("alone", cluster.whyAlone().orElse(null));
        if (baseSeed != null) {
            m.put("baseSeed", Long.toUnsignedString(baseSeed));
        }
        return m;
    }

    /** Rank {@code r}'s target (every rank names its shard by the same rule). */
    private String shard(String rawTarget, int r) {
        return Shards.target(rawTarget, new LaunchInfo(r, launch.size(), 0, 1, launch.launcher()));
    }

    private List<Map<String, Object>> perRank(String rawTarget, Gathered g, boolean seeds) {
        Aggregate a = g.aggregate();
        List<Map<String, Object>> list = new ArrayList<>();
        for (int r = 0; r < a.ranks(); r++) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rank", r);
            m.put("target", shard(rawTarget, r));
            if (seeds) {
                m.put("seed", Long.toUnsignedString(g.seeds()[r]));
            }
            m.put("threads", g.threads()[r]);
            m.put("bytes", a.bytes()[r]);
            m.put("seconds", Aggregate.round(a.seconds()[r]));
            m.put("GBps", Aggregate.round(Aggregate.rate(a.bytes()[r], a.seconds()[r])));
            m.put("ok", a.ok()[r]);
            if (g.endpoints() != null) {
                m.put("endpoints", g.endpoints().get(r));
            }
            list.add(m);
        }
        return list;
    }

    @Override
    public void close() {
        cluster.close();
    }
}
