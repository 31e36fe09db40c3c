package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.Storage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * The endpoint set end to end through the CLI ({@code dgen4j save/load/endpoints}, in process, the aws
 * backend) over three real s3proxy gateways of one store (one basedir): round-robin and a sequential
 * caller under least-connections spread the parts evenly, one gateway killed mid-save is failed over
 * (exit 0, a verified load, the table shows it), every gateway killed fails within seconds naming each
 * one and the upload left open is aborted once one is back, and {@code --pin-upload} keeps an object's
 * parts on one gateway. Objects are counted in 5 MiB parts from each endpoint's bytes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EndpointsFailoverCliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension(3);
    private static final long PART = 5L << 20;
    private static S3AsyncClient raw;

    @TempDir
    Path home;

    @BeforeAll
    static void client() {
        // a plain SDK client, independent of the backend, for the test's own checks
        raw = S3AsyncClient.builder().endpointOverride(S3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        S3ProxyExtension.ACCESS_KEY, S3ProxyExtension.SECRET_KEY))).build();
    }

    @AfterAll
    static void closeClient() {
        raw.close();
    }

    /** Every gateway runs again for the next test. */
    @AfterEach
    void restartKilledGateways() throws Exception {
        S3.start();
    }

    private CliRun run(String... args) {
        return CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), args);
    }

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        env.put("AWS_REGION", "us-east-1");
        return env;
    }

    private static String endpoints() {
        return String.join(",", S3.endpoints().stream().map(URI::toString).toList());
    }

    private static String target(String key) {
        return "s3://" + S3.bucket() + "/" + key;
    }

    /** {@code save TARGET --size S --chunk 5MiB --backend aws --endpoints A,B,C --no-progress} and more. */
    private CliRun save(String key, long size, String... more) {
        return run(saveArgs(key, size, more));
    }

    private String[] saveArgs(String key, long size, String... more) {
        List<String> args = new ArrayList<>(List.of("save", target(key), "--size", Long.toString(size), "--chunk",
                "5MiB", "--seed", "7", "--backend", "aws", "--endpoints", endpoints(), "--no-progress"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private CliRun loadVerify(String key, String... more) {
        List<String> args = new ArrayList<>(List.of("load", target(key), "--verify", "--chunk", "5MiB", "--backend",
                "aws", "--endpoints", endpoints(), "--no-progress"));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> endpointFigures(Map<String, Object> json) {
        return (List<Map<String, Object>>) json.get("endpoints");
    }

    private static long number(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).longValue();
    }

    private static List<String> names(List<Map<String, Object>> figures) {
        return figures.stream().map(e -> (String) e.get("endpoint")).toList();
    }

    private static List<String> uris() {
        return S3.endpoints().stream().map(URI::toString).toList();
    }

    /** Parts per endpoint of a save whose parts are all {@link #PART} bytes but a shorter last one. */
    private static List<Long> parts(List<Map<String, Object>> figures) {
        return figures.stream().map(e -> (number(e, "bytes") + PART - 1) / PART).toList();
    }

    @Test
    @Order(1)
    void roundRobinSpreadsThePartsEvenlyOverThreeGateways() {
        CliRun save = save("rr.bin", 9 * PART, "--writers", "2", "--buffers", "3", "--balance", "round_robin", "--json");
        assertEquals(0, save.code(), save.err());
        Map<String, Object> m = JsonRead.object(save.out());
        assertTrue(((String) m.get("backend")).contains("3 endpoints (round_robin)"), save.out());
        List<Map<String, Object>> figures = endpointFigures(m);
        assertEquals(uris(), names(figures));
        assertEquals(List.of(3L, 3L, 3L), parts(figures), save.out());
        for (Map<String, Object> e : figures) {
            assertEquals(3 * PART, number(e, "bytes"), save.out());
            assertEquals(0L, number(e, "errors"), save.out());
            assertEquals(0L, number(e, "markedDown"), save.out());
            assertEquals("up", e.get("state"));
        }
        CliRun load = loadVerify("rr.bin", "--json");
        assertEquals(0, load.code(), load.err());
        Map<String, Object> l = JsonRead.object(load.out());
        assertEquals(Boolean.TRUE, l.get("verified"));
        // the ranged GETs are spread too: every gateway served some of the bytes, all of them once
        assertEquals(9 * PART, endpointFigures(l).stream().mapToLong(e -> number(e, "bytes")).sum(), load.out());
        for (Map<String, Object> e : endpointFigures(l)) {
            assertTrue(number(e, "bytes") > 0, load.out());
        }
        assertEquals(List.of(), uploads("rr.bin"));
    }

    @Test
    @Order(2)
    void leastConnectionsGivesASequentialCallerAThirdOfThePartsOnEachGateway() {
        // one writer: one part in flight at a time, so every choice sees three idle gateways (a tie)
        CliRun save = save("lc.bin", 12 * PART, "--writers", "1", "--buffers", "2", "--balance", "least_connections",
                "--json");
        assertEquals(0, save.code(), save.err());
        List<Long> parts = parts(endpointFigures(JsonRead.object(save.out())));
        assertEquals(12L, parts.stream().mapToLong(Long::longValue).sum(), save.out());
        for (long p : parts) {
            double share = p / 12.0;
            assertTrue(share >= 0.30 && share <= 0.37, "each gateway 30-37 % of the parts: " + parts);
        }
        CliRun load = loadVerify("lc.bin", "--balance", "least_connections");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("every byte verified"), load.out());
    }

    @Test
    @Order(3)
    void aGatewayKilledMidSaveIsFailedOverTheLoadVerifiesAndEndpointsShowsItDown() throws Exception {
        long size = 96L << 20;
        Path objects = S3.dataDir().resolve(S3.bucket());
        long before = bytesUnder(objects);
        CompletableFuture<CliRun> saving = CompletableFuture.supplyAsync(() -> save("failover.bin", size, "--writers", "2", "--buffers", "3",
                "--balance", "round_robin"));
        // kill gateway 1 once two parts' worth of the new object has reached the store: mid-save
        boolean killed = false;
        while (!saving.isDone()) {
            if (bytesUnder(objects) - before >= 2 * PART) {
                S3.kill(1);
                killed = true;
                break;
            }
            Thread.sleep(5);
        }
        CliRun save = saving.get();
        assertTrue(killed, "the save ended before two parts were stored: " + save.out() + save.err());
        assertEquals(0, save.code(), save.out() + save.err());
        System.out.println("save with gateway 1 killed mid-save:\n" + save.out());
        String victim = S3.endpoint(1).toString();
        List<String> row = row(save.out(), victim);
        // endpoint requests MiB errors p50 p99 down state last-failure...
        assertTrue(Long.parseLong(row.get(3)) >= 1, "errors on the killed gateway: " + save.out());
        assertTrue(Long.parseLong(row.get(6)) >= 1, "marked down: " + save.out());
        assertTrue(String.join(" ", row.subList(8, row.size())).contains(victim), save.out());
        double mib = 0;
        for (String u : uris()) {
            mib += Double.parseDouble(row(save.out(), u).get(2));
        }
        assertEquals(96.0, mib, 0.05, "every part acknowledged once: " + save.out());

        // gateway 1 still dead: the load reads and verifies every byte through the other two
        CliRun load = loadVerify("failover.bin", "--json");
        assertEquals(0, load.code(), load.err());
        Map<String, Object> l = JsonRead.object(load.out());
        assertEquals(Boolean.TRUE, l.get("verified"));
        assertEquals(size, number(l, "totalBytes"));
        assertEquals(List.of(), uploads("failover.bin"));

        // the probe, in a fresh look at the set: two up, the killed one down with its cause
        CliRun probe = run("endpoints", "s3://" + S3.bucket(), "--backend", "aws", "--endpoints", endpoints(),
                "--probes", "5");
        System.out.println("dgen4j endpoints with gateway 1 killed:\n" + probe.out() + probe.err());
        assertEquals(3, probe.code(), probe.out() + probe.err());
        assertTrue(probe.out().startsWith("dgen4j endpoints: 3 endpoints (round_robin), bucket " + S3.bucket()
                + ", backend aws, 5 HEAD-bucket probes each\n"), probe.out());
        for (int i : new int[] {0, 2}) {
            List<String> up = row(probe.out(), S3.endpoint(i).toString());
            assertEquals(List.of("5/5", "up", "-"), List.of(up.get(1), up.get(4), up.get(5)), probe.out());
        }
        List<String> down = row(probe.out(), victim);
        assertEquals(List.of("-", "-", "down"), down.subList(2, 5), probe.out());
        String cause = String.join(" ", down.subList(5, down.size()));
        assertTrue(cause.startsWith("HeadBucket of s3://" + S3.bucket()) && cause.contains(victim), probe.out());
        assertTrue(probe.out().endsWith("2 of 3 endpoints up\n"), probe.out());
        assertEquals("dgen4j: 1 of 3 S3 endpoints are down\n", probe.err());
    }

    @Test
    @Order(4)
    void pinUploadKeepsEachObjectsPartsOnOneGateway() {
        List<Integer> used = new ArrayList<>();
        // both saves through one session: its pool turns to the next gateway for the next object (each
        // command of the CLI has a session of its own, whose first object goes to the first gateway)
        Storage storage = Storage.open(env(), Path.of(""));
        for (String key : List.of("pin-a.bin", "pin-b.bin")) {
            CliRun save = CliRun.of(storage, env(), saveArgs(key, 4 * PART, "--writers", "2", "--buffers", "3",
                    "--balance", "round_robin", "--pin-upload", "--json"));
            assertEquals(0, save.code(), save.err());
            Map<String, Object> m = JsonRead.object(save.out());
            List<Map<String, Object>> figures = endpointFigures(m);
            List<Integer> busy = new ArrayList<>();
            for (int i = 0; i < figures.size(); i++) {
                if (number(figures.get(i), "requests") > 0) {
                    busy.add(i);
                }
            }
            assertEquals(1, busy.size(), "every request of " + key + " on one gateway: " + save.out());
            int on = busy.getFirst();
            assertEquals(4 * PART, number(figures.get(on), "bytes"), save.out());
            assertTrue(((String) m.get("backend")).contains("pinned to " + S3.endpoint(on)), save.out());
            used.add(on);
            CliRun load = loadVerify(key, "--pin-upload", "--json");
            assertEquals(0, load.code(), load.err());
            Map<String, Object> l = JsonRead.object(load.out());
            assertEquals(Boolean.TRUE, l.get("verified"));
            assertEquals(1L, endpointFigures(l).stream().filter(e -> number(e, "requests") > 0).count(), load.out());
        }
        // objects, not parts, are spread: the next object's upload went to the next gateway
        assertFalse(used.get(0).equals(used.get(1)), "both objects on gateway " + used);
        assertEquals(List.of(), storage.close(Duration.ZERO));
    }

    @Test
    @Order(5)
    void everyGatewayKilledFailsWithinSecondsNamingEachAndTheUploadIsAbortedOnceOneIsBack() throws Exception {
        Storage storage = Storage.open(env(), Path.of(""));
        Path objects = S3.dataDir().resolve(S3.bucket());
        long before = bytesUnder(objects);
        long[] killedAt = {0};
        // a guard against a hang, not a speed check: the failure comes within seconds
        CliRun save = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            // through a session of the test's: the command leaves what it could not abort in it, open
            CompletableFuture<CliRun> saving = CompletableFuture.supplyAsync(() -> CliRun.of(storage, env(),
                    saveArgs("all-down.bin", 96L << 20, "--writers", "2", "--buffers", "3", "--balance",
                            "least_connections")));
            while (!saving.isDone()) {
                if (bytesUnder(objects) - before >= 2 * PART) {
                    S3.kill();
                    killedAt[0] = System.nanoTime();
                    break;
                }
                Thread.sleep(5);
            }
            return saving.get();
        });
        assertTrue(killedAt[0] != 0, "the save ended before two parts were stored: " + save.out() + save.err());
        System.out.printf("save failed %.1f s after every gateway was killed: exit %d, %s", (System.nanoTime()
                - killedAt[0]) / 1e9, save.code(), save.err());
        assertEquals(3, save.code(), save.out() + save.err());
        assertEquals("", save.out());
        assertEquals(1, save.err().lines().count(), save.err());
        assertTrue(save.err().startsWith("dgen4j: "), save.err());
        assertTrue(save.err().contains(target("all-down.bin")), save.err());
        assertTrue(save.err().contains("no S3 endpoint is healthy (3)"), save.err());
        for (String u : uris()) {
            assertTrue(save.err().contains(u + ": "), u + " named with its cause in " + save.err());
        }
        Matcher id = Pattern.compile("upload (\\S+) of s3://\\S+/all-down\\.bin is left open").matcher(save.err());
        assertTrue(id.find(), save.err());
        // what the CLI says before it exits when no gateway comes back: the real command that aborts it
        java.io.StringWriter hint = new java.io.StringWriter();
        Main.abortUploadsLeftOpen(new java.io.PrintWriter(hint, true), storage, "0");
        assertTrue(hint.toString().contains("still open: upload " + id.group(1) + " of " + target("all-down.bin")),
                hint.toString());
        assertTrue(hint.toString().contains("aws s3api abort-multipart-upload --endpoint-url " + uris().getFirst()
                + " --bucket " + S3.bucket() + " --key all-down.bin --upload-id " + id.group(1)), hint.toString());

        // one gateway back: the session's background abort (it is still open) removes the upload
        S3.start(0);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!uploads("all-down.bin").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertEquals(List.of(), uploads("all-down.bin"), "upload " + id.group(1) + " left open");
        assertEquals(List.of(), uploads(""), "no multipart upload open in the bucket");
        // the session records the abort once it confirmed it (a listing of its own after the DELETE), which
        // may come a moment after the listing above saw the upload gone
        assertEquals(List.of(), storage.close(Duration.ofSeconds(10)));
    }

    /** Open multipart uploads under {@code prefix}, through gateway 0 or the first that runs. */
    private static List<MultipartUpload> uploads(String prefix) {
        if (!S3.isRunning(0)) {
            try {
                S3.start(0);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("gateway 0 does not start again", e);
            }
        }
        return raw.listMultipartUploads(b -> b.bucket(S3.bucket()).prefix(prefix)).join().uploads();
    }

    /** The table's row of {@code endpoint}, split on blanks (leading blanks dropped). */
    private static List<String> row(String out, String endpoint) {
        List<String> rows = out.lines().map(String::strip).filter(l -> l.startsWith(endpoint + " ")).toList();
        assertEquals(1, rows.size(), out);
        return List.of(rows.getFirst().split("\\s+"));
    }

    /** Bytes of every file under {@code dir} (the store's objects and parts). */
    private static long bytesUnder(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0; // removed meanwhile (a completed upload's part)
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return 0; // a file removed while walking: count again next time
        }
    }
}
