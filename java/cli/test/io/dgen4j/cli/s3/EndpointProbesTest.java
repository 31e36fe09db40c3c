package io.dgen4j.cli.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Transport;
import io.dgen4j.s3.S3TransportFactory;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** {@link EndpointProbes} with transports that misbehave in each way a real one may. */
class EndpointProbesTest {
    private static final S3Location WHERE = new S3Location("bkt", "probe");

    /** A transport whose n-th HEAD bucket (0-based) does what {@code answer} says; counts closes. */
    private static final class Fake implements S3Transport {
        final IntFunction<CompletableFuture<Void>> answer;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();

        Fake(IntFunction<CompletableFuture<Void>> answer) {
            this.answer = answer;
        }

        @Override
        public String endpoint() {
            return "fake";
        }

        @Override
        public CompletableFuture<Void> headBucket(String bucket) {
            return answer.apply(calls.getAndIncrement());
        }

        @Override
        public FailureKind classify(Throwable failure) {
            return failure instanceof IllegalStateException ? FailureKind.REQUEST : FailureKind.ENDPOINT;
        }

        @Override
        public IOException describe(String operation, S3Location where, Throwable failure) {
            return new IOException(operation + " of " + where + ": " + failure.getMessage() + "\n  (detail)");
        }

        @Override
        public void close() {
            closed.incrementAndGet();
        }

        private static <T> CompletableFuture<T> no() {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }

        @Override
        public CompletableFuture<String> createMultipartUpload(S3Location where, Map<String, String> metadata) {
            return no();
        }

        @Override
        public CompletableFuture<UploadedPart> uploadPart(S3Location where, String uploadId, int partNumber,
                MemorySegment body) {
            return no();
        }

        @Override
        public CompletableFuture<Void> completeMultipartUpload(S3Location where, String uploadId,
                List<UploadedPart> parts) {
            return no();
        }

        @Override
        public CompletableFuture<Void> abortMultipartUpload(S3Location where, String uploadId) {
            return no();
        }

        @Override
        public CompletableFuture<Boolean> uploadListed(S3Location where, String uploadId) {
            return no();
        }

        @Override
        public CompletableFuture<Void> putObject(S3Location where, Map<String, String> metadata, MemorySegment body) {
            return no();
        }

        @Override
        public CompletableFuture<Optional<ObjectHead>> headObject(S3Location where) {
            return no();
        }

        @Override
        public CompletableFuture<Void> deleteObject(S3Location where) {
            return no();
        }

        @Override
        public CompletableFuture<Long> getRange(S3Location where, long offset, MemorySegment dst, String etag) {
            return no();
        }
    }

    private static S3TransportFactory factory(List<Fake> opened, IntFunction<CompletableFuture<Void>> answer) {
        return new S3TransportFactory() {
            @Override
            public String backend() {
                return "fake";
            }

            @Override
            public S3Transport open(S3Settings settings) throws IOException {
                if (settings.endpoint().orElseThrow().getPort() == 666) {
                    throw new IOException("unreadable CA bundle");
                }
                Fake f = new Fake(answer);
                opened.add(f);
                return f;
            }
        };
    }

    private static S3Settings endpoints(String... uris) {
        if (uris.length == 1) {
            return S3Settings.builder().endpoint(URI.create(uris[0])).build();
        }
        return S3Settings.builder().endpointSet(io.dgen4j.s3.EndpointSet.builder()
                .endpoints(java.util.Arrays.stream(uris).map(URI::create).toList()).build()).build();
    }

    private static List<EndpointProbes.Probe> run(S3TransportFactory factory, S3Settings settings, int probes,
            Duration timeout) throws InterruptedException {
        return EndpointProbes.run(factory, settings, WHERE, probes, timeout, Duration.ofSeconds(60), 64);
    }

