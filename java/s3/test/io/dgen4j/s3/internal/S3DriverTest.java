package io.dgen4j.s3.internal;

import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.S3Timeouts;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.storage.EndpointBackoff;
import io.dgen4j.storage.EndpointStatistics;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The driver over in-memory endpoints: balancing, failover, aborts, statistics, pinning. */
class S3DriverTest {
    private static final int MIB = 1 << 20;
    private static final long PART = 5L * MIB;
    private static final String BUCKET = "bkt";
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private S3Endpoints pool(FakeTransport.Cluster c, List<URI> endpoints, EndpointSet.Strategy strategy, boolean pin,
                             int rank) throws IOException {
        S3Settings s = S3Settings.builder().credentials("key", "secret", null).partSize(PART)
                .endpointSet(EndpointSet.builder().endpoints(endpoints).strategy(strategy).pinUpload(pin).rank(rank)
                        .build()).build();
        S3Endpoints p = S3Endpoints.open(c, s);
        open.add(p);
        return p;
    }

    private S3Endpoints pool(FakeTransport.Cluster c, List<URI> endpoints, EndpointSet.Strategy strategy)
            throws IOException {
        return pool(c, endpoints, strategy, false, 0);
    }

    private static S3Location at(String key) {
        return S3Location.parse("s3://" + BUCKET + "/" + key);
    }

    private static MultipartWriter writer(S3Endpoints pool, String key, long size, int inFlight) throws IOException {
        WriteRequest r = new WriteRequest(StorageTarget.parse("s3://" + BUCKET + "/" + key), size, PART,
                Map.of("dgen4j", "test", "chunkSize", PART), inFlight, StorageOptions.empty());
        return MultipartWriter.open(pool, at(key), pool.settings(), r, inFlight);
    }

