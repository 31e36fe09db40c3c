package io.dgen4j.s3;

import io.dgen4j.s3.internal.MultipartWriter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.s3.FaultProxy.Fault;
import io.dgen4j.s3.FaultProxy.Injection;
import io.dgen4j.s3.FaultProxy.Match;
import io.dgen4j.s3.FaultProxy.Seen;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fault contract every S3 backend meets: a save or a load through a {@link FaultProxy} in front
 * of a real s3proxy, with faults injected. Each case either completes (a save returns, and a
 * verified load straight from s3proxy reads back every byte the generator makes; a load through the
 * proxy verifies every byte) or fails with one line naming the object within the case's bound; in
 * both the faults fired, and no multipart upload of the key is left open (ListMultipartUploads sent
 * straight to s3proxy, and s3proxy's files); a failed save leaves no object. A backend's test extends
 * it and names the backend and how to list the store's open uploads (as for {@link S3FailoverContract}).
 *
 * <p><b>Adding a case</b>: one method, the faults as a lambda on the proxy (see {@link FaultProxy}),
 * then what must happen:
 * {@snippet :
 * @Test
 * protected void aPartAnsweredSlowDownIsSentAgain() throws Exception {
 *     save(p -> p.inject(Match.uploadPart(2), Fault.status(503))).completes();
 * }
 * @Test
 * protected void aLoadWhoseGatewayIsGoneFailsOver() throws Exception {
 *     load(p -> p.blackHole(1, true)).gateways(2).within(Duration.ofSeconds(30)).completes();
 * }
 * @Test
 * protected void aPartRefusedFailsTheSave() throws Exception {
 *     save(p -> p.inject(Match.uploadPart(2), Fault.status(403, "AccessDenied")))
 *             .within(Duration.ofSeconds(10)).fails("UploadPart 2", "HTTP 403");
 * }
 * }
 * {@code gateways(n)} puts n proxy listeners in front of the one s3proxy, as an endpoint set;
 * {@code settings(s -> ...)} changes the settings (timeouts, strategy); {@code size(bytes)} the
 * object (4 parts of 5 MiB by default); {@code within(d)} is the stated bound (default
 * {@link #DEFAULT_BOUND}), checked for a failure and for a completion alike. A case that passes
 * only with a fix lands with the fix; one that needs its own steps (an interrupt, a restart) can
 * use {@link #checkpoint}, {@link #target}, {@link #assertNothingLeftOpen} and {@link #assertNoObject}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class S3FaultContract {
    @RegisterExtension
    protected static final S3ProxyExtension S3 = new S3ProxyExtension();
    protected static final long PART = 5L << 20;
    /** The bound of a case that states none. */
    protected static final Duration DEFAULT_BOUND = Duration.ofSeconds(60);

    private String key;

    /** The backend under test ({@code aws}, {@code crt}, {@code minio}). */
    protected abstract String backend();

    /** The ids of the multipart uploads of {@code key} still open in the store, listed through the backend's own client. */
    protected List<String> openUploads(String key) throws IOException {
        return new S3ClientKit(backend()).openUploads(S3, key);
    }

    /** One save and load straight to s3proxy first: the backend's classes load outside every case's bound. */
    @BeforeAll
    void warmUp() throws IOException {
        String warm = "s3://" + S3.bucket() + "/fault/warm-up.bin";
        checkpoint(S3.settings()).save(warm, PART);
        assertTrue(checkpoint(S3.settings()).load(warm, true).verified());
    }

    @BeforeEach
    void nameTheKey(TestInfo info) {
        key = "fault/" + info.getTestMethod().orElseThrow().getName() + ".bin";
    }

    // ---- the cases that pass on every backend ----

    @Test
    protected void aPartAnsweredSlowDownIsSentAgain() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.status(503))).completes();
    }

    @Test
    protected void aPartAnsweredInternalErrorIsSentAgain() throws Exception {
        save(p -> p.inject(Match.uploadPart(3), Fault.status(500))).completes();
    }

    @Test
    protected void aPartWhoseConnectionIsResetMidBodyIsSentAgain() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.resetRequest(1 << 20))).completes();
    }

    @Test
    protected void aPartStoredButItsAnswerLostIsSentAgain() throws Exception {
        save(p -> p.inject(Match.uploadPart(1), Fault.dropResponse(0))).completes();
    }

    @Test
    protected void aCreateAnsweredSlowDownIsSentAgain() throws Exception {
        save(p -> p.inject(Match.createUpload(), Fault.status(503))).completes();
    }

    @Test
    protected void aCompleteAnsweredSlowDownIsSentAgain() throws Exception {
        save(p -> p.inject(Match.completeUpload(), Fault.status(503))).completes();
    }

    /** The store completes the upload and the answer is lost: the retry finds the upload gone, the object ours. */
    @Test
    protected void aCompleteWhoseAnswerIsLostFindsTheObjectSaved() throws Exception {
        save(p -> p.inject(Match.completeUpload(), Fault.dropResponse(0))).completes();
    }

    /** ... and the retry is answered NoSuchUpload, as MinIO and others answer for a completed upload. */
    @Test
    protected void aCompleteWhoseAnswerIsLostAndWhoseRetryMeetsNoSuchUploadFindsTheObjectSaved() throws Exception {
        save(p -> {
            p.inject(Match.completeUpload(), Fault.dropResponse(0));
            p.inject(Match.completeUpload(), Fault.status(404, "NoSuchUpload"), 2, FaultProxy.EVERY);
        }).completes();
    }

    /** ... and the retry is answered InvalidPart, as s3proxy does while it is still completing. */
    @Test
    protected void aCompleteWhoseAnswerIsLostAndWhoseRetryMeetsInvalidPartFindsTheObjectSaved() throws Exception {
        save(p -> {
            p.inject(Match.completeUpload(), Fault.dropResponse(0));
            p.inject(Match.completeUpload(), Fault.status(400, "InvalidPart"), 2, FaultProxy.EVERY);
        }).completes();
    }

    /** The upload is still there: the refusal is the save's, and the upload is aborted. */
    @Test
    protected void aCompleteRefusedFailsTheSaveAndAbortsTheUpload() throws Exception {
        save(p -> p.inject(Match.completeUpload(), Fault.status(400, "InvalidPart"), 1, FaultProxy.EVERY))
                .within(Duration.ofSeconds(20)).fails("CompleteMultipartUpload", "InvalidPart");
    }

    /**
     * A store that assembles the object before it answers the completion and says nothing meanwhile
     * (s3proxy copies every part): no answer within the read timer, nor to the retries, yet the upload
     * leaves the list within {@link S3Timeouts#assembly} and the object is the one sent.
     */
    @Test
    protected void aCompleteAnsweredOnlyAfterTheStoreAssembledTheObjectFindsItSaved() throws Exception {
        // every Complete reaches s3proxy 3 s late: after the 2 s read timer gave up on it (a timed-out
        // request is not sent to the same gateway again; the CRT's own second try waits as long), before
        // the wait for the assembly ends (4 x 2 s + 0.3 s after that)
        save(p -> p.inject(Match.completeUpload(), Fault.delayRequest(Duration.ofSeconds(3)), 1, FaultProxy.EVERY))
                .settings(S3FaultContract::shortWaits).within(Duration.ofSeconds(30)).completes();
    }

    @Test
    protected void aPartDelayedASecondCompletes() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.delayResponse(Duration.ofSeconds(1)))).completes();
    }

    @Test
    protected void aPartRefusedFailsTheSaveAtOnce() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.status(403, "AccessDenied"))).within(Duration.ofSeconds(20))
                .fails("UploadPart 2", "403");
    }

    @Test
    protected void aGatewayResettingEveryPartIsFailedOver() throws Exception {
        save(p -> p.inject(Match.uploadPart().listener(1), Fault.reset(), 1, FaultProxy.EVERY)).gateways(2)
                .completes();
    }

    @Test
    protected void aRangedGetAnsweredSlowDownIsReadAgain() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.status(503))).completes();
    }

    @Test
    protected void aRangedGetCutShortIsReadAgain() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.resetResponse(64 << 10))).completes();
    }

    @Test
    protected void aGatewayResettingEveryGetIsFailedOver() throws Exception {
        load(p -> p.inject(Match.rangedGet().listener(1), Fault.reset(), 1, FaultProxy.EVERY)).gateways(2)
                .completes();
    }

    @Test
    protected void aLoadRefusedFailsAtOnce() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.status(403, "AccessDenied"), 1, FaultProxy.EVERY))
                .within(Duration.ofSeconds(20)).fails("403");
    }

    // ---- bounded waits (S3Timeouts): black holes, stalls, outages, garbage, trickles ----

    /** The waits of the cases that time out: 2 s for a connection, the first byte and any gap; 4 s of retries. */
    protected static final S3Timeouts SHORT = new S3Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(2),
            Duration.ofSeconds(2), Duration.ofSeconds(4));
    /** What a busy machine adds to a bound: start-up, the other requests, the abort. */
    private static final Duration SLACK = Duration.ofSeconds(10);

    /** How many tries the backend's client makes of one request itself (the CRT cannot be told fewer than 2). */
    protected int clientTries() {
        return 1;
    }

    /** What one request to a gateway that never answers costs the backend: each try waits the read timer. */
    private Duration hang() {
        // the CRT's monitor counts whole seconds and fires in the second after: one more per try
        return SHORT.read().plusSeconds(clientTries() > 1 ? 1 : 0).multipliedBy(clientTries());
    }

    private static S3Settings shortWaits(S3Settings s) {
        return s.toBuilder().timeouts(SHORT).build();
    }

    @Test
    protected void aLoneBlackHoleFailsTheSaveWithinItsBound() throws Exception {
        save(p -> p.blackHole(true)).settings(S3FaultContract::shortWaits).within(hang().plus(SLACK))
                .fails("timed out");
    }

    @Test
    protected void aLoneBlackHoleFailsTheLoadWithinItsBound() throws Exception {
        load(p -> p.blackHole(true)).settings(S3FaultContract::shortWaits).within(hang().plus(SLACK))
                .fails("timed out");
    }

    /** A part stalls: not sent to the same gateway again (it would hang again); the upload is aborted. */
    @Test
    protected void aGatewayThatStopsAnsweringMidSaveFailsItWithinItsBound() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.stall(), 1, FaultProxy.EVERY))
                .settings(S3FaultContract::shortWaits).within(hang().plus(SLACK)).fails("UploadPart 2", "timed out");
    }

    @Test
    protected void aGatewayThatStopsAnsweringMidLoadFailsItWithinItsBound() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.stall(), 2, FaultProxy.EVERY))
                .settings(S3FaultContract::shortWaits).within(hang().plus(SLACK)).fails("GetObject", "timed out");
    }

    /** The black hole costs the requests sent to it one wait each, then is left alone for 30 s. */
    @Test
    protected void aBlackHoleBesideAGoodGatewayCostsTheSaveOneWait() throws Exception {
        save(p -> p.blackHole(1, true)).gateways(2).settings(S3FaultContract::shortWaits)
                .within(hang().multipliedBy(2).plus(SLACK)).completes();
    }

    @Test
    protected void aBlackHoleBesideAGoodGatewayCostsTheLoadOneWait() throws Exception {
        load(p -> p.blackHole(1, true)).gateways(2).settings(S3FaultContract::shortWaits)
                .within(hang().multipliedBy(2).plus(SLACK)).completes();
    }

    /** A restart of the lone gateway, within the default 10 s retry budget: a pause, not the save. */
    @Test
    protected void aLoneGatewayDownForThreeSecondsCostsTheSaveAPause() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.outage(Duration.ofSeconds(3)))).completes();
    }

    @Test
    protected void aLoneGatewayDownForThreeSecondsCostsTheLoadAPause() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.outage(Duration.ofSeconds(3)), 2, 1)).completes();
    }

    @Test
    protected void aGarbageAnswerToAPartIsSentAgain() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.garbage())).completes();
    }

    @Test
    protected void aGarbageAnswerToARangedGetIsReadAgain() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.garbage())).completes();
    }

    /**
     * A 100 ms pause after each piece the proxy relays (64 KiB at most): never a gap as long as the 2 s
     * idle timeout, while each 5 MiB range takes about 8 s, four times that timeout.
     */
    @Test
    protected void aRangedGetTrickledFasterThanTheIdleTimeoutCompletes() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.trickle(256 << 10, Duration.ofMillis(100))))
                .settings(S3FaultContract::shortWaits).completes();
    }

    /**
     * 64 bytes every 1.2 s, the head included: gaps just under the 2 s first-byte and idle timeouts, the
     * answer taking several times those timeouts.
     */
    @Test
    protected void aHeadAnswerTrickledJustUnderTheIdleTimeoutCompletes() throws Exception {
        load(p -> p.inject(Match.head(), Fault.trickle(64, Duration.ofMillis(1200))))
                .settings(S3FaultContract::shortWaits).completes();
    }

    @Test
    protected void aPartsAnswerTrickledFasterThanTheIdleTimeoutCompletes() throws Exception {
        save(p -> p.inject(Match.uploadPart(2), Fault.trickle(16, Duration.ofMillis(500))))
                .settings(S3FaultContract::shortWaits).completes();
    }

    /**
     * One byte every 4 s, slower than the 2 s idle timeout: the gateway is failed over. Four seconds,
     * not three: the CRT's monitor samples whole seconds and drops a connection after more than 2 of
     * them without a byte, which a 3 s gap may or may not give (it kept one such load over 70 s).
     * Each reader's range waits out a hang there, and ranges sent before it was marked down do too.
     */
    @Test
    protected void aGatewayTricklingSlowerThanTheIdleTimeoutIsFailedOver() throws Exception {
        load(p -> p.inject(Match.rangedGet().listener(1), Fault.trickle(1, Duration.ofSeconds(4)), 1,
                FaultProxy.EVERY)).gateways(2).settings(S3FaultContract::shortWaits)
                .within(hang().multipliedBy(4).plus(SLACK.multipliedBy(2))).completes();
    }

    // ---- integrity: each part's CRC32C is checked by the store, a load checks the store's CRC32C ----

    @Test
    protected void aPartWithAByteFlippedOnItsWayIsSentAgain() throws Exception {
        List<Seen> seen = save(p -> p.inject(Match.uploadPart(3), Fault.flipRequestBody(0))).completes();
        assertEquals(2, seen.stream().filter(Match.uploadPart(3)).count(), "part 3, then part 3 again: " + seen);
    }

    @Test
    protected void aPartFlippedOnEveryAttemptFailsTheSave() throws Exception {
        save(p -> p.inject(Match.uploadPart(3), Fault.flipRequestBody(100), 1, FaultProxy.EVERY))
                .within(Duration.ofSeconds(30)).fails("UploadPart 3", "HTTP 400", "(" + MultipartWriter.CORRUPTED_ATTEMPTS
                        + " attempts, the store found the bytes damaged each time");
    }

    /** The load checks the bytes against the store's CRC32C, and --verify against the generator. */
    @Test
    protected void aRangedGetWithAFlippedByteFailsTheLoad() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.flipResponseBody(17))).within(Duration.ofSeconds(20)).fails();
    }

    /** Without checksums only --verify sees it. */
    @Test
    protected void aRangedGetWithAFlippedByteFailsAVerifiedLoadWithoutChecksums() throws Exception {
        load(p -> p.inject(Match.rangedGet(), Fault.flipResponseBody(17)))
                .settings(s -> s.toBuilder().checksumMode(S3Settings.ChecksumMode.WHEN_REQUIRED).build())
                .within(Duration.ofSeconds(20)).fails("verify failed", "first mismatch at byte offset");
    }

    /**
     * The second ranged GET is held back while the object is replaced: the first GET after the replace
     * is refused (412, If-Match) and the load fails at once, asking no more.
     */
    @Test
    protected void anObjectReplacedDuringALoadFailsItAsChanged() throws Exception {
        checkpoint(S3.settings()).save(target(), 4 * PART);
        try (FaultProxy proxy = FaultProxy.start(S3.endpoint())) {
            proxy.inject(Match.rangedGet(), Fault.delayRequest(Duration.ofSeconds(6)), 2, 1);
            // the GET held 6 s must not time out first (DGEN4J_S3_TIMEOUTS: 10 s for the first byte)
            S3Settings patient = proxy.settings(S3.settings()).toBuilder().timeouts(S3Timeouts.parse("first-byte=30s",
                    "test", S3Timeouts.DEFAULTS)).build();
            StreamingCheckpoint c = StreamingCheckpoint.builder().chunkSize(PART).buffers(2).readersInFlight(1)
                    .backend(backend()).backendOptions(patient).build();
            java.util.concurrent.CompletableFuture<IOException> loading = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> {
                        try {
                            c.load(target(), true);
                            return null;
                        } catch (IOException e) {
                            return e;
                        }
                    });
            assertTrue(proxy.await(Match.rangedGet(), 2, Duration.ofSeconds(60)), "the second GET came: " + proxy.seen());
            checkpoint(S3.settings()).save(target(), 4096); // one small part: done within the hold
            IOException e = loading.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertNotNull(e, "the load read across a replace without failing");
            assertTrue(e.getMessage().contains(target() + " changed during the load"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            List<Seen> gets = proxy.seen().stream().filter(Match.rangedGet()).toList();
            assertEquals(412, gets.getLast().status(), "the GET after the replace is refused, and none follows: " + gets);
            assertEquals(1, gets.stream().filter(g -> g.status() == 412).count(), "not read again: " + gets);
        }
        assertNothingLeftOpen(key());
    }

    // ---- the kit ----

    /** The faults a case injects, given the proxy before the save or load starts. */
    @FunctionalInterface
    protected interface Faults {
        void inject(FaultProxy proxy) throws Exception;
    }

    /** A save of this case's object through the proxy, with {@code faults}. */
    protected final Case save(Faults faults) {
        return new Case(false, faults);
    }

    /** A verified load, through the proxy with {@code faults}, of this case's object saved straight to s3proxy. */
    protected final Case load(Faults faults) {
        return new Case(true, faults);
    }

    /** One case: its faults, the set-up, and what must happen. */
    protected final class Case {
        private final boolean load;
        private final Faults faults;
        private int gateways = 1;
        private UnaryOperator<S3Settings> settings = UnaryOperator.identity();
        private long size = 4 * PART;
        private Duration within = DEFAULT_BOUND;

        private Case(boolean load, Faults faults) {
            this.load = load;
            this.faults = faults;
        }

        /** {@code n} proxy listeners in front of the one s3proxy, as an endpoint set (round-robin). */
        public Case gateways(int n) {
            this.gateways = n;
            return this;
        }

        /** Changes the settings the save or load gets (its endpoints already the proxy's). */
        public Case settings(UnaryOperator<S3Settings> change) {
            this.settings = change;
            return this;
        }

        /** The object's size (4 parts of 5 MiB unless set). */
        public Case size(long bytes) {
            this.size = bytes;
            return this;
        }

        /** The bound within which the save or load must complete or fail. */
        public Case within(Duration bound) {
            this.within = bound;
            return this;
        }

        /** The save or load completes within the bound, every byte as the generator makes it; what the proxy saw. */
        public List<Seen> completes() throws Exception {
            Ran r = run();
            if (r.failure != null) {
                fail(String.format("%s %s failed after %.1f s instead of completing: %s%nthe proxy saw: %s", backend(),
                        what(), r.seconds, r.failure.getMessage(), r.seen), r.failure);
            }
            assertWithin(r);
            if (!load) {
                LoadResult back = checkpoint(S3.settings()).load(target(), true);
                assertTrue(back.verified(), back.toString());
                assertEquals(size, back.totalBytes());
            }
            assertNothingLeftOpen(key);
            return r.seen;
        }

        /**
         * The save or load fails within the bound with one line naming the object and each of
         * {@code says}; a save leaves no object; returns the failure.
         */
        public IOException fails(String... says) throws Exception {
            Ran r = run();
            assertNotNull(r.failure, () -> String.format("%s %s completed in %.1f s instead of failing; the proxy "
                    + "saw: %s", backend(), what(), r.seconds, r.seen));
            String m = r.failure.getMessage();
            assertWithin(r);
            assertFalse(m.contains("\n") || m.contains("\r"), "not one line: " + m);
            assertFalse(m.contains(S3ProxyExtension.SECRET_KEY), m);
            assertTrue(m.contains(target()), "the message names " + target() + ": " + m);
            for (String s : says) {
                assertTrue(m.contains(s), "the message says \"" + s + "\": " + m);
            }
            if (!load) {
                assertNoObject(key);
            }
            assertNothingLeftOpen(key);
            return r.failure;
        }

        private String what() {
            return (load ? "load of " : "save of ") + target() + (gateways > 1 ? " over " + gateways + " gateways" : "");
        }

        private void assertWithin(Ran r) {
            assertTrue(r.seconds <= within.toMillis() / 1e3, String.format("%s %s took %.1f s, over its bound of "
                    + "%d s", backend(), what(), r.seconds, within.toSeconds()));
        }

        private record Ran(double seconds, IOException failure, List<Seen> seen) { }

        private Ran run() throws Exception {
            if (load) {
                checkpoint(S3.settings()).save(target(), size);
            }
            List<java.net.URI> upstreams = new ArrayList<>();
            for (int i = 0; i < gateways; i++) {
                upstreams.add(S3.endpoint());
            }
            try (FaultProxy proxy = FaultProxy.start(upstreams)) {
                faults.inject(proxy);
                S3Settings s = settings.apply(proxy.settings(S3.settings()));
                StreamingCheckpoint c = checkpoint(s);
                long start = System.nanoTime();
                // a guard against a hang, well past the bound: the bound itself is checked after
                Duration guard = within.multipliedBy(2).plusSeconds(30);
                IOException failure = assertTimeoutPreemptively(guard, () -> {
                    try {
                        if (load) {
                            LoadResult l = c.load(target(), true);
                            assertTrue(l.verified(), l.toString());
                            assertEquals(size, l.totalBytes());
                        } else {
                            SaveResult saved = c.save(target(), size);
                            assertEquals(size, saved.totalBytes());
                        }
                        return null;
                    } catch (IOException e) {
                        return e;
                    }
                }, () -> backend() + " " + what() + " still running after " + guard.toSeconds() + " s; the proxy saw: "
                        + proxy.seen());
                double seconds = (System.nanoTime() - start) / 1e9;
                // what the faults did, for the record: each faulted or refused request and its answer
                List<Seen> marked = proxy.seen().stream().filter(x -> x.fault() != null || x.status() >= 300
                        || x.status() == 0).toList();
                System.out.printf("%s %s: %s in %.1f s%s; %d requests, faulted or refused: %s%n", backend(), what(),
                        failure == null ? "completed" : "failed", seconds, failure == null ? "" : ": "
                        + failure.getMessage(), proxy.seen().size(), marked);
                for (Injection i : proxy.injections()) {
                    assertTrue(i.fired() > 0, () -> "the fault never fired: " + i + "; the proxy saw: " + proxy.seen());
                }
                return new Ran(seconds, failure, proxy.seen());
            }
        }
    }

    /** This case's object, {@code s3://<bucket>/fault/<test method>.bin}. */
    protected final String target() {
        return "s3://" + S3.bucket() + "/" + key;
    }

    /** This case's key. */
    protected final String key() {
        return key;
    }

    /** A checkpoint through the backend with these settings: 5 MiB chunks, 2 writes or reads in flight, a fixed seed. */
    protected final StreamingCheckpoint checkpoint(S3Settings settings) {
        return StreamingCheckpoint.builder().chunkSize(PART).buffers(3).writersInFlight(2).readersInFlight(2)
                .backend(backend()).backendOptions(settings)
                .spec(DataSpec.builder().size(1).seed(19).dedupRatio(2).compressRatio(2).build()).build();
    }

    /**
     * No multipart upload of {@code key} is open: none listed by ListMultipartUploads sent straight to
     * s3proxy, and none of its part files ({@code .mpus-<id>-<key>-<n>}) in s3proxy's bucket directory.
     */
    protected final void assertNothingLeftOpen(String key) throws IOException {
        assertEquals(List.of(), openUploads(key), "multipart uploads of " + key + " left open");
        Path bucket = S3.dataDir().resolve(S3.bucket());
        String leaf = key.substring(key.lastIndexOf('/') + 1);
        try (Stream<Path> files = Files.walk(bucket)) {
            List<String> parts = files.filter(Files::isRegularFile).map(p -> bucket.relativize(p).toString())
                    .filter(n -> n.toLowerCase(Locale.ROOT).contains(".mpus-") && n.contains(leaf)).toList();
            assertEquals(List.of(), parts, "part files of " + key + " left in s3proxy's bucket directory");
        }
    }

    /** No object {@code key} is stored (s3proxy's filesystem backend keeps an object as the file named by its key). */
    protected final void assertNoObject(String key) {
        Path file = S3.dataDir().resolve(S3.bucket()).resolve(key);
        assertFalse(Files.exists(file), "an object is stored at " + key + " after the failed save");
    }
}
