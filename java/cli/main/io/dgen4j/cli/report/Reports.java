package io.dgen4j.cli.report;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.Phase;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.cli.s3.S3Backends;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.unit.ByteSize;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Text tables of checkpoint results for people (JSON goes through {@link io.dgen4j.json.JsonWriter#ASCII_LINE}). */
public final class Reports {
    private Reports() {}

    /** {@code n} and the noun, plural unless {@code n} is 1: {@code 1 writer}, {@code 2 writers}, {@code 0 ranks}. */
    public static String count(long n, String noun) {
        return n + " " + (n == 1 ? noun : noun + "s");
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

    /**
     * The old-vs-new side-by-side table: each method's phases (in order, {@code -} where a method has
     * no such phase), adding up to its total, then its rates and memory.
     */
    public static void compare(PrintWriter out, SaveResult streaming, SaveResult old) {
        out.printf(Locale.ROOT, "%-22s %14s %14s%n", "", "old (prealloc)", "new (stream)");
        row(out, "size", ByteSize.approx(old.totalBytes()), ByteSize.approx(streaming.totalBytes()));
        Map<String, String> labels = new LinkedHashMap<>();
        List<Phase> a = old.phases();
        List<Phase> b = streaming.phases();
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
            row(out, e.getValue() + " s", seconds(a, e.getKey()), seconds(b, e.getKey()));
        }
        row(out, "total s", f3(old.totalSeconds()), f3(streaming.totalSeconds()));
        row(out, "generation (fill) s", f3(old.generationSeconds()), f3(streaming.generationSeconds()) + "*");
        row(out, "I/O GB/s", f2(old.ioGBps()), f2(streaming.ioGBps()));
        row(out, "end-to-end GB/s", f2(old.totalGBps()), f2(streaming.totalGBps()));
        row(out, "peak RSS (process)", mib(old.peakRssBytes()), mib(streaming.peakRssBytes()));
        row(out, "O_DIRECT", String.valueOf(old.directIo()), String.valueOf(streaming.directIo()));
        out.printf(Locale.ROOT, "memory reduction: %.1fx less resident memory; I/O speed new/old %.2f; end-to-end new/old %.2f%n",
                (double) old.peakRssBytes() / Math.max(1, streaming.peakRssBytes()),
                streaming.ioGBps() / Math.max(1e-9, old.ioGBps()), streaming.totalGBps() / Math.max(1e-9, old.totalGBps()));
        out.println("the phase rows add up to each total; * the new method generates while it writes (not a phase:"
                + " its stalls are 'gen. stall')");
    }

    private static boolean has(List<Phase> phases, String key) {
        return phases.stream().anyMatch(p -> p.key().equals(key));
    }

    private static String seconds(List<Phase> phases, String key) {
        return phases.stream().filter(p -> p.key().equals(key)).findFirst().map(p -> f3(p.seconds())).orElse("-");
    }

    private static void row(PrintWriter out, String name, String a, String b) {
        out.printf(Locale.ROOT, "%-22s %14s %14s%n", name, a, b);
    }

    private static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** The table for people: one row per backend. */
    public static void backends(PrintWriter out, List<S3Backends.Run> runs, double best, double bestCpu) {
        out.printf(Locale.ROOT, "%-7s %8s %8s %10s %7s %9s %9s %9s %8s%n", "backend", "save s", "MB/s", "CPU s/GiB",
                "copies", "peak RSS", "load MB/s", "verified", "vs best");
        for (S3Backends.Run r : runs) {
            String copies = r.copiesPerByte() == null ? "?" : r.copiesPerByte().toString();
            if (r.unavailable() != null) {
                out.printf(Locale.ROOT, "%-7s unavailable: %s%n", r.backend(), r.unavailable());
            } else if (!r.ok()) {
                out.printf(Locale.ROOT, "%-7s failed: %s%n", r.backend(), r.error());
            } else {
                out.printf(Locale.ROOT, "%-7s %8.2f %8.1f %10.2f %7s %9s %9.1f %9s %8.2f%n", r.backend(),
                        r.save().totalSeconds(), r.saveMBps(), r.cpuSecondsPerGiB(), copies,
                        mib(r.save().peakRssBytes()), r.loadMBps(), r.load().verified() ? "yes" : "no",
                        r.saveMBps() / best);
            }
        }
        out.println("MB/s: 10^6 bytes/s of the save; CPU s/GiB: this process's CPU time during the save (generation "
                + "included, the same for every backend)" + (Double.isFinite(bestCpu) ? "" : ", not available here"));
        out.println("copies: per byte sent, as the backend's client works; peak RSS: the whole process during the "
                + "save, with what earlier backends left resident (--backends NAME alone for one's own); vs best: "
                + "MB/s over the fastest's");
    }
}
