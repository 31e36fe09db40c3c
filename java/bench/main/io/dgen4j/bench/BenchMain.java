package io.dgen4j.bench;

import io.dgen4j.gen.SystemInfo;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code ./dgen4j bench}: runs {@link FillBenchmark} and {@link FfmOverheadBenchmark} with JMH and
 * prints GB/s side by side and the ratios of the goals; {@code --json} prints one JSON array of
 * {@code {"name","bytes","threads","gbps"}} instead. {@code ./dgen4j bench s3 ...} runs the S3
 * benchmarks instead ({@link S3Bench}).
 *
 * <pre>
 * ./dgen4j bench [--quick] [--json] [--sizes 64KiB,32MiB,1GiB] [--threads 1,2] [--numa-node N]
 *                [--warmup N] [--iterations N] [--time SECONDS] [--forks N] [--cases native,native-verify,...]
 * </pre>
 */
public final class BenchMain {
    /** JMH method name -> case name. */
    static final Map<String, String> NAMES = new LinkedHashMap<>();

    static {
        NAMES.put("nativeFill", "native");
        NAMES.put("nativeDedup2Compress3", "native-d2c3");
        NAMES.put("nativeVerify", "native-verify");
        NAMES.put("twinVector", "twin-vector");
        NAMES.put("twinScalar", "twin-scalar");
        NAMES.put("memset", "memset");
        NAMES.put("jdkRandom", "jdk-random");
        NAMES.put("splittable", "splittable");
        NAMES.put("jdkXoshiro", "jdk-xoshiro");
        NAMES.put("vectorXoshiro", "vector-xoshiro");
        NAMES.put("throughJava", "native-ffm-call");
        NAMES.put("insideRust", "native-in-rust");
    }

    /** One measured case. */
    record Case(String name, long bytes, int threads, double gbps) {}

    private BenchMain() {}

    /** Largest size a case is asked to fill: the heap-array baselines hold it in one array per thread. */
    static final long MAX_SIZE = 64L << 30;

    /** Most threads a case is asked to fill with. */
    static final int MAX_THREADS = 1024;

    /** The options of one {@code bench} run, checked. */
    record Args(boolean help, boolean quick, boolean json, List<String> sizes, List<String> threads, Integer node,
            int warmup, int iterations, int time, int forks, List<String> methods) {}

