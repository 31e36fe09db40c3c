package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.Storage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover contract every S3 backend meets, over three real s3proxy gateways of one store (one
 * basedir): parts spread by the strategy, one gateway killed mid-save (the save completes, a
 * verified load passes, the statistics show the failover), all killed (a prompt failure naming each
 * endpoint, and the upload left open aborted once a gateway is back). A backend's test extends it
 * (as its storage test extends {@code StorageContract}) and names the backend and how to list the
 * store's open uploads.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class S3FailoverContract {
    /** Three gateways over one store; a backend's test reaches them as {@code S3}. */
    @RegisterExtension
    protected static final S3ProxyExtension S3 = new S3ProxyExtension(3);
    private static final int MIB = 1 << 20;
    private static final long PART = 5L * MIB;

    /** The backend under test ({@code aws}, {@code crt}, {@code minio}). */
    protected abstract String backend();

    /** The ids of the multipart uploads of {@code key} still open in the store, listed through the backend's own client. */
    protected List<String> openUploads(String key) throws IOException {
        return new S3ClientKit(backend()).openUploads(S3, key);
    }

    /** Every gateway runs again for the next test. */
    @AfterEach
    protected void restartKilledGateways() throws Exception {
        S3.start();
    }

    private StreamingCheckpoint checkpoint(S3Settings s, int writers, java.util.function.LongConsumer progress) {
        return builder(s, writers, progress).build();
    }

    private StreamingCheckpoint.Builder builder(S3Settings s, int writers, java.util.function.LongConsumer progress) {
        return StreamingCheckpoint.builder().chunkSize((int) PART).buffers(writers + 1).writersInFlight(writers)
                .readersInFlight(writers).backend(backend()).backendOptions(s).progress(progress)
                .spec(DataSpec.builder().size(1).seed(7).dedupRatio(2).compressRatio(2).build());
    }

    /** A save of 12 parts through {@code storage} during which every gateway is killed after 2 parts; its failure. */
    private IOException saveWithEveryGatewayKilled(S3Settings s, Storage storage, String key) {
        AtomicBoolean killed = new AtomicBoolean();
        // a guard against a hang, not a speed check: the failure comes within seconds
        IOException e = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> assertThrows(IOException.class,
                () -> builder(s, 2, done -> {
                    if (done >= 2 * PART && killed.compareAndSet(false, true)) {
                        for (int i = 0; i < 3; i++) {
                            kill(i);
                        }
                    }
                }).storage(storage).build().save(target(key), 12 * PART)));
        assertTrue(killed.get());
        return e;
    }

    private static String target(String key) {
        return "s3://" + S3.bucket() + "/" + key;
    }

    private static long parts(EndpointStatistics s) {
        return s.bytes() / PART;
    }

    @Test
    @Order(1)
    protected void roundRobinSendsEachGatewayAThirdOfTheParts() throws IOException {
        S3Settings s = S3.settings(EndpointSet.Strategy.ROUND_ROBIN);
        SaveResult saved = checkpoint(s, 2, done -> { }).save(target("rr.bin"), 9 * PART);
        List<EndpointStatistics> st = saved.endpoints();
        assertEquals(3, st.size(), saved.toString());
        for (int i = 0; i < 3; i++) {
            assertEquals(S3.endpoint(i).toString(), st.get(i).endpoint());
            assertEquals(3, parts(st.get(i)), st.toString());
            assertEquals(0, st.get(i).errors(), st.toString());
        }
        assertTrue(saved.backend().contains("3 endpoints (round_robin)"), saved.backend());
        LoadResult loaded = checkpoint(s, 2, done -> { }).load(target("rr.bin"), true);
        assertTrue(loaded.verified());
        assertEquals(3, loaded.endpoints().size());
        assertEquals(9 * PART, loaded.endpoints().stream().mapToLong(EndpointStatistics::bytes).sum());
        assertEquals(List.of(), openUploads("rr.bin"));
    }

    @Test
    @Order(2)
    protected void leastConnectionsGivesASequentialCallersPartsEvenly() throws IOException {
        S3Settings s = S3.settings(EndpointSet.Strategy.LEAST_CONNECTIONS);
        SaveResult saved = checkpoint(s, 1, done -> { }).save(target("lc.bin"), 6 * PART + 1234);
        long total = 7;
        for (EndpointStatistics e : saved.endpoints()) {
            long parts = (e.bytes() + PART - 1) / PART;
            double share = parts / (double) total;
            // 7 parts over 3 gateways: 2, 2 and 3 (the short last part counts as one)
            assertTrue(share >= 2.0 / 7 && share <= 3.0 / 7, e + " of " + saved.endpoints());
        }
        assertTrue(checkpoint(s, 1, done -> { }).load(target("lc.bin"), true).verified());
    }

    @Test
    @Order(3)
    protected void aGatewayKilledMidSaveIsFailedOverAndTheSaveCompletes() throws Exception {
        S3Settings s = S3.settings(EndpointSet.Strategy.ROUND_ROBIN);
        AtomicBoolean killed = new AtomicBoolean();
        URI victim = S3.endpoint(1);
        SaveResult saved = checkpoint(s, 3, done -> {
            if (done >= 2 * PART && killed.compareAndSet(false, true)) {
                kill(1);
            }
        }).save(target("failover.bin"), 8 * PART);
        assertTrue(killed.get());
        assertEquals(8 * PART, saved.totalBytes());
        EndpointStatistics dead = saved.endpoints().get(1);
        assertEquals(victim.toString(), dead.endpoint());
        assertTrue(dead.markedDown() >= 1, saved.endpoints().toString());
        assertTrue(dead.errors() >= 1, saved.endpoints().toString());
        assertTrue(dead.lastFailure().contains(victim.toString()), dead.lastFailure());
        assertEquals(8 * PART, saved.endpoints().stream().mapToLong(EndpointStatistics::bytes).sum(),
                "every part acknowledged once: " + saved.endpoints());
        // the load, with gateway 1 still dead, reads and verifies every byte through the others
        LoadResult loaded = checkpoint(s, 2, done -> { }).load(target("failover.bin"), true);
        assertTrue(loaded.verified());
        assertEquals(8 * PART, loaded.totalBytes());
        assertEquals(List.of(), openUploads("failover.bin"));
    }

    @Test
    @Order(4)
    protected void withEveryGatewayKilledTheSaveFailsPromptlyAndTheUploadIsAbortedOnceOneIsBack() throws Exception {
        S3Settings s = S3.settings(EndpointSet.Strategy.LEAST_CONNECTIONS).toBuilder()
                .apiCallAttemptTimeout(Duration.ofSeconds(10)).apiCallTimeout(Duration.ofSeconds(30)).build();
        long start = System.nanoTime();
        // the session stays open after the save: its pool keeps aborting in the background
        Storage storage = Storage.open();
        IOException e = saveWithEveryGatewayKilled(s, storage, "all-down.bin");
        String m = e.getMessage();
        System.out.printf("save failed %.1f s after it started (every gateway killed after 10 MiB): %s%n",
                (System.nanoTime() - start) / 1e9, m);
        assertTrue(m.contains("s3://" + S3.bucket() + "/all-down.bin"), m);
        Matcher id = Pattern.compile("upload (\\S+) of s3://\\S+/all-down\\.bin is left open").matcher(m);
        assertTrue(id.find(), m);
        assertTrue(m.contains("no S3 endpoint is healthy (3)") || m.contains("cannot connect")
                || m.contains("cannot reach"), m);
        for (URI u : S3.endpoints()) {
            assertTrue(m.contains(u.toString()), u + " in " + m);
        }
        assertEquals(List.of("upload " + id.group(1) + " of " + target("all-down.bin")), storage.uploadsLeftOpen());
        // a gateway comes back: the session's background abort removes the upload left open
        S3.start(0);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!openUploads("all-down.bin").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertEquals(List.of(), openUploads("all-down.bin"), "upload " + id.group(1) + " left open");
        assertEquals(List.of(), storage.close(Duration.ZERO), "nothing left open when the session closes");
    }

    @Test
    @Order(5)
    protected void closingTheSessionWaitsForTheAbortOfItsUploadLeftOpenThenRefusesUse() throws Exception {
        S3Settings s = S3.settings(EndpointSet.Strategy.ROUND_ROBIN).toBuilder()
                .apiCallAttemptTimeout(Duration.ofSeconds(10)).apiCallTimeout(Duration.ofSeconds(30)).build();
        Storage storage = Storage.open(Map.of(Storage.ABORT_WAIT_VAR, "60"), Path.of(""));
        String m = saveWithEveryGatewayKilled(s, storage, "close-aborts.bin").getMessage();
        Matcher id = Pattern.compile("upload (\\S+) of s3://\\S+/close-aborts\\.bin is left open").matcher(m);
        assertTrue(id.find(), m);
        assertEquals(List.of("upload " + id.group(1) + " of " + target("close-aborts.bin")), storage.uploadsLeftOpen());
        Thread back = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(1000);
                S3.start(0);
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        try {
            storage.close(); // every gateway still down: it waits (up to 60 s) until gateway 0 takes the abort
        } finally {
            back.join();
        }
        assertEquals(List.of(), openUploads("close-aborts.bin"), "the close returned with upload " + id.group(1)
                + " open");
        assertEquals(List.of(), storage.uploadsLeftOpen());
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> builder(s, 2, done -> { }).storage(storage).build().save(target("after-close.bin"), PART));
        assertTrue(refused.getMessage().contains("storage session is closed"), refused.getMessage());
    }

    private static void kill(int i) {
        try {
            S3.kill(i);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
