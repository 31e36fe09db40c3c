package io.dgen4j.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
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
 * {@code {"name","bytes","threads","gbps"}} instead.
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

    private static final JsonFactory JSON = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    /** One measured case. */
    record Case(String name, long bytes, int threads, double gbps) {}

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        boolean json = false;
        String sizes = null;
        String threads = "1,2";
        Integer node = null;
        int warmup = -1;
        int iterations = -1;
        int time = -1;
        int forks = 1;
        String only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--json" -> json = true;
                case "--sizes" -> sizes = args[++i];
                case "--threads" -> threads = args[++i];
                case "--numa-node" -> node = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--time" -> time = Integer.parseInt(args[++i]);
                case "--forks" -> forks = Integer.parseInt(args[++i]);
                case "--cases" -> only = args[++i];
                case "-h", "--help" -> {
                    System.out.println("usage: dgen4j bench [--quick] [--json] [--sizes 64KiB,32MiB,1GiB] [--threads 1,2]"
                            + " [--numa-node N] [--warmup N] [--iterations N] [--time SECONDS] [--forks N]"
                            + " [--cases " + String.join(",", NAMES.values()) + "]");
                    return;
                }
                default -> {
                    System.err.println("dgen4j bench: unknown option " + args[i] + " (see --help)");
                    System.exit(2);
                }
            }
        }
        List<String> sizeList = new ArrayList<>();
        for (String s : (sizes != null ? sizes : quick ? "1GiB" : "64KiB,32MiB,1GiB").split(",")) {
            sizeList.add(Long.toString(parseSize(s.trim())));
        }
        if (warmup < 0) {
            warmup = quick ? 1 : 2;  // --quick: 1 warmup + 1 measurement of 1 s per case, to stay under 2 minutes
        }
        if (iterations < 0) {
            iterations = quick ? 1 : 5;
        }
        if (time < 0) {
            time = 1;
        }
        List<String> jvm = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
                "--add-modules=jdk.incubator.vector", "-Xss4m", "-XX:+UseParallelGC"));
        if (node != null) {
            jvm.add("-D" + FillBenchmark.PROP_NODE + "=" + node);
        }
        String methods = "";
        if (only != null) {
            List<String> wanted = new ArrayList<>();
            for (String c : only.split(",")) {
                String method = NAMES.entrySet().stream().filter(e -> e.getValue().equals(c.trim())).map(Map.Entry::getKey)
                        .findFirst().orElse(null);
                if (method == null) {
                    System.err.println("dgen4j bench: unknown case " + c + " (cases: " + String.join(",", NAMES.values()) + ")");
                    System.exit(2);
                }
                wanted.add(method);
            }
            methods = "(" + String.join("|", wanted) + ")$";
        }
        ChainedOptionsBuilder ob = new OptionsBuilder()
                .include(FillBenchmark.class.getName() + "\\." + methods)
                .param("bytes", sizeList.toArray(String[]::new))
                .param("threads", threads.split(","))
                .warmupIterations(warmup).warmupTime(TimeValue.seconds(time))
                .measurementIterations(iterations).measurementTime(TimeValue.seconds(time))
                .forks(forks)
                .jvmArgs(jvm.toArray(String[]::new))
                .shouldFailOnError(true);
        if (!quick && only == null && sizeList.contains(Long.toString(64 << 10))) {
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
        cases.sort((a, b) -> a.bytes != b.bytes ? Long.compare(a.bytes, b.bytes)
                : a.threads != b.threads ? Integer.compare(a.threads, b.threads)
                : Integer.compare(order(a.name), order(b.name)));
        if (json) {
            System.out.println(json(cases));
        } else {
            System.out.print(summary(cases, node));
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
     * by jackson-core: names escaped, bytes exact, GB/s rounded to 3 decimals, a non-finite rate
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
        StringWriter sw = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(sw)) {
            g.writeStartObject();
            g.writeStringField("name", c.name);
            g.writeNumberField("bytes", c.bytes);
            g.writeNumberField("threads", c.threads);
            g.writeFieldName("gbps");
            if (Double.isFinite(c.gbps)) {
                g.writeNumber(Math.round(c.gbps * 1000.0) / 1000.0);
            } else {
                g.writeNull();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing the benchmark JSON failed: " + e.getMessage(), e);
        }
        return sw.toString();
    }

    /** The last-level cache size from sysfs (0 when unknown). */
    static long llcBytes() {
        long best = 0;
        for (int i = 0; i < 8; i++) {
            Path p = Path.of("/sys/devices/system/cpu/cpu0/cache/index" + i + "/size");
            try {
                if (Files.exists(p)) {
                    best = Math.max(best, parseSize(Files.readString(p).trim()));
                }
            } catch (IOException | IllegalArgumentException e) {
                // unknown: keep what we have
            }
        }
        return best;
    }

    static String summary(List<Case> cases, Integer node) {
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
        sb.append(String.format(Locale.ROOT, "%-24s %3s", "size", "thr"));
        for (String n : names) {
            sb.append(String.format(Locale.ROOT, " %14s", n));
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
            ratio(sb, cases, "native / memset", at, c, "native", "memset", ">= 0.90");
            ratio(sb, cases, "native-d2c3 / memset", at, c, "native-d2c3", "memset", ">= 0.90");
            ratio(sb, cases, "native / jdk-random", at, c, "native", "jdk-random", ">= 20");
            ratio(sb, cases, "native / vector-xoshiro", at, c, "native", "vector-xoshiro", ">= 1.15");
            ratio(sb, cases, "native-verify / native", at, c, "native-verify", "native", ">= 0.90");
            ratio(sb, cases, "twin-vector / native", at, c, "twin-vector", "native", c.threads == 1 ? ">= 0.50" : ">= 0.40");
            ratio(sb, cases, "twin-scalar / native", at, c, "twin-scalar", "native", "-");
        }
        Case ffm = find(cases, "native-ffm-call", FfmOverheadBenchmark.SIZE, 1);
        Case rust = find(cases, "native-in-rust", FfmOverheadBenchmark.SIZE, 1);
        if (ffm != null && rust != null) {
            sb.append(String.format(Locale.ROOT, "  %-26s %-24s %8.1f %%   [<= 10 %%]  (%.2f GB/s through Java, %.2f GB/s inside Rust; in cache)%n",
                    "FFM overhead at 64 KiB", "1 thread", (rust.gbps / ffm.gbps - 1) * 100, ffm.gbps, rust.gbps));
        }
        return sb.toString();
    }

    static void ratio(StringBuilder sb, List<Case> cases, String label, String at, Case ref, String a, String b, String goal) {
        Case x = find(cases, a, ref.bytes, ref.threads);
        Case y = find(cases, b, ref.bytes, ref.threads);
        if (x != null && y != null && y.gbps > 0) {
            sb.append(String.format(Locale.ROOT, "  %-26s %-24s %8.2f     [%s]%n", label, at, x.gbps / y.gbps, goal));
        }
    }

    static Case find(List<Case> cases, String name, long bytes, int threads) {
        return cases.stream().filter(c -> c.name.equals(name) && c.bytes == bytes && c.threads == threads).findFirst().orElse(null);
    }

    static String human(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    /** Parses 65536, 64KiB, 64K, 32MiB, 1GiB, 8192K (sysfs cache sizes). */
    static long parseSize(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        long mult = 1;
        if (t.endsWith("K")) {
            mult = 1L << 10;
        } else if (t.endsWith("M")) {
            mult = 1L << 20;
        } else if (t.endsWith("G")) {
            mult = 1L << 30;
        }
        if (mult > 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t.trim()) * mult;
    }
}