    /**
     * Parses and checks the command line.
     *
     * @throws IllegalArgumentException naming the option and the value it got, for the usage error
     */
    static Args parse(String[] args) {
        boolean quick = false;
        boolean json = false;
        String sizes = null;
        String threads = "1,2";
        Integer node = null;
        int warmup = -1;
        int iterations = -1;
        int time = 1;
        int forks = 1;
        String only = null;
        for (int i = 0; i < args.length; i++) {
            String opt = args[i];
            switch (opt) {
                case "--quick" -> quick = true;
                case "--json" -> json = true;
                case "-h", "--help" -> {
                    return new Args(true, false, false, List.of(), List.of(), null, 0, 0, 0, 0, List.of());
                }
                case "--sizes", "--threads", "--numa-node", "--warmup", "--iterations", "--time", "--forks", "--cases" -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(opt + " needs a value");
                    }
                    String v = args[++i];
                    switch (opt) {
                        case "--sizes" -> sizes = v;
                        case "--threads" -> threads = v;
                        case "--numa-node" -> node = intArg(opt, v, 0, 4095);
                        case "--warmup" -> warmup = intArg(opt, v, 0, 1000);
                        case "--iterations" -> iterations = intArg(opt, v, 1, 1000);
                        case "--time" -> time = intArg(opt, v, 1, 3600);
                        // The benchmark JVM's flags (the Vector API module, native access) need a fork.
                        case "--forks" -> forks = intArg(opt, v, 1, 100);
                        case "--cases" -> only = v;
                        default -> throw new IllegalStateException("option " + opt + " has no handler");
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + opt + " (see --help)");
            }
        }
        List<String> sizeList = new ArrayList<>();
        for (String v : (sizes != null ? sizes : quick ? "1GiB" : "64KiB,32MiB,1GiB").split(",", -1)) {
            long n;
            try {
                n = ByteSize.parseBytes(v);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--sizes: " + e.getMessage(), e);
            }
            if (n < 4096 || n % 4096 != 0 || n > MAX_SIZE) {
                throw new IllegalArgumentException(String.format(Locale.ROOT,
                        "--sizes: each size must be a multiple of 4KiB from 4KiB to 64GiB, got '%s'", v.trim()));
            }
            sizeList.add(Long.toString(n));
        }
        List<String> threadList = new ArrayList<>();
        for (String v : threads.split(",", -1)) {
            threadList.add(Integer.toString(intArg("--threads", v, 1, MAX_THREADS)));
        }
        List<String> methods = new ArrayList<>();
        if (only != null) {
            for (String c : only.split(",", -1)) {
                methods.add(NAMES.entrySet().stream().filter(e -> e.getValue().equals(c.trim())).map(Map.Entry::getKey)
                        .findFirst().orElseThrow(() -> new IllegalArgumentException(
                                "unknown case '" + c.trim() + "' (cases: " + String.join(",", NAMES.values()) + ")")));
            }
        }
        return new Args(false, quick, json, sizeList, threadList, node,
                warmup >= 0 ? warmup : quick ? 1 : 2,  // --quick: 1 warmup + 1 measurement of 1 s per case
                iterations > 0 ? iterations : quick ? 1 : 5, time, forks, methods);
    }

    /** {@code v} as an int in {@code [min, max]}, else a usage error naming {@code opt}. */
    static int intArg(String opt, String v, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: '%s' is not a whole number", opt, v.trim()), e);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be in [%d, %d], got %d", opt, min, max, n));
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("s3")) {
            S3Bench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        // Usage errors exit 2 with one line, before JMH starts (a zero thread count or size used to
        // hang or fail in the forked JVM with a stack trace).
        Args a;
        try {
            a = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("dgen4j bench: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (a.help()) {
            System.out.println("usage: dgen4j bench [s3 ...] [--quick] [--json] [--sizes 64KiB,32MiB,1GiB] [--threads 1,2]"
                    + " [--numa-node N] [--warmup N] [--iterations N] [--time SECONDS] [--forks N]"
                    + " [--cases " + String.join(",", NAMES.values()) + "]");
            return;
        }
        boolean json = a.json();
        Integer node = a.node();
        List<String> sizeList = a.sizes();
        List<String> jvm = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
                "--add-modules=jdk.incubator.vector", "-Xss4m", "-XX:+UseParallelGC"));
        if (node != null) {
            jvm.add("-D" + FillBenchmark.PROP_NODE + "=" + node);
        }
        String methods = a.methods().isEmpty() ? "" : "(" + String.join("|", a.methods()) + ")$";
        ChainedOptionsBuilder ob = new OptionsBuilder()
                .include(FillBenchmark.class.getName() + "\\." + methods)
                .param("bytes", sizeList.toArray(String[]::new))
                .param("threads", a.threads().toArray(String[]::new))
                .warmupIterations(a.warmup()).warmupTime(TimeValue.seconds(a.time()))
                .measurementIterations(a.iterations()).measurementTime(TimeValue.seconds(a.time()))
                .forks(a.forks())
                .jvmArgs(jvm.toArray(String[]::new))
                .shouldFailOnError(true);
        if (!a.quick() && a.methods().isEmpty() && sizeList.contains(Long.toString(64 << 10))) {
            ob.include(FfmOverheadBenchmark.class.getName() + "\\.");
        }
        Collection<RunResult> results = runQuietly(ob.build(), json ? VerboseMode.SILENT : VerboseMode.NORMAL);
        List<Case> cases = new ArrayList<>();
        for (RunResult r : results) {
            String method = r.getParams().getBenchmark();
            method = method.substring(method.lastIndexOf('.') + 1);
            String name = NAMES.getOrDefault(method, method);
            double opsPerSecond = r.getPrimaryResult().getScore();
            long bytes;
            int t;
            if (method.equals("throughJava") || method.equals("insideRust")) {
                bytes = FfmOverheadBenchmark.SIZE;
                t = 1;
            } else {
                bytes = Long.parseLong(r.getParams().getParam("bytes"));
                t = Integer.parseInt(r.getParams().getParam("threads"));
            }
            cases.add(new Case(name, bytes, t, opsPerSecond * bytes / 1e9));
        }
        cases.sort((x, y) -> x.bytes != y.bytes ? Long.compare(x.bytes, y.bytes)
                : x.threads != y.threads ? Integer.compare(x.threads, y.threads)
                : Integer.compare(order(x.name), order(y.name)));
        if (json) {
            System.out.println(json(cases));
        } else {
            System.out.print(summary(cases, node, machine()));
        }
    }

    /**
     * Runs JMH with all its output on stderr, so that stdout carries only the summary or the JSON.
     * JMH's own report goes to a stderr {@link OutputFormat}; what the forked VMs print (JVM
     * warnings, benchmark output), which JMH relays to the host's {@code System.out}, is sent to
     * stderr by pointing {@code System.out} there for the duration of the run.
     */
    static Collection<RunResult> runQuietly(Options options, VerboseMode verbosity) throws RunnerException {
        PrintStream stdout = System.out;
        OutputFormat format = OutputFormatFactory.createFormatInstance(System.err, verbosity);
        System.setOut(System.err);
        try {
            return new Runner(options, format).run();
        } finally {
            System.out.flush();
            System.setOut(stdout);
        }
    }

    static int order(String name) {
        int i = new ArrayList<>(NAMES.values()).indexOf(name);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    /**
     * The cases as a JSON array of {@code {"name","bytes","threads","gbps"}}, one per line, written
     * by core's {@link JsonWriter#ASCII_LINE}: names escaped, bytes exact, GB/s rounded to 3 decimals, a non-finite rate
     * (a failed measurement) as {@code null}.
     */
    static String json(List<Case> cases) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < cases.size(); i++) {
            sb.append(i == 0 ? "\n  " : ",\n  ").append(json(cases.get(i)));
        }
        return sb.append(cases.isEmpty() ? "]" : "\n]").toString();
    }

    private static String json(Case c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", c.name);
        m.put("bytes", c.bytes);
        m.put("threads", c.threads);
        m.put("gbps", Double.isFinite(c.gbps) ? Math.round(c.gbps * 1000.0) / 1000.0 : null);
        return JsonWriter.ASCII_LINE.write(m);
    }

    /** The last-level cache size from sysfs (0 when unknown). */
    static long llcBytes() {
        long best = 0;
        for (int i = 0; i < 8; i++) {
            Path p = Path.of("/sys/devices/system/cpu/cpu0/cache/index" + i + "/size");
            try {
                if (Files.exists(p)) {
                    best = Math.max(best, ByteSize.parseBytes(Files.readString(p)));
                }
            } catch (IOException | IllegalArgumentException e) {
                // unknown: keep what we have
            }
        }
        return best;
    }

    /** {@link #summary(List, Integer, String)} without a machine line. */
    static String summary(List<Case> cases, Integer node) {
        return summary(cases, node, null);
    }

    /**
     * The table for people: a header naming the machine ({@code machine}, when given) and what the
     * baselines are, GB/s per size and thread count, then each goal's ratio marked {@code ok} or
     * {@code MISSED} and a closing line counting the missed ones.
     */
    static String summary(List<Case> cases, Integer node, String machine) {
        long llc = llcBytes();
        StringBuilder sb = new StringBuilder();
        List<String> names = new ArrayList<>();
        for (String n : NAMES.values()) {
            if (!n.startsWith("native-ffm") && !n.equals("native-in-rust") && cases.stream().anyMatch(c -> c.name.equals(n))) {
                names.add(n);
            }
        }
        sb.append(String.format(Locale.ROOT, "%ndgen4j bench: fill (native-verify: verify) throughput in GB/s (10^9 bytes/s)%s; last-level cache %s%n",
                node == null ? "" : ", bound to NUMA node " + node, llc == 0 ? "unknown" : human(llc)));
        if (machine != null) {
            sb.append("machine: ").append(machine).append('\n');
        }
        for (String n : names) {
            String what = BASELINES.get(n);
            if (what != null) {
                sb.append(String.format(Locale.ROOT, "  %-14s %s%n", column(n), what));
            }
        }
        sb.append(String.format(Locale.ROOT, "%-24s %3s", "size", "thr"));
        for (String n : names) {
            sb.append(String.format(Locale.ROOT, " %14s", column(n)));
        }
        sb.append('\n');
        Map<String, Map<String, Double>> rows = new TreeMap<>();
        Map<String, long[]> keys = new LinkedHashMap<>();
        for (Case c : cases) {
            String k = String.format(Locale.ROOT, "%020d-%04d", c.bytes, c.threads);
            rows.computeIfAbsent(k, x -> new LinkedHashMap<>()).put(c.name, c.gbps);
            keys.put(k, new long[] {c.bytes, c.threads});
        }
        for (var e : rows.entrySet()) {
            long[] k = keys.get(e.getKey());
            if (e.getValue().keySet().stream().noneMatch(names::contains)) {
                continue;
            }
            String where = llc > 0 && k[0] <= llc ? "in cache" : "out of cache";
            sb.append(String.format(Locale.ROOT, "%-24s %3d", human(k[0]) + " (" + where + ")", k[1]));
            for (String n : names) {
                Double v = e.getValue().get(n);
                sb.append(v == null ? String.format(Locale.ROOT, " %14s", "-") : String.format(Locale.ROOT, " %14.2f", v));
            }
            sb.append('\n');
        }
        sb.append(String.format(Locale.ROOT, "%nratios (goal in brackets)%n"));
        for (Case c : cases) {
            if (!c.name.equals("native") || (llc > 0 && c.bytes <= llc)) {
                continue;
            }
            String at = String.format(Locale.ROOT, "%s, %d thread(s)", human(c.bytes), c.threads);
            ratio(sb, cases, "native / fill", at, c, "native", "memset", ">= 0.90");
            ratio(sb, cases, "native-d2c3 / fill", at, c, "native-d2c3", "memset", ">= 0.90");
            ratio(sb, cases, "native / jdk-random", at, c, "native", "jdk-random", ">= 20");
            ratio(sb, cases, "native / vector-xoshiro", at, c, "native", "vector-xoshiro", ">= 1.15");
            ratio(sb, cases, "native-verify / native", at, c, "native-verify", "native", ">= 0.90");
            ratio(sb, cases, "twin-vector / native", at, c, "twin-vector", "native", c.threads == 1 ? ">= 0.50" : ">= 0.40");
            ratio(sb, cases, "twin-scalar / native", at, c, "twin-scalar", "native", "-");
        }
        Case ffm = find(cases, "native-ffm-call", FfmOverheadBenchmark.SIZE, 1);
        Case rust = find(cases, "native-in-rust", FfmOverheadBenchmark.SIZE, 1);
        if (ffm != null && rust != null) {
            double overhead = (rust.gbps / ffm.gbps - 1) * 100;
            sb.append(String.format(Locale.ROOT, "  %-26s %-24s %8.1f %%   [<= 10 %%]  %-6s (%.2f GB/s through Java, %.2f GB/s inside Rust; in cache)%n",
                    "FFM overhead at 64 KiB", "1 thread", overhead, ffm.gbps, rust.gbps, verdict(overhead, "<= 10")));
        }
        long missed = sb.toString().lines().filter(l -> l.contains(" " + MISSED + " ") || l.endsWith(" " + MISSED)).count();
        sb.append(missed == 0 ? "goals: all met\n"
                : String.format(Locale.ROOT, "goals: %d MISSED (marked above)%n", missed));
        return sb.toString();
    }

    /** How a goal reads when the ratio falls short of it. */
    static final String MISSED = "MISSED";

    /**
     * {@code ok} when {@code value} meets {@code goal} ({@code ">= 0.90"}, {@code "<= 10"}),
     * {@link #MISSED} when not, empty without a goal ({@code "-"}).
     */
    static String verdict(double value, String goal) {
        String g = goal.trim();
        if (g.length() < 3 || !(g.startsWith(">=") || g.startsWith("<="))) {
            return "";
        }
        double bound = Double.parseDouble(g.substring(2).trim());
        boolean met = g.startsWith(">=") ? value >= bound : value <= bound;
        return met ? "ok" : MISSED;
    }

    static void ratio(StringBuilder sb, List<Case> cases, String label, String at, Case ref, String a, String b, String goal) {
        Case x = find(cases, a, ref.bytes, ref.threads);
        Case y = find(cases, b, ref.bytes, ref.threads);
        if (x != null && y != null && y.gbps > 0) {
            double r = x.gbps / y.gbps;
            String v = verdict(r, goal);
            sb.append(String.format(Locale.ROOT, "  %-26s %-24s %8.2f     [%s]%s%n", label, at, r, goal,
                    v.isEmpty() ? "" : "  " + v));
        }
    }

    /**
     * What the baseline columns are, by case name: the text says what each one measures (the JSON
     * keeps the case names). {@code MemorySegment.fill} is not the memory's bandwidth limit: its
     * ordinary stores read each line before writing it, which the native core's non-temporal stores
     * skip (docs/PERFORMANCE.md).
     */
    static final Map<String, String> BASELINES = Map.of(
            "native", "dgen4j's native core: non-temporal stores for fills of 4 MiB or more (no read of each line)",
            "memset", "MemorySegment.fill (case memset): the JDK's ordinary stores: a baseline, not the"
                    + " memory's bandwidth limit");

    /** A case's column heading in the table: {@code fill} for {@code memset}, else its name. */
    static String column(String name) {
        return name.equals("memset") ? "fill" : name;
    }

    /**
     * The machine in one line: the CPU model from {@code /proc/cpuinfo}, the CPUs this process may use
     * of those online, the generation kernel chosen and the CPU features the native core reports.
     */
    static String machine() {
        String model = SystemInfo.cpuModel();
        int online;
        try {
            online = SystemInfo.parseCpuList(Files.readString(Path.of("/sys/devices/system/cpu/online")).trim()).size();
        } catch (IOException | IllegalArgumentException e) {
            online = Runtime.getRuntime().availableProcessors();
        }
        SystemInfo info = SystemInfo.current();
        return String.format(Locale.ROOT, "%s, %d of %d online CPUs usable, kernel %s; features %s", model,
                info.usableCpus(), online, info.dispatch(),
                info.cpuFeatures().isEmpty() ? "- (" + info.implementation() + ", no native core)"
                        : String.join(" ", info.cpuFeatures()));
    }

    static Case find(List<Case> cases, String name, long bytes, int threads) {
        return cases.stream().filter(c -> c.name.equals(name) && c.bytes == bytes && c.threads == threads).findFirst().orElse(null);
    }

    /** A size for the summary: {@code 64 KiB}, {@code 1 GiB}, {@code 35.75 MiB}. */
    static String human(long bytes) {
        return ByteSize.roundedUp(bytes);
    }
}
