package io.dgen4j.cli.report;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.Phase;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.cli.s3.S3Backends;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.unit.ByteSize;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Text tables of checkpoint results for people (JSON goes through {@link io.dgen4j.json.JsonWriter#ASCII_LINE}). */
public final class Reports {
    private Reports() {}

    /** {@code n} and the noun, plural unless {@code n} is 1: {@code 1 writer}, {@code 2 writers}, {@code 0 ranks}. */
    public static String count(long n, String noun) {
        return n + " " + (n == 1 ? noun : noun + "s");
    }

    /** The most rounds a comparison takes: enough for any spread, few enough to see a typo. */
    public static final int MAX_ROUNDS = 1000;

    /** {@code --rounds} is 1 to {@value #MAX_ROUNDS}. */
    public static void checkRounds(int rounds) {
        if (rounds < 1 || rounds > MAX_ROUNDS) {
            throw new IllegalArgumentException("--rounds must be 1 to " + MAX_ROUNDS + ", not " + rounds);
        }
    }

    public static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
    }

    /**
     * What "throughput ratio" and "overhead" mean, printed under every save report and comparison
     * (and in docs/CHECKPOINTS.md).
     */
    public static final String LEGEND = "throughput ratio = (I/O + fsync+rename) / total: 1.000 when nothing but"
            + " the storage took time; overhead = % of the total outside the slower stage (generation, or I/O +"
            + " fsync+rename)";

    public static void save(PrintWriter out, SaveResult r) {
        out.printf(Locale.ROOT, "saved %s (%d bytes) to %s%n", ByteSize.approx(r.totalBytes()), r.totalBytes(), r.target());
        out.printf(Locale.ROOT, "  backend       %s%n", r.backend());
        out.printf(Locale.ROOT, "  data          %s generator, seed %s%n", r.generator(), r.seed());
        out.printf(Locale.ROOT, "  pipeline      %s of %s, %s, %s in flight, peak %s in use%n",
                count(r.chunks(), "chunk"), ByteSize.format(r.chunkSize()), count(r.buffers(), "buffer"),
                count(r.writersInFlight(), "writer"), count(r.peakBuffersInUse(), "buffer"));
        out.printf(Locale.ROOT, "  generation    %8.3f s  %7.2f GB/s (fill time only%s)%n", r.generationSeconds(),
                r.generationGBps(), r.buffers() > 0 ? ", overlapped with the writes" : "");
        out.printf(Locale.ROOT, "  I/O           %8.3f s  %7.2f GB/s (writes in flight)%n", r.ioSeconds(), r.ioGBps());
        phases(out, r.phases(), r.totalSeconds());
        out.printf(Locale.ROOT, "  total         %8.3f s  %7.2f GB/s   throughput ratio %.3f, overhead %.1f %%, bottleneck %s%n",
                r.totalSeconds(), r.totalGBps(), r.throughputRatio(), r.pipelineOverheadPercent(), r.bottleneck());
        out.printf(Locale.ROOT, "  memory        peak RSS %s (whole process), pool %s%n", mib(r.peakRssBytes()), mib(r.poolBytes()));
        endpoints(out, r.endpoints());
        out.println("  " + LEGEND);
    }

    public static void load(PrintWriter out, LoadResult r) {
        out.printf(Locale.ROOT, "loaded %s (%d bytes) from %s%s%n", ByteSize.approx(r.totalBytes()), r.totalBytes(),
                r.target(), r.verified() ? ": every byte verified" : "");
        out.printf(Locale.ROOT, "  backend       %s%n", r.backend());
        out.printf(Locale.ROOT, "  read          %8.3f s  %7.2f GB/s (reads in flight, %s)%n",
                r.readSeconds(), r.readGBps(), count(r.readersInFlight(), "reader"));
        if (r.verified()) {
            out.printf(Locale.ROOT, "  verify        %8.3f s (%s: regenerate + compare, overlapped with the reads)%n",
                    r.verifySeconds(), r.verifier());
        }
        phases(out, r.phases(), r.totalSeconds());
        out.printf(Locale.ROOT, "  total         %8.3f s  %7.2f GB/s%n", r.totalSeconds(), r.totalGBps());
        out.printf(Locale.ROOT, "  memory        peak RSS %s (whole process)%n", mib(r.peakRssBytes()));
        endpoints(out, r.endpoints());
    }

    /** The phase rows: each one's seconds, share of the total and what it was; they add up to the total. */
    static void phases(PrintWriter out, List<Phase> phases, double total) {
        out.println("  phases        one after another, adding up to the total:");
        for (Phase p : phases) {
            out.printf(Locale.ROOT, "    %-12s%8.3f s %5.1f %%  %s%n", p.label(), p.seconds(),
                    total > 0 ? p.seconds() / total * 100 : 0, p.what());
        }
    }

    /** The phases in one line: {@code start-up 0.012 + open 0.030 + ... = 0.692 s}. */
    public static String phaseLine(List<Phase> phases, double total) {
        StringBuilder sb = new StringBuilder();
        for (Phase p : phases) {
            sb.append(sb.isEmpty() ? "" : " + ").append(String.format(Locale.ROOT, "%s %.3f", p.label(), p.seconds()));
        }
        return sb.append(String.format(Locale.ROOT, " = %.3f s", total)).toString();
    }

    /** A set larger than this lists only the endpoints that took a request or failed. */
    static final int LIST_IDLE_ENDPOINTS = 16;

    /**
     * The per-endpoint table of a save or load that spread its requests over more than one
     * endpoint (nothing for one: the lines above say it all). Of a set of more than
     * {@value #LIST_IDLE_ENDPOINTS}, the endpoints that took no request, up and without a failure,
     * are counted, not listed ({@code --json} lists every one).
     */
    static void endpoints(PrintWriter out, List<EndpointStatistics> all) {
        if (all.size() < 2) {
            return;
        }
        List<EndpointStatistics> list = all.size() <= LIST_IDLE_ENDPOINTS ? all : all.stream()
                .filter(e -> e.requests() > 0 || e.errors() > 0 || !"up".equals(e.state())
                        || e.lastFailure() != null && !e.lastFailure().isEmpty())
                .toList();
        int width = Math.max("endpoint".length(), list.stream().mapToInt(e -> e.endpoint().length()).max().orElse(0));
        String row = "    %-" + width + "s %9s %10s %7s %9s %9s %5s %-8s %s%n";
        out.printf(Locale.ROOT, "  endpoints     %d%n", all.size());
        out.printf(Locale.ROOT, row, "endpoint", "requests", "MiB", "errors", "p50 ms", "p99 ms", "down", "state",
                "last failure");
        for (EndpointStatistics e : list) {
            out.printf(Locale.ROOT, row, e.endpoint(), e.requests(), String.format(Locale.ROOT, "%.1f",
                    e.bytes() / 1048576.0), e.errors(), String.format(Locale.ROOT, "%.2f", e.p50Millis()),
                    String.format(Locale.ROOT, "%.2f", e.p99Millis()), e.markedDown(), e.state(),
                    e.lastFailure() == null || e.lastFailure().isEmpty() ? "-" : e.lastFailure());
        }
        if (list.size() < all.size()) {
            out.printf(Locale.ROOT, "    %s more took no request (up, no failure; --json lists every one)%n",
                    count(all.size() - list.size(), "endpoint"));
        }
        out.println("    down: times marked down (connect failure, timeout, 5xx); state when the figures were taken");
    }

    /** The one-round table of {@link #compare(PrintWriter, List, List)}. */
    public static void compare(PrintWriter out, SaveResult streaming, SaveResult old) {
        compare(out, List.of(streaming), List.of(old));
    }

    /** Of {@code rounds}, the one of median total time (of an even count, the faster middle one). */
    public static SaveResult medianRound(List<SaveResult> rounds) {
        List<SaveResult> sorted = rounds.stream().sorted(Comparator.comparingDouble(SaveResult::totalSeconds)).toList();
        return sorted.get((sorted.size() - 1) / 2);
    }

    /**
     * The old-vs-new side-by-side table: each method's phases (in order, {@code -} where a method has
     * no such phase), adding up to its total, then its rates and memory; each figure the median over
     * the rounds and, with more than one, its min-max range.
     */
    public static void compare(PrintWriter out, List<SaveResult> streaming, List<SaveResult> old) {
        int rounds = Math.min(streaming.size(), old.size());
        String row = "%-22s %" + (rounds > 1 ? 24 : 14) + "s %" + (rounds > 1 ? 24 : 14) + "s%n";
        out.printf(Locale.ROOT, row, "", "old (prealloc)", "new (stream)");
        out.printf(Locale.ROOT, row, "size", ByteSize.approx(old.getFirst().totalBytes()),
                ByteSize.approx(streaming.getFirst().totalBytes()));
        Map<String, String> labels = new LinkedHashMap<>();
        List<Phase> a = old.getFirst().phases();
        List<Phase> b = streaming.getFirst().phases();
        // old's order; a phase both have comes after the new method's phases that precede it there
        for (Phase p : a) {
            if (has(b, p.key())) {
                for (Phase q : b) {
                    if (q.key().equals(p.key())) {
                        break;
                    }
                    labels.putIfAbsent(q.key(), q.label());
                }
            }
            labels.putIfAbsent(p.key(), p.label());
        }
        b.forEach(q -> labels.putIfAbsent(q.key(), q.label()));
        for (var e : labels.entrySet()) {
            out.printf(Locale.ROOT, row, e.getValue() + " s", seconds(old, e.getKey()), seconds(streaming, e.getKey()));
        }
        Spread oldIo = spread(old, SaveResult::ioGBps);
        Spread newIo = spread(streaming, SaveResult::ioGBps);
        Spread oldTotal = spread(old, SaveResult::totalGBps);
        Spread newTotal = spread(streaming, SaveResult::totalGBps);
        Spread oldRss = spread(old, r -> r.peakRssBytes() / 1048576.0);
        Spread newRss = spread(streaming, r -> r.peakRssBytes() / 1048576.0);
        out.printf(Locale.ROOT, row, "total s", spread(old, SaveResult::totalSeconds).format("%.3f"),
                spread(streaming, SaveResult::totalSeconds).format("%.3f"));
        out.printf(Locale.ROOT, row, "generation (fill) s", spread(old, SaveResult::generationSeconds).format("%.3f"),
                spread(streaming, SaveResult::generationSeconds).format("%.3f") + "*");
        out.printf(Locale.ROOT, row, "I/O GB/s", oldIo.format("%.2f"), newIo.format("%.2f"));
        out.printf(Locale.ROOT, row, "end-to-end GB/s", oldTotal.format("%.2f"), newTotal.format("%.2f"));
        out.printf(Locale.ROOT, row, "peak RSS (process)", oldRss.format("%.0f") + " MiB", newRss.format("%.0f") + " MiB");
        out.printf(Locale.ROOT, row, "O_DIRECT", String.valueOf(old.getFirst().directIo()),
                String.valueOf(streaming.getFirst().directIo()));
        out.printf(Locale.ROOT, "memory reduction: %.1fx less resident memory; I/O speed new/old %.2f%s; end-to-end "
                + "new/old %.2f%s%n", oldRss.median() / Math.max(1.0 / 1048576, newRss.median()),
                newIo.median() / Math.max(1e-9, oldIo.median()), newIo.ties(oldIo) ? " (tie)" : "",
                newTotal.median() / Math.max(1e-9, oldTotal.median()), newTotal.ties(oldTotal) ? " (tie)" : "");
        out.println((rounds > 1 ? "in each round the phase rows add up to its total (their medians need not)"
                : "the phase rows add up to each total") + "; * the new method generates while it writes (not a phase:"
                + " its stalls are 'gen. stall')");
        if (rounds > 1) {
            out.println(rounds + " rounds, interleaved (new, old, new, old, ...): each figure is the median (min-max) "
                    + "of the rounds; (tie): the two methods' ranges overlap, a difference within the spread");
        }
    }

    /** {@code f} of each round. */
    public static Spread spread(List<SaveResult> rounds, ToDoubleFunction<SaveResult> f) {
        return Spread.of(rounds.stream().mapToDouble(f).toArray());
    }

    private static boolean has(List<Phase> phases, String key) {
        return phases.stream().anyMatch(p -> p.key().equals(key));
    }

    /** The phase {@code key}'s seconds over the rounds that have it, or {@code -}. */
    private static String seconds(List<SaveResult> rounds, String key) {
        double[] v = rounds.stream().flatMap(r -> r.phases().stream()).filter(p -> p.key().equals(key))
                .mapToDouble(Phase::seconds).toArray();
        return v.length == 0 ? "-" : Spread.of(v).format("%.3f");
    }

    /**
     * The table for people: one row per backend, each figure its median over the rounds and, with
     * more than one round, its min-max range; "tie" in "vs best" where the range of MB/s overlaps the
     * fastest's.
     */
    public static void backends(PrintWriter out, List<S3Backends.Backend> backends) {
        S3Backends.Backend best = S3Backends.best(backends);
        double bestCpu = S3Backends.bestCpu(backends);
        int rounds = backends.stream().mapToInt(b -> b.rounds().size()).max().orElse(1);
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"backend", "save s", "MB/s", "CPU s/GiB", "1st save", "copies", "peak RSS", "load MB/s",
                "verified", "vs best"});
        List<String> notes = new ArrayList<>();
        boolean anyTie = false;
        for (S3Backends.Backend b : backends) {
            S3Backends.Run r = b.first();
            String copies = r.copiesPerByte() == null ? "?" : r.copiesPerByte().toString();
            if (b.unavailable() != null) {
                notes.add(String.format(Locale.ROOT, "%-7s unavailable: %s", b.backend(), b.unavailable()));
            } else if (!b.ok()) {
                notes.add(String.format(Locale.ROOT, "%-7s failed%s: %s", b.backend(), rounds > 1
                        ? " in round " + b.rounds().size() : "", b.error()));
            } else {
                boolean tie = S3Backends.tiesBest(b, best);
                anyTie |= tie;
                Spread rss = b.peakRssBytes();
                rows.add(new String[] {b.backend(), b.saveSeconds().format("%.2f"), b.saveMBps().format("%.1f"),
                        b.cpuSecondsPerGiB().format("%.2f"), b.firstCpuSecondsPerGiB().format("%.2f"), copies, rss.rounds() < 2 ? mib((long) rss.median())
                        : String.format(Locale.ROOT, "%.0f (%.0f-%.0f) MiB", rss.median() / 1048576.0,
                        rss.min() / 1048576.0, rss.max() / 1048576.0), b.loadMBps().format("%.1f"),
                        b.verified() ? "yes" : "no", String.format(Locale.ROOT, "%.2f%s",
                        b.saveMBps().median() / best.saveMBps().median(), tie ? " tie" : "")});
            }
        }
        int[] width = new int[rows.getFirst().length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        width[0] = Math.max(width[0], 7);
        for (String[] row : rows) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + width[0] + "s", row[0]));
            for (int c = 1; c < row.length; c++) {
                sb.append(String.format(Locale.ROOT, " %" + Math.max(width[c], 8) + "s", row[c]));
            }
            out.println(sb);
        }
        notes.forEach(out::println);
        boolean firstSaves = backends.stream().filter(S3Backends.Backend::ok)
                .anyMatch(b -> b.rounds().stream().anyMatch(r -> !Double.isNaN(r.firstCpuSeconds())));
        out.println("MB/s: 10^6 bytes/s of the save; CPU s/GiB: this process's CPU time during the save (generation "
                + "included, the same for every backend)" + (Double.isFinite(bestCpu) ? "" : ", not available here")
                + (firstSaves ? "; the measured save follows a first one of the same size, so it is the steady state, "
                + "and 1st save is that first save's CPU s/GiB, the clients starting (what a one-shot run costs)"
                : "; 1st save: the same, the measured save being the first (--no-warmup)"));
        out.println("copies: per byte sent, as the backend's client works; peak RSS: the whole process during the "
                + "save, with what earlier backends left resident (--backends NAME alone for one's own); vs best: "
                + "median MB/s over the fastest's");
        if (rounds > 1) {
            out.println(rounds + " rounds, interleaved (round 1 of every backend, then round 2, ...): each figure is "
                    + "the median (min-max) of the rounds; " + (anyTie ? "tie: a backend whose MB/s range overlaps the"
                    + " fastest's, a difference within the spread of the rounds" : "no tie: every other backend's MB/s"
                    + " range lies below the fastest's"));
        } else {
            out.println("one round: no spread to judge the differences by; --rounds N repeats each backend N times "
                    + "and marks the differences within the spread as ties");
        }
    }
}
