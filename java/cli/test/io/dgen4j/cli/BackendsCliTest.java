package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.cli.s3.S3Backends;
import io.dgen4j.cli.s3.S3Endpoint;
import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code dgen4j backends} and quickstart's part 2 (object storage), in process, against s3proxy. */
class BackendsCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path home;

    private static CliRun run(Map<String, String> env, String... args) {
        return CliRun.hiding(S3ProxyExtension.SECRET_KEY, env, args);
    }

    /** The extension's server as the configured endpoint. */
    private Map<String, String> configured() {
        return S3.cliEnv(home);
    }

    /** No endpoint configured, and the s3proxy jar named as ./dgen4j names it. */
    private Map<String, String> unconfigured(String jar) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put(S3Endpoint.JAR_VAR, jar);
        return env;
    }

    private static List<String> s3Backends() {
        return StorageProviders.installed().stream().filter(p -> p.schemes().contains(S3Location.SCHEME))
                .map(StorageProvider::name).toList();
    }

    private List<Path> filesIn(String bucket) throws IOException {
        try (Stream<Path> s = Files.walk(S3.dataDir().resolve(bucket))) {
            return s.filter(Files::isRegularFile).toList();
        }
    }

    @Test
    void backendsJsonComparesEveryInstalledBackendAndDeletesItsObjects() throws Exception {
        Path png = home.resolve("backends.png");
        CliRun r = run(configured(), "backends", "s3://" + S3.bucket() + "/cmp", "--size", "11MiB", "--chunk", "5MiB",
                "--writers", "2", "--buffers", "3", "--seed", "3", "--no-progress", "--json", "--plot", png.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err(), "nothing on stderr: the endpoint is configured");
        assertEquals(1, r.out().lines().count(), "one JSON document on stdout: " + r.out());
        Map<String, Object> m = JsonRead.object(r.out());
        assertEquals(S3.endpoint().toString(), m.get("endpoint"));
        assertEquals(false, m.get("localS3proxy"));
        assertEquals("s3://" + S3.bucket() + "/cmp/", m.get("prefix"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) m.get("backends");
        List<String> installed = s3Backends();
        assertFalse(installed.isEmpty());
        assertEquals(installed, rows.stream().map(x -> x.get("backend")).toList(), r.out());
        boolean oneIsBest = false;
        for (Map<String, Object> row : rows) {
            assertEquals(true, row.get("ok"), row.toString());
            assertEquals(true, row.get("verified"), row.toString());
            double ratio = ((Number) row.get("ratioToBest")).doubleValue();
            assertTrue(ratio > 0 && ratio <= 1.0, row.toString());
            oneIsBest |= ratio == 1.0;
            assertTrue(((Number) row.get("cpuRatioToBest")).doubleValue() >= 1.0, row.toString());
            assertTrue(((Number) row.get("cpuSecondsPerGiB")).doubleValue() > 0, row.toString());
            // a first save of the same size ran before the measured one, its CPU measured apart (the two may be
            // equal: CPU time comes in 10 ms ticks, and an 11 MiB save takes a few of them)
            assertTrue(((Number) row.get("firstSaveCpuSecondsPerGiB")).doubleValue() > 0, row.toString());
            assertTrue(((Number) row.get("saveMBps")).doubleValue() > 0, row.toString());
            assertTrue(((Number) row.get("peakRssBytes")).longValue() > 0, row.toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> save = (Map<String, Object>) row.get("save");
            assertEquals(11L << 20, ((Number) save.get("totalBytes")).longValue());
            assertEquals(S3Backends.COPIES_PER_BYTE.get((String) row.get("backend")),
                    row.get("copiesPerByte") == null ? null : ((Number) row.get("copiesPerByte")).intValue());
        }
        assertTrue(oneIsBest, "the best backend has ratio 1: " + r.out());
        assertTrue(installed.contains((String) m.get("best")), r.out());
        assertEquals(List.of(), filesIn(S3.bucket()), "every object written (and the warm-up ones) is deleted");
        assertEquals(png.toString(), m.get("plot"), r.out());
        byte[] head = Arrays.copyOf(Files.readAllBytes(png), 8);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head, "a PNG");
        try (Stream<Path> s = Files.list(home)) {
            assertEquals(List.of(png), s.toList(), "no temporary file of the plot is left");
        }
    }

    @Test
    void backendsRoundsInterleaveAndReportMediansRangesAndTies() throws Exception {
        List<String> installed = s3Backends();
        Path png = home.resolve("rounds.png");
        CliRun r;
        List<String> order = new java.util.ArrayList<>();
        try (FaultProxy proxy = FaultProxy.start(S3.endpoint())) {
            Map<String, String> env = configured();
            env.put("AWS_ENDPOINT_URL", proxy.endpoint().toString());
            r = run(env, "backends", "s3://" + S3.bucket() + "/rounds", "--size", "6MiB", "--chunk", "5MiB",
                    "--rounds", "2", "--json", "--plot", png.toString());
            // the measured uploads, in the order they reached the store (warm-ups and loads left out)
            for (FaultProxy.Seen seen : proxy.seen()) {
                Matcher name = Pattern.compile("/rounds/(\\w+)\\.bin$").matcher(seen.path());
                if (!seen.method().equals("GET") && !seen.method().equals("DELETE") && !seen.method().equals("HEAD")
                        && name.find() && (order.isEmpty() || !order.getLast().equals(name.group(1)))) {
                    order.add(name.group(1));
                }
            }
        }
        assertEquals(0, r.code(), r.err());
        List<String> expected = new java.util.ArrayList<>(installed);
        expected.addAll(installed);
        assertEquals(expected, order, "interleaved: round 1 of every backend, then round 2");
        Map<String, Object> m = JsonRead.object(r.out());
        assertEquals(2L, ((Number) m.get("rounds")).longValue());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) m.get("backends");
        double bestMin = 0;
        for (Map<String, Object> row : rows) {
            assertEquals(2L, ((Number) row.get("rounds")).longValue(), row.toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> mbps = (Map<String, Object>) ((Map<String, Object>) row.get("spread")).get("saveMBps");
            double median = ((Number) mbps.get("median")).doubleValue();
            double min = ((Number) mbps.get("min")).doubleValue();
            double max = ((Number) mbps.get("max")).doubleValue();
            assertTrue(0 < min && min <= median && median <= max, mbps.toString());
            assertEquals(median, ((Number) row.get("saveMBps")).doubleValue(), 1e-9, "the old key holds the median");
            if (row.get("backend").equals(m.get("best"))) {
                bestMin = min;
                assertEquals(1.0, ((Number) row.get("ratioToBest")).doubleValue(), 1e-12);
                assertEquals(false, row.get("tiesBest"));
            }
        }
        @SuppressWarnings("unchecked")
        List<String> tied = (List<String>) m.get("tiedWithBest");
        for (Map<String, Object> row : rows) {
            @SuppressWarnings("unchecked")
            Map<String, Object> mbps = (Map<String, Object>) ((Map<String, Object>) row.get("spread")).get("saveMBps");
            boolean overlaps = !row.get("backend").equals(m.get("best"))
                    && ((Number) mbps.get("max")).doubleValue() >= bestMin;
            assertEquals(overlaps, row.get("tiesBest"), row.toString());
            assertEquals(overlaps, tied.contains((String) row.get("backend")), r.out());
        }
        assertTrue(Files.size(png) > 5_000, "plot drawn");
        assertEquals(List.of(), filesIn(S3.bucket()).stream().filter(f -> f.toString().contains("/rounds/")).toList(),
                "the objects of every round are deleted");

        // the text table: median (min-max) per figure, and what a tie is in its footer
        String first = installed.get(0);
        CliRun text = run(configured(), "backends", "s3://" + S3.bucket() + "/rounds", "--size", "6MiB", "--chunk",
                "5MiB", "--rounds", "2", "--no-progress");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains(", 2 rounds"), text.out());
        assertTrue(Pattern.compile("(?m)^" + first + " +\\d+\\.\\d\\d \\(\\d+\\.\\d\\d-\\d+\\.\\d\\d\\) +\\d+\\.\\d "
                + "\\(\\d+\\.\\d-\\d+\\.\\d\\)").matcher(text.out()).find(), text.out());
        assertTrue(text.out().contains("2 rounds, interleaved (round 1 of every backend, then round 2, ...): each "
                + "figure is the median (min-max) of the rounds; "), text.out());
        assertTrue(text.out().contains(" tie\n") == text.out().contains("tie: a backend whose MB/s range overlaps "
                + "the fastest's"), "a tie in the table is explained in the footer: " + text.out());
    }

    @Test
    void backendsTableKeepsTheObjectsWithKeep() throws Exception {
        String first = s3Backends().get(0);
        CliRun r = run(configured(), "backends", "s3://" + S3.bucket() + "/kept/", "--size", "6MiB", "--chunk", "5MiB",
                "--backends", first, "--keep", "--no-warmup", "--no-progress");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("backend ") && r.out().contains("vs best"), r.out());
        assertTrue(Pattern.compile("(?m)^" + first + " .* yes +1\\.00$").matcher(r.out()).find(), r.out());
        assertTrue(r.out().contains("objects kept under s3://" + S3.bucket() + "/kept/"), r.out());
        assertTrue(r.out().contains("1st save: the same, the measured save being the first (--no-warmup)"), r.out());
        assertTrue(Files.exists(S3.dataDir().resolve(S3.bucket()).resolve("kept").resolve(first + ".bin")),
                filesIn(S3.bucket()).toString());
        CliRun unknown = run(configured(), "backends", "s3://" + S3.bucket() + "/x", "--backends", "nope");
        assertEquals(2, unknown.code(), unknown.err());
        assertTrue(unknown.err().contains("--backends: no S3 backend called 'nope' is installed"), unknown.err());
    }

    @Test
    void withoutAnEndpointOrTheJarOneLineSaysHowToGetIt() {
        Path missing = home.resolve("no-such-s3proxy.jar");
        CliRun backends = run(unconfigured(missing.toString()), "backends", "--size", "6MiB", "--no-progress");
        assertEquals(2, backends.code(), backends.err());
        assertEquals(1, backends.err().lines().count(), backends.err());
        assertTrue(backends.err().startsWith("dgen4j: no S3 endpoint is configured (AWS_ENDPOINT_URL, or .env) and the "
                + "local s3proxy jar is missing (" + missing + "): build it with ./build -DskipTests -pl java/cli -am "
                + "package"), backends.err());
        // quickstart does not need S3: part 1 runs, part 2 is skipped with that line, the exit status is 0
        CliRun quick = run(unconfigured(missing.toString()), "quickstart", "--dir", home.toString(), "--size", "8MiB",
                "--chunk", "4MiB", "--no-progress", "--json");
        assertEquals(0, quick.code(), quick.err());
        assertTrue(quick.err().contains("dgen4j: quickstart part 2 (object storage) skipped: no S3 endpoint is "
                + "configured"), quick.err());
        @SuppressWarnings("unchecked")
        Map<String, Object> s3 = (Map<String, Object>) JsonRead.object(quick.out()).get("s3");
        assertTrue(((String) s3.get("skipped")).contains("s3proxy jar is missing"), quick.out());
        CliRun none = run(unconfigured(missing.toString()), "quickstart", "--dir", home.toString(), "--size", "8MiB",
                "--chunk", "4MiB", "--no-progress", "--no-s3", "--json");
        assertEquals(0, none.code(), none.err());
        assertEquals("", none.err());
        assertNull(JsonRead.object(none.out()).get("s3"), none.out());
    }

    @Test
    void quickstartPartTwoStartsALocalS3ProxyAndStopsIt() throws Exception {
        String jar = System.getProperty(S3ProxyExtension.JAR_PROPERTY);
        assertNotNull(jar, "surefire names the s3proxy jar in " + S3ProxyExtension.JAR_PROPERTY);
        Path dir = Files.createDirectory(home.resolve("qs"));
        CliRun r = run(unconfigured(jar), "quickstart", "--dir", dir.toString(), "--size", "12MiB", "--chunk", "4MiB",
                "--no-progress", "--json");
        assertEquals(0, r.code(), r.err());
        Matcher started = Pattern.compile("no S3 endpoint configured: started a local s3proxy on "
                + "(http://127\\.0\\.0\\.1:\\d+) \\(filesystem in (\\S+)\\)").matcher(r.err());
        assertTrue(started.find(), r.err());
        assertFalse(Files.exists(Path.of(started.group(2))), "the local s3proxy's files are removed");
        Map<String, Object> m = JsonRead.object(r.out());
        @SuppressWarnings("unchecked")
        Map<String, Object> s3 = (Map<String, Object>) m.get("s3");
        assertEquals(true, s3.get("localS3proxy"), r.out());
        assertEquals(started.group(1), s3.get("endpoint"));
        assertEquals(12L << 20, ((Number) s3.get("sizeBytes")).longValue());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) s3.get("backends");
        assertEquals(s3Backends(), rows.stream().map(x -> x.get("backend")).toList(), r.out());
        for (Map<String, Object> row : rows) {
            assertEquals(true, row.get("verified"), row.toString());
        }
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(), s.toList(), "quickstart left files");
        }
        // the text summary has part 2's table
        CliRun text = run(unconfigured(jar), "quickstart", "--dir", dir.toString(), "--size", "8MiB", "--chunk", "4MiB",
                "--no-progress");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().contains("Part 2, object storage: 8.00 MiB per backend to http://127.0.0.1:"), text.out());
        assertTrue(text.out().contains("(a local s3proxy started for this run)"), text.out());
    }
}
