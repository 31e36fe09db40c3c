package io.dgen4j.cli.report;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of every rank of one save or load and what they add up to: total bytes over the slowest
 * rank's time (the job's throughput: the ranks started together), and each rank's own throughput's
 * minimum, median and maximum.
 *
 * @param bytes   bytes per rank, indexed by rank
 * @param seconds wall time per rank from the common start to its end
 * @param ok      whether each rank finished
 */
public record Aggregate(long[] bytes, double[] seconds, boolean[] ok) {

    public Aggregate {
        if (bytes.length != seconds.length || bytes.length != ok.length || bytes.length == 0) {
            throw new IllegalArgumentException(String.format("per-rank figures disagree: %d bytes, %d times, %d states",
                    bytes.length, seconds.length, ok.length));
        }
    }

    public int ranks() {
        return bytes.length;
    }

    /** The ranks that did not finish. */
    public List<Integer> failed() {
        return java.util.stream.IntStream.range(0, ok.length).filter(i -> !ok[i]).boxed().toList();
    }

    long totalBytes() {
        return Arrays.stream(bytes).sum();
    }

    /** The rank that took longest (the first of equals). */
    int slowestRank() {
        int s = 0;
        for (int i = 1; i < seconds.length; i++) {
            if (seconds[i] > seconds[s]) {
                s = i;
            }
        }
        return s;
    }

    double slowestSeconds() {
        return seconds[slowestRank()];
    }

    /** Total bytes / the slowest rank's seconds, in GB/s (10^9 bytes). */
    double gbps() {
        return rate(totalBytes(), slowestSeconds());
    }

    /** Each rank's own GB/s, sorted. */
    double[] perRankSorted() {
        double[] r = new double[bytes.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = rate(bytes[i], seconds[i]);
        }
        Arrays.sort(r);
        return r;
    }

    double minGBps() {
        return perRankSorted()[0];
    }

    double maxGBps() {
        double[] r = perRankSorted();
        return r[r.length - 1];
    }

    /** The median of the ranks' GB/s (the mean of the middle two for an even count). */
    double medianGBps() {
        double[] r = perRankSorted();
        int n = r.length;
        return n % 2 == 1 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
    }

    /** The aggregate line, e.g. {@code aggregate: 2 ranks saved 8.00 MiB (8388608 bytes) in 0.215 s (slowest rank 1): 0.04 GB/s; per rank min ... GB/s}. */
    public String line(String verb) {
        return String.format(Locale.ROOT, "aggregate: %d ranks %s %s (%d bytes) in %.3f s (slowest rank %d): %.3f GB/s; "
                        + "per rank min %.3f / median %.3f / max %.3f GB/s", ranks(), verb,
                io.dgen4j.unit.ByteSize.approx(totalBytes()), totalBytes(), slowestSeconds(), slowestRank(), gbps(), minGBps(), medianGBps(), maxGBps());
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ranks", ranks());
        m.put("totalBytes", totalBytes());
        m.put("slowestSeconds", round(slowestSeconds()));
        m.put("slowestRank", slowestRank());
        m.put("GBps", round(gbps()));
        m.put("perRankMinGBps", round(minGBps()));
        m.put("perRankMedianGBps", round(medianGBps()));
        m.put("perRankMaxGBps", round(maxGBps()));
        return m;
    }

    public static double rate(long bytes, double seconds) {
        return seconds > 0 ? bytes / seconds / 1e9 : 0;
    }

    public static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