    @Test
    void theFirstRequestIsNotMeasuredAndEveryTransportIsClosed() throws Exception {
        List<Fake> opened = java.util.Collections.synchronizedList(new ArrayList<>());
        List<EndpointProbes.Probe> found = run(factory(opened, n -> CompletableFuture.completedFuture(null)),
                endpoints("http://a:1", "http://b:1"), 4, Duration.ofSeconds(5));
        assertEquals(List.of("http://a:1", "http://b:1"), found.stream().map(EndpointProbes.Probe::endpoint).toList());
        for (EndpointProbes.Probe p : found) {
            assertTrue(p.up());
            assertEquals(4, p.attempted());
            assertEquals(4, p.ok());
            assertEquals(4, p.millis().size());
        }
        assertEquals(2, opened.size());
        for (Fake f : opened) {
            assertEquals(5, f.calls.get(), "one unmeasured request, then the probes");
            assertEquals(1, f.closed.get());
        }
    }

    @Test
    void aFailureStopsTheProbesWithTheTransportsOneLineCause() throws Exception {
        List<Fake> opened = new ArrayList<>();
        List<EndpointProbes.Probe> found = run(factory(opened, n -> n < 3
                ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(new IllegalStateException("403 AccessDenied"))),
                endpoints("http://a:1"), 5, Duration.ofSeconds(5));
        EndpointProbes.Probe p = found.getFirst();
        assertEquals(3, p.attempted(), "requests 1 and 2 measured, 3 failed");
        assertEquals(2, p.ok());
        assertEquals("down", p.state());
        assertEquals("HeadBucket of s3://bkt/probe: 403 AccessDenied (detail)", p.cause());
        assertEquals(S3Transport.FailureKind.REQUEST, p.kind());
        assertEquals(4, opened.getFirst().calls.get());
        assertEquals(1, opened.getFirst().closed.get());
        assertEquals(1, p.statistics().errors());
        assertEquals(1, p.statistics().markedDown());
    }

    @Test
    void aTransportThatThrowsOrNeverAnswersOrCannotOpenIsDown() throws Exception {
        List<Fake> opened = new ArrayList<>();
        List<EndpointProbes.Probe> thrown = run(factory(opened, n -> {
            throw new IllegalArgumentException("bad bucket for this client");
        }), endpoints("http://a:1"), 5, Duration.ofSeconds(5));
        assertEquals("HeadBucket of s3://bkt/probe: bad bucket for this client (detail)", thrown.getFirst().cause());
        assertEquals(1, thrown.getFirst().attempted());
        assertEquals(0, thrown.getFirst().ok());

        List<EndpointProbes.Probe> silent = run(factory(opened, n -> new CompletableFuture<>()),
                endpoints("http://slow:9000"), 5, Duration.ofSeconds(1));
        assertEquals("HeadBucket of s3://bkt at http://slow:9000: no answer within 1 s", silent.getFirst().cause());
        assertEquals(S3Transport.FailureKind.ENDPOINT, silent.getFirst().kind());

        List<EndpointProbes.Probe> unopened = run(factory(opened, n -> null),
                endpoints("http://ca:666"), 5, Duration.ofSeconds(1));
        assertEquals("cannot create the fake client for http://ca:666: unreadable CA bundle", unopened.getFirst().cause());
        assertEquals(0, unopened.getFirst().attempted());
    }

    @Test
    void percentilesAreNearestRank() {
        EndpointProbes.Probe p = new EndpointProbes.Probe("e", 10, 10,
                List.of(5.0, 1.0, 9.0, 3.0, 7.0, 2.0, 8.0, 4.0, 10.0, 6.0), null, null);
        assertEquals(5.0, p.percentile(0.50));
        assertEquals(10.0, p.percentile(0.99));
        assertEquals(1.0, p.percentile(0.0));
        EndpointProbes.Probe none = new EndpointProbes.Probe("e", 1, 0, List.of(), "down", null);
        assertEquals(0.0, none.percentile(0.99));
        assertEquals(0.0, none.statistics().p50Millis());
    }
}