    /** Deterministic bytes of the object at {@code offset}. */
    private static void fill(MemorySegment seg, long offset) {
        for (long i = 0; i < seg.byteSize(); i += 8) {
            long v = (offset + i) * 0x9E3779B97F4A7C15L;
            if (i + 8 <= seg.byteSize()) {
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, i, v);
            } else {
                for (long j = i; j < seg.byteSize(); j++) {
                    seg.set(ValueLayout.JAVA_BYTE, j, (byte) (v >>> (8 * (j - i))));
                }
            }
        }
    }

    private static byte[] expected(long size) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(size);
            for (long off = 0; off < size; off += PART) {
                fill(s.asSlice(off, Math.min(PART, size - off)), off);
            }
            return s.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Writes {@code size} bytes part by part from one thread, reusing one segment. */
    private static void writeSequentially(MultipartWriter w, long size) throws IOException {
        try (Arena a = Arena.ofShared()) {
            MemorySegment buf = a.allocate(PART, 4096);
            for (long off = 0; off < size; off += PART) {
                MemorySegment part = buf.asSlice(0, Math.min(PART, size - off));
                fill(part, off);
                w.write(off, part);
            }
        }
    }

    private static long parts(EndpointStatistics s) {
        return s.bytes() / PART;
    }

    @Test
    void roundRobinSendsEachEndpointAThirdOfTheParts() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        try (MultipartWriter w = writer(pool, "rr.bin", 30 * PART, 1)) {
            writeSequentially(w, 30 * PART);
            w.commit();
            List<EndpointStatistics> st = w.endpointStatistics();
            assertEquals(3, st.size());
            for (int i = 0; i < 3; i++) {
                assertEquals(eps.get(i).toString(), st.get(i).endpoint());
                assertEquals(10, parts(st.get(i)), st.toString());
                assertEquals(10L * PART, c.transport(eps.get(i)).partBytes());
                assertEquals(0, st.get(i).errors());
                assertEquals("up", st.get(i).state());
            }
            assertEquals(30 + 4, st.stream().mapToLong(EndpointStatistics::requests).sum(),
                    "30 parts, HeadBucket, create, complete, HEAD");
        }
        assertEquals(30 * PART, c.size("rr.bin"));
    }

    @Test
    void leastConnectionsWithASequentialCallerGivesEachOfThreeEndpoints30To37PercentOfTheParts() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.LEAST_CONNECTIONS);
        int total = 31;
        try (MultipartWriter w = writer(pool, "lc.bin", total * PART, 1)) {
            writeSequentially(w, total * PART);
            w.commit();
            for (EndpointStatistics s : w.endpointStatistics()) {
                double share = parts(s) / (double) total;
                assertTrue(share >= 0.30 && share <= 0.37, s.endpoint() + " got " + parts(s) + " of " + total);
            }
        }
    }

    @Test
    void leastConnectionsSpreadsConcurrentCallers() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false).delayMillis(3);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.LEAST_CONNECTIONS);
        int total = 48;
        long size = total * PART;
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try (MultipartWriter w = writer(pool, "lc-concurrent.bin", size, 4); Arena a = Arena.ofShared()) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int first = t;
                done.add(threads.submit(() -> {
                    MemorySegment buf = a.allocate(PART, 4096);
                    for (int p = first; p < total; p += 4) {
                        fill(buf, p * PART);
                        w.write(p * PART, buf);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            w.commit();
            for (EndpointStatistics s : w.endpointStatistics()) {
                // concurrent callers meet ties and near-ties in any order: a looser band than the sequential one
                double share = parts(s) / (double) total;
                assertTrue(share >= 0.25 && share <= 0.42, s.endpoint() + " got " + parts(s) + " of " + total + ": "
                        + w.endpointStatistics());
                assertTrue(s.p50Millis() > 0 && s.p99Millis() >= s.p50Millis(), s.toString());
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void rankPlacesRankROnEndpointRModN() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(3);
        for (int rank = 0; rank < 5; rank++) {
            S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.RANK, false, rank);
            try (MultipartWriter w = writer(pool, "rank" + rank + ".bin", 3 * PART, 2)) {
                writeSequentially(w, 3 * PART);
                w.commit();
                List<EndpointStatistics> st = w.endpointStatistics();
                for (int i = 0; i < 3; i++) {
                    assertEquals(i == rank % 3 ? 3 : 0, parts(st.get(i)), "rank " + rank + ": " + st);
                    assertEquals(i == rank % 3 ? 7 : 0, st.get(i).requests(), "rank " + rank + ": " + st);
                }
            }
        }
    }

    @Test
    void partsOfAFailingEndpointAreSentAgainElsewhereWithTheSameBytes() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        long size = 9 * PART + 12_345;
        try (MultipartWriter w = writer(pool, "failover.bin", size, 1)) {
            // gateway 1 dies after its second part: refused connections, then 503s
            c.transport(eps.get(1)).failWith((op, n) -> op.equals("UploadPart") && n > 2
                    ? new java.io.UncheckedIOException(new java.net.ConnectException("Connection refused")) : null);
            writeSequentially(w, size);
            w.commit();
            List<EndpointStatistics> st = w.endpointStatistics();
            EndpointStatistics dead = st.get(1);
            assertTrue(dead.markedDown() >= 1, st.toString());
            assertTrue(dead.errors() >= 1, st.toString());
            assertTrue(dead.lastFailure().contains("Connection refused"), dead.lastFailure());
            assertEquals(2, parts(dead), st.toString());
            assertEquals(10, st.stream().mapToLong(s -> s.bytes()).sum() / PART + 1, st.toString());
        }
        assertArrayEquals(expected(size), c.bytes("failover.bin"));
        assertEquals(List.of(), c.uploadsOf("failover.bin"));
    }

    @Test
    void aGarbageAnswersControlBytesAreNeitherLoggedNorReportedRaw() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        // what minio's OkHttp says of a garbage answer: the bytes it read, in the message
        c.transport(eps.get(0)).failWith((op, n) -> op.equals("UploadPart") && n == 1
                ? new java.io.UncheckedIOException(new java.net.ProtocolException(
                        "Unexpected status line: \u0016\u0003\u0001\u0000\ufffd garbage\r\n\u0007\u0008")) : null);
        long size = 4 * PART;
        try (MultipartWriter w = writer(pool, "garbage.bin", size, 2)) {
            writeSequentially(w, size);
            w.commit();
            String last = w.endpointStatistics().get(0).lastFailure();
            assertTrue(last.contains("Unexpected status line: ????? garbage ??"), last);
            assertFalse(last.chars().anyMatch(ch -> Character.isISOControl(ch) || ch == 0xFFFD), last);
        }
        assertArrayEquals(expected(size), c.bytes("garbage.bin"));
    }

    @Test
    void a5xxMarksTheEndpointDownAndThePartGoesElsewhere() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        c.transport(eps.get(0)).failWith((op, n) -> op.equals("UploadPart") && n == 1
                ? new FakeTransport.S3Error(503, "SlowDown") : null);
        long size = 4 * PART;
        try (MultipartWriter w = writer(pool, "503.bin", size, 2)) {
            writeSequentially(w, size);
            w.commit();
            assertEquals(1, w.endpointStatistics().get(0).markedDown(), w.endpointStatistics().toString());
        }
        assertArrayEquals(expected(size), c.bytes("503.bin"));
    }

    @Test
    void aCompleteWhoseAnswerWasLostIsFoundCompletedOnTheRetry() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        for (URI e : eps) {
            c.transport(e).loseAnswerWith((op, n) -> op.equals("CompleteMultipartUpload") && n == 1
                    ? new java.io.UncheckedIOException(new IOException("Connection reset by peer")) : null);
        }
        long size = 3 * PART + 5;
        try (MultipartWriter w = writer(pool, "lost-answer.bin", size, 2)) {
            writeSequentially(w, size);
            w.commit(); // the retry meets NoSuchUpload: the upload is no longer listed, so it was completed
            assertTrue(w.state().contains("in place"), w.state());
        }
        assertArrayEquals(expected(size), c.bytes("lost-answer.bin"));
    }

    @Test
    void aCompleteDoneButAnsweredInvalidPartByTheClientsOwnRetryIsFoundCompleted() throws IOException {
        // one failure of the request's own, no failover: the SDK's retry of a Complete whose answer it lost
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(1);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        c.transport(eps.getFirst()).loseAnswerWith((op, n) -> op.equals("CompleteMultipartUpload")
                ? new FakeTransport.S3Error(400, "InvalidPart") : null);
        long size = 2 * PART + 7;
        try (MultipartWriter w = writer(pool, "invalid-part.bin", size, 2)) {
            writeSequentially(w, size);
            w.commit();
            assertTrue(w.state().contains("in place"), w.state());
        }
        assertArrayEquals(expected(size), c.bytes("invalid-part.bin"));
        assertEquals(1, c.transport(eps.getFirst()).calls("CompleteMultipartUpload"));
    }

    @Test
    void aCompleteThatFindsTheUploadGoneAndAnotherObjectInPlaceFailsAndLeavesThatObject() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(1);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        FakeTransport t = c.transport(eps.getFirst());
        long size = 2 * PART;
        MultipartWriter w = writer(pool, "not-ours.bin", size, 2);
        writeSequentially(w, size);
        // meanwhile another writer's object takes the key and our upload is aborted behind our back
        t.putObject(at("not-ours.bin"), Map.of(MetadataCodec.KEY, "{\"dgen4j\":\"other\"}"), MemorySegment.NULL)
                .join();
        t.abortMultipartUpload(at("not-ours.bin"), w.uploadId()).join();
        IOException e = assertThrows(IOException.class, w::commit);
        assertTrue(e.getMessage().contains("HTTP 404 NoSuchUpload"), e.getMessage());
        assertTrue(e.getMessage().contains("the upload is gone and the object now at s3://bkt/not-ours.bin is not the "
                + "one sent (it holds 0 bytes, 10485760 were sent)"), e.getMessage());
        w.abort();
        assertEquals(0, c.size("not-ours.bin"), "the other object is left alone");
        assertEquals(0, t.calls("DeleteObject"));
    }

    @Test
    void aRequestFailureFailsAtOnceWithoutMarkingTheEndpointDown() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        for (URI e : eps) {
            c.transport(e).failWith((op, n) -> op.equals("UploadPart") ? new FakeTransport.S3Error(403, "AccessDenied")
                    : null);
        }
        MultipartWriter w = writer(pool, "denied.bin", 3 * PART, 1);
        IOException e = assertThrows(IOException.class, () -> writeSequentially(w, 3 * PART));
        assertTrue(e.getMessage().contains("UploadPart 1 of s3://bkt/denied.bin"), e.getMessage());
        assertTrue(e.getMessage().contains("403 AccessDenied"), e.getMessage());
        int sent = eps.stream().mapToInt(u -> c.transport(u).calls("UploadPart")).sum();
        assertEquals(1, sent, "one attempt, no failover");
        w.abort();
        for (EndpointStatistics s : w.endpointStatistics()) {
            assertEquals(0, s.markedDown(), s.toString());
            assertEquals("up", s.state());
        }
        assertEquals(List.of(), c.uploadsOf("denied.bin"));
    }

    @Test
    void aLoneEndpointsTransientFailureIsRetriedAfterItsBackOff() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(1);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        // one 503 on the third part (after the client's own retries): the endpoint answered moments ago,
        // so the part waits out the 200 ms back-off and is sent again to the same endpoint as its probe
        c.transport(eps.get(0)).failWith((op, n) -> op.equals("UploadPart") && n == 3
                ? new FakeTransport.S3Error(503, "SlowDown") : null);
        long size = 5 * PART;
        try (MultipartWriter w = writer(pool, "transient.bin", size, 2)) {
            writeSequentially(w, size);
            w.commit();
            EndpointStatistics st = w.endpointStatistics().getFirst();
            assertEquals(1, st.markedDown(), st.toString());
            assertEquals(1, st.errors(), st.toString());
            assertEquals("up", st.state(), st.toString());
        }
        assertArrayEquals(expected(size), c.bytes("transient.bin"));
        assertEquals(6, c.transport(eps.get(0)).calls("UploadPart"), "5 parts, one sent twice");
    }

    @Test
    void anEndpointThatNeverAnsweredFailsAtOnce() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        eps.forEach(u -> c.transport(u).kill());
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> writer(pool, "never.bin", 2 * PART, 1));
        // no waiting for back-offs: nothing in this set has answered this process (a wrong address)
        assertTrue(System.nanoTime() - t0 < java.util.concurrent.TimeUnit.SECONDS.toNanos(2), "waited for endpoints that "
                + "never answered");
        assertTrue(e.getMessage().contains("no S3 endpoint is healthy (2)"), e.getMessage());
    }

    @Test
    void aRequestNotYetSentWaitsOutTheBackOffOfAnEndpointThatCameBack() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(1);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        c.transport(eps.get(0)).kill();
        assertThrows(IOException.class, () -> writer(pool, "back.bin", PART, 1), "a dead endpoint fails the open");
        c.transport(eps.get(0)).revive();
        // still down for its back-off: the next open's first request waits it out and is the probe
        try (MultipartWriter w = writer(pool, "back.bin", PART, 1)) {
            writeSequentially(w, PART);
            w.commit();
            assertEquals("up", w.endpointStatistics().getFirst().state());
        }
        assertArrayEquals(expected(PART), c.bytes("back.bin"));
    }

    @Test
    void withEveryEndpointDownTheWriteFailsNamingEachEndpointsCause() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.LEAST_CONNECTIONS);
        MultipartWriter w = writer(pool, "all-down.bin", 6 * PART, 2);
        eps.forEach(u -> c.transport(u).kill());
        // a guard against a hang, not a speed check
        IOException e = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> assertThrows(IOException.class, () -> writeSequentially(w, 6 * PART)));
        assertTrue(e.getMessage().contains("no S3 endpoint is healthy (3)"), e.getMessage());
        for (URI u : eps) {
            assertTrue(e.getMessage().contains(u + ": ") && e.getMessage().contains("fake " + u + " is down"),
                    e.getMessage());
        }
        w.abort();
        String upload = w.uploadId();
        assertNotNull(upload);
        assertTrue(w.state().contains("upload " + upload + " of s3://bkt/all-down.bin is left open"), w.state());
        assertEquals(List.of(upload), c.uploadsOf("all-down.bin"));
        assertEquals(List.of("upload " + upload + " of s3://bkt/all-down.bin"), pool.uploadsLeftOpen());
        // a gateway comes back: the pool aborts the upload left open
        c.transport(eps.get(2)).revive();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        // the store forgets the upload before the pool's background abort returns and drops it from its list
        while ((!c.uploadsOf("all-down.bin").isEmpty() || !pool.uploadsLeftOpen().isEmpty())
                && System.nanoTime() < deadline) {
            sleep(50);
        }
        assertEquals(List.of(), c.uploadsOf("all-down.bin"));
        assertEquals(List.of(), pool.uploadsLeftOpen());
    }

    @Test
    void anAbortGoesThroughAnEndpointThatAnswers() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        MultipartWriter w = writer(pool, "abort.bin", 6 * PART, 2);
        writeSequentially(w, 2 * PART);
        c.transport(eps.get(0)).kill();
        c.transport(eps.get(1)).kill();
        w.abort();
        assertEquals(List.of(), c.uploadsOf("abort.bin"));
        assertTrue(w.state().startsWith("nothing was stored"), w.state());
        assertTrue(c.transport(eps.get(2)).calls("AbortMultipartUpload") >= 1);
    }

    @Test
    void aHalfOpenProbeBringsAnEndpointBack() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        FakeTransport flaky = c.transport(eps.get(1));
        flaky.kill();
        try (MultipartWriter w = writer(pool, "probe.bin", 20 * PART, 1); Arena a = Arena.ofShared()) {
            MemorySegment buf = a.allocate(PART, 4096);
            w.write(0, buf);
            w.write(PART, buf);
            assertEquals("down", w.endpointStatistics().get(1).state(), w.endpointStatistics().toString());
            assertEquals(1, w.endpointStatistics().get(1).markedDown());
            flaky.revive();
            sleep(EndpointBackoff.FIRST_BACKOFF_NANOS / 1_000_000 + 50);
            for (int p = 2; p < 20; p++) {
                w.write(p * PART, buf);
            }
            List<EndpointStatistics> st = w.endpointStatistics();
            assertEquals("up", st.get(1).state(), st.toString());
            assertTrue(parts(st.get(1)) >= 8, "the endpoint takes its share again: " + st);
            w.commit();
        }
    }

    @Test
    void aFailedProbeDoublesTheBackOffUpTo10Seconds() {
        EndpointHealth h = new EndpointHealth("http://health-unit.fake:1");
        long t = 1_000_000_000L;
        assertEquals(EndpointBackoff.Admission.NORMAL, h.admit(t));
        assertTrue(h.failed(EndpointBackoff.Admission.NORMAL, "refused", t));
        assertFalse(h.failed(EndpointBackoff.Admission.NORMAL, "refused again", t), "already down");
        assertEquals(null, h.admit(t + EndpointBackoff.FIRST_BACKOFF_NANOS - 1));
        long backoff = EndpointBackoff.FIRST_BACKOFF_NANOS;
        for (int round = 0; round < 10; round++) {
            t += backoff;
            assertEquals(EndpointBackoff.Admission.PROBE, h.admit(t));
            assertEquals(null, h.admit(t), "one probe at a time");
            assertTrue(h.failed(EndpointBackoff.Admission.PROBE, "still refused", t));
            backoff = Math.min(backoff * 2, EndpointBackoff.MAX_BACKOFF_NANOS);
            assertEquals(backoff, h.backoffLeft(t));
        }
        assertEquals(EndpointBackoff.MAX_BACKOFF_NANOS, backoff);
        t += backoff;
        EndpointBackoff.Admission probe = h.admit(t);
        assertEquals(EndpointBackoff.Admission.PROBE, probe);
        h.answered(probe);
        assertEquals(EndpointBackoff.State.UP, h.state());
        assertEquals(11, h.figures().snapshot("x", "up").markedDown());
    }

    @Test
    void aPinnedUploadStaysOnOneEndpointAndCannotFailOver() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(3);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN, true, 0);
        int used = -1;
        try (MultipartWriter w = writer(pool, "pinned.bin", 7 * PART, 3)) {
            writeSequentially(w, 7 * PART);
            w.commit();
            List<EndpointStatistics> st = w.endpointStatistics();
            for (int i = 0; i < 3; i++) {
                if (st.get(i).requests() > 0) {
                    assertEquals(-1, used, "one endpoint only: " + st);
                    used = i;
                    assertEquals(7 + 4, st.get(i).requests());
                }
            }
            assertTrue(w.description().contains("pinned to " + eps.get(used)), w.description());
        }
        MultipartWriter w = writer(pool, "pinned-fails.bin", 4 * PART, 1);
        int pinned = -1;
        for (int i = 0; i < 3; i++) {
            if (w.endpointStatistics().get(i).requests() > 0) {
                pinned = i;
            }
        }
        int[] before = new int[3];
        for (int i = 0; i < 3; i++) {
            before[i] = c.transport(eps.get(i)).calls("UploadPart");
        }
        c.transport(eps.get(pinned)).kill();
        IOException e = assertThrows(IOException.class, () -> writeSequentially(w, 4 * PART));
        assertTrue(e.getMessage().contains(eps.get(pinned) + ", the endpoint its upload is pinned to"), e.getMessage());
        assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
        int elsewhere = 0;
        for (int i = 0; i < 3; i++) {
            elsewhere += i == pinned ? 0 : c.transport(eps.get(i)).calls("UploadPart") - before[i];
        }
        assertEquals(0, elsewhere, "no part went to another endpoint");
        w.abort();
        assertTrue(w.state().contains("left open"), w.state());
    }

    @Test
    void theReaderBalancesRangedGetsAndFailsOver() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, EndpointSet.Strategy.ROUND_ROBIN);
        long size = 2 * PART + 777;
        try (MultipartWriter w = writer(pool, "read.bin", size, 2)) {
            writeSequentially(w, size);
            w.commit();
        }
        byte[] want = expected(size);
        try (RangedReader r = RangedReader.open(pool, at("read.bin")); Arena a = Arena.ofConfined()) {
            assertEquals(size, r.size());
            assertEquals(Map.of("dgen4j", "test", "chunkSize", PART), r.metadata());
            int step = MIB;
            byte[] got = new byte[(int) size];
            for (long off = 0; off < size; off += step) {
                if (off == 4L * step) {
                    c.transport(eps.get(0)).kill();
                }
                MemorySegment seg = a.allocate(step, 4096); // confined: read through a shared buffer
                long n = r.read(off, seg);
                assertEquals(Math.min(step, size - off), n);
                MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, 0, got, (int) off, (int) n);
            }
            assertArrayEquals(want, got);
            List<EndpointStatistics> st = r.endpointStatistics();
            assertTrue(st.get(0).markedDown() >= 1, st.toString());
            assertTrue(st.get(1).bytes() > st.get(0).bytes(), st.toString());
            assertEquals(size, st.get(0).bytes() + st.get(1).bytes());
        }
        assertThrows(java.nio.file.NoSuchFileException.class, () -> RangedReader.open(pool, at("missing.bin")));
    }

    @Test
    void sharedPoolsAreReusedAndTheirTransportsOpenedOnce() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        S3Settings s = S3Settings.builder().credentials("key", "secret", null)
                .endpointSet(EndpointSet.builder().endpoints(c.endpoints(2)).build()).build();
        try (S3Pools pools = new S3Pools()) {
            S3Endpoints a = pools.pool(c, s, null);
            S3Endpoints b = pools.pool(c, s.toBuilder().partSize(8 * MIB).build(), null);
            assertTrue(a == b, "the part size does not change the clients");
            assertEquals(0, c.transports.size(), "an endpoint's transport is made on its first request");
            S3Transport first = a.all().getFirst().transport();
            assertTrue(first == a.all().getFirst().transport(), "and reused");
            assertEquals(1, c.transports.size());
            pools.close("fake");
            assertFalse(pools.pool(c, s, null) == a, "closed pools are opened again");
        }
    }

    @Test
    void twoSessionsPoolsShareNeitherClientsNorEndpointHealth() throws IOException {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        S3Settings s = S3Settings.builder().credentials("key", "secret", null)
                .endpointSet(EndpointSet.builder().endpoints(c.endpoints(2)).build()).build();
        try (S3Pools one = new S3Pools(); S3Pools two = new S3Pools()) {
            S3Endpoints a = one.pool(c, s, null);
            S3Endpoints b = two.pool(c, s, null);
            assertFalse(a == b, "each session opens its own pool");
            assertFalse(a.all().getFirst().health() == b.all().getFirst().health(), "and judges endpoints itself");
            long now = System.nanoTime();
            assertTrue(a.all().getFirst().health().failed(EndpointBackoff.Admission.NORMAL, "refused", now));
            assertEquals(EndpointBackoff.State.DOWN, a.all().getFirst().health().state());
            assertEquals(EndpointBackoff.State.UP, b.all().getFirst().health().state(),
                    "an endpoint down in one session is up in the other");
            assertTrue(a.all().getFirst().health() == one.pool(c, s.toBuilder().partSize(8 * MIB).build(), null)
                    .all().getFirst().health(), "within a session, pools share an endpoint's health");
            one.close();
            assertTrue(assertThrows(IllegalStateException.class, () -> one.pool(c, s, null)).getMessage()
                    .contains("closed"));
            assertTrue(b == two.pool(c, s, null), "closing one session leaves the other's pool open");
        }
    }

    // ---- the retry budget, timeouts, interrupts and client-thread Errors ----

    private S3Endpoints pool(FakeTransport.Cluster c, List<URI> endpoints, S3Timeouts timeouts) throws IOException {
        S3Settings s = S3Settings.builder().credentials("key", "secret", null).partSize(PART).timeouts(timeouts)
                .endpointSet(EndpointSet.builder().endpoints(endpoints).build()).build();
        S3Endpoints p = S3Endpoints.open(c, s);
        open.add(p);
        return p;
    }

    @Test
    void aLoneEndpointDownForAFewSecondsCostsAPauseNotTheSave() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(1);
        S3Endpoints pool = pool(c, eps, S3Timeouts.DEFAULTS);
        FakeTransport t = c.transport(eps.get(0));
        long size = 6 * PART;
        try (MultipartWriter w = writer(pool, "restart.bin", size, 1)) {
            // down from the 3rd part for 3 s (a gateway's restart), well within the 10 s retry budget
            t.failWith((op, n) -> op.equals("UploadPart") && n == 3 ? new java.io.UncheckedIOException(
                    new java.net.ConnectException("Connection refused (restarting)")) : null);
            ExecutorService ex = Executors.newSingleThreadExecutor();
            try {
                ex.submit(() -> {
                    sleep(100);
                    t.kill();
                    sleep(3000);
                    t.revive();
                });
                long t0 = System.nanoTime();
                writeSequentially(w, size);
                w.commit();
                System.out.printf("a 3 s outage of the lone endpoint cost the save %.1f s%n",
                        (System.nanoTime() - t0) / 1e9);
            } finally {
                ex.shutdownNow();
            }
            EndpointStatistics st = w.endpointStatistics().getFirst();
            assertTrue(st.errors() >= 1 && st.markedDown() >= 1, st.toString());
            assertEquals("up", st.state(), st.toString());
        }
        assertArrayEquals(expected(size), c.bytes("restart.bin"));
    }

    @Test
    void theRetryBudgetBoundsHowLongAFailingRequestIsRetried() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(1);
        S3Timeouts oneSecond = S3Timeouts.parse("retry=1s", "test", S3Timeouts.DEFAULTS);
        S3Endpoints pool = pool(c, eps, oneSecond);
        try (MultipartWriter w = writer(pool, "budget.bin", 4 * PART, 1)) {
            c.transport(eps.get(0)).kill(); // after it answered: a gateway that went away for good
            long t0 = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> writeSequentially(w, 4 * PART));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(seconds >= 0.9 && seconds < 5, seconds + " s: " + e.getMessage());
            assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
            // retried on the same endpoint after each back-off (200, 400, 800 ms ...) until the budget ended
            int calls = c.transport(eps.get(0)).calls("UploadPart");
            assertTrue(calls >= 3 && calls <= 8, calls + " attempts");
        }
    }

    @Test
    void aRequestThatTimedOutIsNotSentToThatEndpointAgainButFailsOver() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, true);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, S3Timeouts.DEFAULTS);
        FakeTransport hung = c.transport(eps.get(0));
        hung.failWith((op, n) -> op.equals("UploadPart") ? new java.io.UncheckedIOException(
                new java.net.SocketTimeoutException("Read timed out")) : null);
        long size = 4 * PART;
        try (MultipartWriter w = writer(pool, "hung.bin", size, 1)) {
            writeSequentially(w, size);
            w.commit();
            EndpointStatistics st = w.endpointStatistics().get(0);
            assertEquals(1, st.errors(), "one part met the hung endpoint, then it was left alone: " + st);
            assertEquals("down", st.state(), st.toString());
        }
        assertArrayEquals(expected(size), c.bytes("hung.bin"));
        assertEquals(1, hung.calls("UploadPart"), "probed again only after 30 s");
        EndpointHealth h = pool.all().get(0).health();
        assertTrue(h.backoffLeft(System.nanoTime()) > java.util.concurrent.TimeUnit.SECONDS.toNanos(20),
                "a timed-out endpoint's back-off is 30 s");

        // alone, the request fails at once: retrying a gateway that hangs would hang again
        FakeTransport.Cluster lone = new FakeTransport.Cluster(BUCKET, false);
        List<URI> one = lone.endpoints(1);
        S3Endpoints alone = pool(lone, one, S3Timeouts.DEFAULTS);
        lone.transport(one.get(0)).failWith((op, n) -> op.equals("UploadPart") ? new java.io.UncheckedIOException(
                new java.net.SocketTimeoutException("Read timed out")) : null);
        try (MultipartWriter w = writer(alone, "hung-alone.bin", 2 * PART, 1)) {
            long t0 = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> writeSequentially(w, 2 * PART));
            assertTrue(System.nanoTime() - t0 < java.util.concurrent.TimeUnit.SECONDS.toNanos(2), e.getMessage());
            assertTrue(e.getMessage().contains("Read timed out"), e.getMessage());
            assertEquals(1, lone.transport(one.get(0)).calls("UploadPart"));
        }
    }

    @Test
    void anErrorInTheClientsThreadFailsAtOnceAndLeavesTheEndpointUp() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(2);
        S3Endpoints pool = pool(c, eps, S3Timeouts.DEFAULTS);
        for (URI u : eps) {
            // as the AWS SDK reports it: its exception, with the Error as the cause
            c.transport(u).failWith((op, n) -> op.equals("UploadPart") ? new RuntimeException("client failed",
                    new OutOfMemoryError("Java heap space")) : null);
        }
        try (MultipartWriter w = writer(pool, "oom.bin", 2 * PART, 1)) {
            IOException e = assertThrows(IOException.class, () -> writeSequentially(w, 2 * PART));
            assertTrue(e.getMessage().contains("failed in the S3 client's thread: out of memory (Java heap space)"),
                    e.getMessage());
            int calls = c.transport(eps.get(0)).calls("UploadPart") + c.transport(eps.get(1)).calls("UploadPart");
            assertEquals(1, calls, "not sent again elsewhere");
            for (EndpointStatistics st : w.endpointStatistics()) {
                assertEquals("up", st.state(), st.toString());
                assertEquals(0, st.markedDown(), st.toString());
            }
        }
    }

    @Test
    void anInterruptCancelsTheRequestsInFlightAtOnceAndBlamesNoEndpoint() throws Exception {
        FakeTransport.Cluster c = new FakeTransport.Cluster(BUCKET, false);
        List<URI> eps = c.endpoints(1);
        S3Endpoints pool = pool(c, eps, S3Timeouts.DEFAULTS);
        MultipartWriter w = writer(pool, "interrupted.bin", 4 * PART, 2);
        c.delayMillis(30_000); // every request from now on takes 30 s
        Thread writer = Thread.currentThread();
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            ex.submit(() -> {
                sleep(300);
                writer.interrupt();
            });
            long t0 = System.nanoTime();
            java.io.InterruptedIOException e = assertThrows(java.io.InterruptedIOException.class,
                    () -> writeSequentially(w, 4 * PART));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
            assertTrue(seconds < 2, seconds + " s: " + e.getMessage());
            assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
            EndpointStatistics st = w.endpointStatistics().getFirst();
            assertEquals("up", st.state(), st.toString());
            assertEquals(0, st.errors(), st.toString());
            assertEquals(0, st.active(), "nothing left in flight: " + st);
        } finally {
            ex.shutdownNow();
            c.delayMillis(0);
            w.close();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
