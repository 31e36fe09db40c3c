package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.S3ProxyExtension;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Saves and loads over 1,000 endpoints, every backend, in a CLI process with the {@code dgen4j}
 * launcher's JVM options (its 96 MiB heap): 1,000 listeners of a {@link FaultProxy} on distinct
 * ports of 127.0.0.1, all forwarding to one s3proxy, named by an endpoint file. The load reads 1,024
 * ranges of 32 KiB, so that every endpoint takes requests (and has its transport made); the process must end
 * with exit 0, the object's bytes verified, no trace on the console, and a start-up (the CPU time
 * before its first request) no more than 2 s above a one-endpoint process's. And the heap an endpoint
 * in use takes, for each backend.
 */
class ThousandEndpointsCliTest {
    private static final int ENDPOINTS = 1000;
    private static final long SIZE = 32L << 20;
    /** The launcher's JVM options (see the {@code dgen4j} script): the heap is the bound under test. */
    private static final List<String> LAUNCHER_JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:CompileThresholdScaling=8", "-XX:MetaspaceSize=64m", "-XX:+UnlockDiagnosticVMOptions",
            "-XX:-BytecodeVerificationRemote", "-Xms8m", "-Xmx96m", "-XX:-UsePerfData",
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");
    /** What the 1,000 endpoints may add to the start-up: 2 s, and a margin for 2 CPUs shared with other work. */
    private static final Duration STARTUP_BOUND = Duration.ofSeconds(2);
    /**
     * The most heap one endpoint in use may take, per backend (docs/ENDPOINTS.md gives the figures
     * measured: aws ~27 KiB, minio ~14, crt ~57 with a native client per port of one host): with it,
     * the launcher's 96 MiB hold 1,000 endpoints in use beside the rest of a save or load.
     */
    private static final Map<String, Double> HEAP_PER_ENDPOINT_KIB = Map.of("aws", 48.0, "minio", 32.0, "crt", 80.0);
    /** The CPU time a process takes is steady; its wall time depends on what else the 2 shared CPUs run. */
    private static final Duration CPU_MARGIN = Duration.ofSeconds(1);
    private static final Duration WALL_MARGIN = Duration.ofSeconds(10);
    /**
     * The longest a process may take: the crt backend's load makes a native client per port of
     * 127.0.0.1 (its client keeps one connection pool per host name), ~0.1 s each on shared CPUs.
     */
    private static final Duration LIMIT = Duration.ofSeconds(600);
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    static Path dir;

    private static FaultProxy proxy;
    private static Path endpointFile;

    @BeforeAll
    static void thousandListeners() throws IOException {
        proxy = FaultProxy.start(Collections.nCopies(ENDPOINTS, S3.endpoint()));
        List<URI> eps = proxy.endpoints();
        assertEquals(ENDPOINTS, eps.stream().distinct().count());
        assertTrue(eps.stream().allMatch(u -> u.getHost().equals("127.0.0.1")), eps.toString());
        endpointFile = dir.resolve("gateways");
        Files.writeString(endpointFile, eps.stream().map(URI::toString).collect(Collectors.joining("\n", "# 1000 "
                + "listeners of one s3proxy\n", "\n")));
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /**
     * What a child process did: exit code, outputs, how long after its start the proxy saw its first
     * request and the CPU time it had used by then (its start-up: the wall time is the shared CPUs'
     * as much as ours), its whole wall time and the listeners its requests reached.
     */
    record Proc(int code, String out, String err, long firstRequestMillis, long startupCpuMillis, long wallMillis,
                List<Integer> listeners) {}

    @ParameterizedTest
    @ValueSource(strings = {"aws", "crt", "minio"})
    void savesAndLoadsOverAThousandEndpointsWithinTheLaunchersHeap(String backend) throws Exception {
        String key = "thousand/" + backend + ".bin";
        String target = "s3://" + S3.bucket() + "/" + key;
        // one endpoint alone: the baseline of the start-up
        Map<String, String> one = env(backend);
        one.put("AWS_ENDPOINT_URL", proxy.endpoint(0).toString());
        String[] saveArgs = {"save", target, "--size", SIZE + "", "--chunk", "8MiB", "--seed", "19"};
        Proc save1 = cli(one, saveArgs);
        assertEquals(0, save1.code(), save1.err());

        Map<String, String> set = env(backend);
        set.put("S3_ENDPOINT_FILE", endpointFile.toString());
        Proc save = cli(set, saveArgs);
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains("saved 32.00 MiB (33554432 bytes) to " + target), save.out());
        assertTrue(save.out().contains("at 1000 endpoints (round_robin)"), save.out());
        assertEquals(SIZE, Files.size(S3.dataDir().resolve(S3.bucket()).resolve(key)), "the stored object's size");
        quiet(save);

        // 1,024 ranged GETs of 32 KiB: every endpoint of the set takes at least one
        String[] loadArgs = {"load", target, "--verify", "--chunk", "32KiB", "--readers", "4", "--buffers", "6"};
        Proc load1 = cli(one, loadArgs);
        assertEquals(0, load1.code(), load1.err());
        Proc load = cli(set, loadArgs);
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("loaded 32.00 MiB (33554432 bytes) from " + target + ": every byte verified"),
                load.out());
        quiet(load);
        assertEquals(ENDPOINTS, load.listeners().stream().distinct().count(), "endpoints that took a request");
        assertTrue(load.out().contains("  endpoints     1000\n"), load.out());

