package io.dgen4j.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** Elapsed and process CPU seconds of one run, and medians: what the S3 benchmarks report. */
final class Measure {
    private Measure() {}

    /** A measured piece of work. */
    interface Run {
        void run() throws Exception;
    }

    /**
     * Elapsed and process CPU seconds of one run (this process's CPU time: native client threads
     * included); with {@code -Dbench.threads=true}, CPU by thread group and page faults on stderr too.
     */
    static double[] of(Run run) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        boolean threads = Boolean.getBoolean("bench.threads");
        Map<String, long[]> before = threads ? threadTicks() : null;
        Map<String, Long> vm0 = threads ? vmstat() : null;
        long faults0 = threads ? selfFaults() : 0;
        Map<String, long[]> seen = new ConcurrentHashMap<>();
        Thread sampler = null;
        if (threads) {
            // threads that exit during the run (the save's own) are seen by their last sample
            sampler = Thread.ofPlatform().daemon().name("bench-sampler").start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        seen.putAll(threadTicks());
                        Thread.sleep(20);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
        }
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        run.run();
        double[] r = {(System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9};
        if (threads) {
            sampler.interrupt();
            sampler.join();
            seen.putAll(threadTicks());
            Map<String, long[]> groups = new TreeMap<>();
            seen.forEach((tid, v) -> {
                long[] b = before.get(tid);
                long d = v[0] - (b == null ? 0 : b[0]);
                long sys = v[1] - (b == null ? 0 : b[1]);
                if (d > 0 && !tid.endsWith("/bench-sampler")) {
                    groups.merge(tid.substring(tid.indexOf('/') + 1).replaceAll("[0-9]+", "#"), new long[] {d, sys},
                            (x, y) -> new long[] {x[0] + y[0], x[1] + y[1]});
                }
            });
            Map<String, Long> vm1 = vmstat();
            System.err.printf(Locale.ROOT, "  page faults of this process: %d minor; machine-wide: thp_fault_alloc +%d, "
                    + "compact_stall +%d, direct reclaim scans +%d%n", selfFaults() - faults0,
                    vm1.getOrDefault("thp_fault_alloc", 0L) - vm0.getOrDefault("thp_fault_alloc", 0L),
                    vm1.getOrDefault("compact_stall", 0L) - vm0.getOrDefault("compact_stall", 0L),
                    vm1.getOrDefault("pgscan_direct", 0L) - vm0.getOrDefault("pgscan_direct", 0L));
            StringBuilder sb = new StringBuilder("  CPU by thread group (ticks of 10 ms, of which system):");
            groups.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue()[0], x.getValue()[0]))
                    .forEach(e -> sb.append(' ').append(e.getKey()).append('=').append(e.getValue()[0]).append('(')
                            .append(e.getValue()[1]).append(')'));
            System.err.println(sb);
        }
        return r;
    }

    /** Median elapsed and median CPU seconds of runs, each taken apart. */
    static double[] median(double[][] runs) {
        return new double[] {median(Arrays.stream(runs).mapToDouble(r -> r[0]).toArray()),
            median(Arrays.stream(runs).mapToDouble(r -> r[1]).toArray())};
    }

    /** The median of {@code v}. */
    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** The counters of {@code /proc/vmstat} (machine-wide). */
    private static Map<String, Long> vmstat() throws IOException {
        Map<String, Long> m = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/vmstat"))) {
            String[] f = line.split(" ");
            m.put(f[0], Long.parseLong(f[1]));
        }
        return m;
    }

    /** Minor page faults of this process so far ({@code /proc/self/stat}, field 10). */
    private static long selfFaults() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[7]);
    }

    /** User+system clock ticks of each thread of this process, by {@code tid/name} ({@code /proc}, Linux). */
    private static Map<String, long[]> threadTicks() throws IOException {
        Map<String, long[]> m = new HashMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (var t : tasks.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String[] f = stat.substring(close + 2).split(" ");
                    m.put(t.getFileName() + "/" + stat.substring(open + 1, close),
                            new long[] {Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[12])});
                } catch (IOException e) {
                    // the thread exited meanwhile
                }
            }
        }
        return m;
    }
}