        for (Proc p : List.of(save1, save, load1, load)) {
            assertTrue(p.firstRequestMillis() > 0 && p.startupCpuMillis() > 0, "no first request, or no CPU time: " + p);
        }
        System.out.printf(Locale.ROOT, "%s over %d endpoints: first request after %d ms, %d ms CPU (save; one "
                + "endpoint %d ms, %d ms CPU), %d ms, %d ms CPU (load; one endpoint %d ms, %d ms CPU); wall %d ms save, "
                + "%d ms load (one endpoint: %d, %d)%n", backend, ENDPOINTS, save.firstRequestMillis(),
                save.startupCpuMillis(), save1.firstRequestMillis(), save1.startupCpuMillis(), load.firstRequestMillis(),
                load.startupCpuMillis(), load1.firstRequestMillis(), load1.startupCpuMillis(), save.wallMillis(),
                load.wallMillis(), save1.wallMillis(), load1.wallMillis());
        // the CPU the set adds before the first request: what its start-up costs on an idle machine
        for (Proc[] pair : List.of(new Proc[] {save1, save}, new Proc[] {load1, load})) {
            long cpu = pair[1].startupCpuMillis() - pair[0].startupCpuMillis();
            assertTrue(cpu <= STARTUP_BOUND.plus(CPU_MARGIN).toMillis(), backend + ": 1,000 endpoints added " + cpu
                    + " ms of CPU to the start-up");
            long wall = pair[1].firstRequestMillis() - pair[0].firstRequestMillis();
            assertTrue(wall <= STARTUP_BOUND.plus(WALL_MARGIN).toMillis(), backend + ": 1,000 endpoints added " + wall
                    + " ms to the start-up");
        }
    }

    /**
     * The heap each endpoint in use takes, measured in a JVM of its own with the launcher's options
     * ({@link EndpointHeapProbe}: every endpoint given a ranged GET, the heap after full GCs while
     * the pool is open). The crt backend makes a native client per port of one host (see
     * {@code CrtTransportFactory.group}), so it is measured over fewer endpoints.
     */
    @ParameterizedTest
    @ValueSource(strings = {"aws", "crt", "minio"})
    void heapPerEndpointInUseIsBounded(String backend) throws Exception {
        int n = backend.equals("crt") ? 250 : ENDPOINTS;
        String key = "heap/" + backend + ".bin";
        Map<String, String> one = env(backend);
        one.put("AWS_ENDPOINT_URL", S3.endpoint().toString());
        CliRun put = CliRun.of(one, "save", "s3://" + S3.bucket() + "/" + key, "--size", (n * 4096L) + "", "--chunk",
                "8MiB");
        assertEquals(0, put.code(), put.err());
        Path list = Files.writeString(dir.resolve("heap-" + backend), proxy.endpoints().subList(0, n).stream()
                .map(URI::toString).collect(Collectors.joining("\n")));
        Proc p = java(EndpointHeapProbe.class.getName(), env(backend), backend, list.toString(),
                "s3://" + S3.bucket() + "/" + key);
        assertEquals(0, p.code(), p.err());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("heap-per-endpoint-kib (\\d+\\.\\d) endpoints "
                + n + "\n").matcher(p.out());
        assertTrue(m.find(), p.out());
        double kib = Double.parseDouble(m.group(1));
        System.out.printf(Locale.ROOT, "%s: %.1f KiB of heap per endpoint in use (%d endpoints)%n", backend, kib, n);
        assertTrue(kib > 0 && kib <= HEAP_PER_ENDPOINT_KIB.get(backend), backend + " takes " + kib
                + " KiB per endpoint in use");
    }

    /** No trace, no out-of-memory on the console. */
    private static void quiet(Proc p) {
        assertFalse(p.err().contains("\tat ") || p.err().contains("Exception") || p.err().contains("out of memory"),
                p.err());
    }

    /** The credentials and backend, and nothing of the test JVM's own S3 environment. */
    private static Map<String, String> env(String backend) {
        Map<String, String> e = new HashMap<>();
        e.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        e.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        e.put("AWS_REGION", "us-east-1");
        e.put("DGEN4J_S3_BACKEND", backend);
        return e;
    }

    /** Runs the CLI (this test's class path) in a JVM with the launcher's options, in an empty directory. */
    private static Proc cli(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return java(Main.class.getName(), env, args);
    }

    /** Runs {@code main} of this test's class path in a JVM with the launcher's options, in an empty directory. */
    private static Proc java(String main, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(JAVA);
        cmd.addAll(LAUNCHER_JVM);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main));
        cmd.addAll(List.of(args));
        Path work = Files.createTempDirectory(dir, "run");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3_") || k.startsWith("DGEN4J_"));
        pb.environment().putAll(env);
        pb.redirectOutput(work.resolve("out").toFile()).redirectError(work.resolve("err").toFile());
        int before = proxy.seen().size();
        long start = System.nanoTime();
        Process p = pb.start();
        p.getOutputStream().close();
        long first = -1;
        long cpu = -1;
        if (proxy.await(FaultProxy.Match.any(), before + 1, Duration.ofSeconds(120))) {
            first = (System.nanoTime() - start) / 1_000_000;
            cpu = p.toHandle().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L);
        }
        if (!p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("no exit within " + LIMIT.toSeconds() + " s: " + String.join(" ", args) + "\n"
                    + Files.readString(work.resolve("err")));
        }
        long wall = (System.nanoTime() - start) / 1_000_000;
        List<Integer> listeners = proxy.seen().stream().skip(before).map(FaultProxy.Seen::listener).toList();
        return new Proc(p.exitValue(), Files.readString(work.resolve("out")), Files.readString(work.resolve("err")),
                first, cpu, wall, listeners);
    }
}
