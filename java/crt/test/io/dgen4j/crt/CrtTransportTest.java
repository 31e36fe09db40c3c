package io.dgen4j.crt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Timeouts;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3Transport.FailureKind;
import io.dgen4j.s3.spi.S3Transport.ObjectHead;
import io.dgen4j.s3.spi.S3Transport.UploadedPart;
import io.dgen4j.s3.FaultProxy;
import io.dgen4j.s3.S3StorageProvider;
import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.s3.UntrustedTlsServer;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Every call of {@link CrtTransport}, one request each, against a real s3proxy on 127.0.0.1: the
 * bytes that arrive are read back (ranged GETs) and compared with the server's own file, and
 * failures are classified from what the CRT really reports (a dead port, a connection the server
 * closes, a TLS handshake that fails, a missing bucket, an ETag that no longer matches).
 */
class CrtTransportTest {
    private static final int PART = 5 << 20;

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static S3Transport transport;

    @BeforeAll
    static void open() throws IOException {
        transport = factory().open(S3.settings());
    }

    @AfterAll
    static void close() {
        if (transport != null) {
            transport.close();
        }
    }

    /** The crt factory, found through the service loader like the driver finds it. */
    private static S3TransportFactory factory() {
        List<S3TransportFactory> found = S3StorageProvider.clients().stream().filter(c -> c.name().equals("crt"))
                .map(c -> c.transports(StorageOptions.empty(), 0)).toList();
        assertEquals(1, found.size(), "crt clients registered");
        return found.getFirst();
    }

    private static S3Location at(String key) {
        return S3Location.of(StorageTarget.parse("s3://" + S3.bucket() + "/" + key));
    }

    private static Path serverFile(String key) {
        return S3.dataDir().resolve(S3.bucket()).resolve(key);
    }

    private static MemorySegment random(Arena arena, long size, long seed) {
        byte[] b = new byte[(int) size];
        new Random(seed).nextBytes(b);
        MemorySegment s = arena.allocate(size, 4096);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The failure a future completed with, unwrapped. */
    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(120, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static void assertOneLine(String message) {
        assertFalse(message.contains("\n") || message.contains("\r"), "not one line: " + message);
        assertFalse(message.contains(S3ProxyExtension.SECRET_KEY), "the secret was printed: " + message);
    }

    @Test
    void theEndpointIsTheOneConfigured() {
        assertEquals(S3.endpoint().toString(), transport.endpoint());
        assertTrue(transport.toString().contains(S3.endpoint().toString()), transport.toString());
    }

    @Test
    void aMultipartUploadRoundTripsItsBytesAndMetadata() throws Exception {
        String key = "t/multipart.bin";
        S3Location where = at(key);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment data = random(arena, 2L * PART + 1234, 1);
            transport.headBucket(S3.bucket()).get();
            String id = transport.createMultipartUpload(where, Map.of("dgen4j-test", "v1")).get();
            assertTrue(transport.uploadListed(where, id).get());
            // part 2 first: parts may arrive in any order
            UploadedPart p2 = transport.uploadPart(where, id, 2, data.asSlice(PART, PART)).get();
            UploadedPart p1 = transport.uploadPart(where, id, 1, data.asSlice(0, PART)).get();
            UploadedPart p3 = transport.uploadPart(where, id, 3, data.asSlice(2L * PART, 1234)).get();
            assertEquals(List.of(1, 2, 3), List.of(p1.number(), p2.number(), p3.number()));
            assertNotNull(p1.etag());
            transport.completeMultipartUpload(where, id, List.of(p1, p2, p3)).get();
            assertFalse(transport.uploadListed(where, id).get());

            assertArrayEquals(bytes(data), Files.readAllBytes(serverFile(key)), "the server's file");
            ObjectHead head = transport.headObject(where).get().orElseThrow();
            assertEquals(data.byteSize(), head.size());
            assertEquals("v1", head.metadata().get("dgen4j-test"));
            MemorySegment back = arena.allocate(data.byteSize(), 4096);
            assertEquals(data.byteSize(), transport.getRange(where, 0, back, head.etag()).get());
            assertArrayEquals(bytes(data), bytes(back));
        }
    }

    /** The CRT refuses a throughput monitor under 2 s: one-second waits still make a working client. */
    @Test
    void oneSecondTimeoutsMakeAWorkingClient() throws Exception {
        S3Settings quick = S3.settings().toBuilder()
                .timeouts(S3Timeouts.parse("first-byte=1s,idle=1s", "--s3-timeouts", S3Timeouts.DEFAULTS)).build();
        try (S3Transport t = factory().open(quick)) {
            t.headBucket(S3.bucket()).get();
            assertTrue(t.headObject(at("t/absent.bin")).get().isEmpty());
        }
    }

    @Test
    void fullChecksumsSendCrc32WithEveryPartAndTheCompletion() throws Exception {
        String key = "t/full-checksums.bin";
        S3Location where = at(key);
        S3Settings full = S3.settings().toBuilder().checksumMode(S3Settings.ChecksumMode.FULL).build();
        try (S3Transport t = factory().open(full); Arena arena = Arena.ofShared()) {
            assertTrue(t.toString().contains("checksums full"), t.toString());
            MemorySegment data = random(arena, PART + 77L, 2);
            String id = t.createMultipartUpload(where, Map.of()).get();
            List<UploadedPart> parts = new ArrayList<>();
            parts.add(t.uploadPart(where, id, 1, data.asSlice(0, PART)).get());
            parts.add(t.uploadPart(where, id, 2, data.asSlice(PART, 77)).get());
            t.completeMultipartUpload(where, id, parts).get();
            assertArrayEquals(bytes(data), Files.readAllBytes(serverFile(key)));
        }
    }

    /**
     * s3proxy sends no part checksums back, so this runs against a minimal S3 of our own on
     * 127.0.0.1 that does: the completion must list each part's CRC32 even when its caller (the
     * driver) passes the parts without, and the parts must have carried one.
     */
    @Test
    void fullChecksumsListEveryPartsCrc32InTheCompletionEvenWhenTheCallerDropsThem() throws Exception {
        List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
        StringBuilder completion = new StringBuilder();
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", x -> {
            String q = x.getRequestURI().getRawQuery() == null ? "" : x.getRequestURI().getRawQuery();
            byte[] body = x.getRequestBody().readAllBytes();
            // the part's CRC32 goes in a header, or as the trailer of an aws-chunked body
            requests.add(x.getRequestMethod() + " " + q + " " + x.getRequestHeaders().entrySet().stream()
                    .filter(h -> h.getKey().toLowerCase(java.util.Locale.ROOT).matches(".*(checksum|trailer).*"))
                    .map(h -> h.getKey().toLowerCase(java.util.Locale.ROOT) + "=" + h.getValue()).sorted().toList()
                    + (new String(body, java.nio.charset.StandardCharsets.ISO_8859_1).contains("x-amz-checksum-crc32:")
                    ? " trailer x-amz-checksum-crc32" : ""));
            String answer = "";
            if (q.equals("uploads")) {
                answer = "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>u-1</UploadId>"
                        + "</InitiateMultipartUploadResult>";
            } else if (q.contains("partNumber=")) {
                String n = q.replaceAll(".*partNumber=(\\d+).*", "$1");
                x.getResponseHeaders().add("ETag", "\"etag-" + n + "\"");
                x.getResponseHeaders().add("x-amz-checksum-crc32", "crc-of-part-" + n);
            } else if (q.startsWith("uploadId=")) {
                completion.append(new String(body, java.nio.charset.StandardCharsets.UTF_8));
                answer = "<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><ETag>\"etag-2\"</ETag>"
                        + "</CompleteMultipartUploadResult>";
            }
            byte[] out = answer.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/xml");
            x.sendResponseHeaders(200, out.length == 0 ? -1 : out.length);
            x.getResponseBody().write(out);
            x.close();
        });
        server.start();
        try {
            S3Settings full = S3.settings().toBuilder().checksumMode(S3Settings.ChecksumMode.FULL)
                    .endpoint(URI.create("http://127.0.0.1:" + server.getAddress().getPort())).build();
            S3Location where = S3Location.of(StorageTarget.parse("s3://bkt/k"));
            try (S3Transport t = factory().open(full); Arena arena = Arena.ofShared()) {
                String id = t.createMultipartUpload(where, Map.of()).get();
                assertEquals("u-1", id);
                UploadedPart p1 = t.uploadPart(where, id, 1, random(arena, 4096, 12)).get();
                UploadedPart p2 = t.uploadPart(where, id, 2, random(arena, 100, 13)).get();
                assertEquals(new UploadedPart(1, "\"etag-1\"", "crc-of-part-1"), p1);
                assertEquals(new UploadedPart(2, "\"etag-2\"", "crc-of-part-2"), p2);
                // the driver completes with ETags only
                t.completeMultipartUpload(where, id, List.of(new UploadedPart(1, p1.etag(), null),
                        new UploadedPart(2, p2.etag(), null))).get();
            }
            String c = completion.toString();
            assertTrue(c.contains("<ChecksumCRC32>crc-of-part-1</ChecksumCRC32>")
                    && c.contains("<ChecksumCRC32>crc-of-part-2</ChecksumCRC32>"), c);
            List<String> parts = requests.stream().filter(r -> r.startsWith("PUT ")).toList();
            assertEquals(2, parts.size(), "" + requests);
            for (String r : parts) {
                assertTrue(r.contains("x-amz-checksum-crc32"), "the part carried its CRC32: " + requests);
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void anAbortedUploadIsNoLongerListedAndASecondAbortIsFine() throws Exception {
        S3Location where = at("t/aborted.bin");
        try (Arena arena = Arena.ofShared()) {
            String id = transport.createMultipartUpload(where, Map.of()).get();
            transport.uploadPart(where, id, 1, random(arena, PART, 3)).get();
            assertTrue(transport.uploadListed(where, id).get());
            transport.abortMultipartUpload(where, id).get();
            assertFalse(transport.uploadListed(where, id).get());
            transport.abortMultipartUpload(where, id).get(); // gone already: completes normally
            assertEquals(Optional.empty(), transport.headObject(where).get());
        }
        // another key that starts with this one does not count as this upload
        S3Location longer = at("t/aborted.bin.more");
        String other = transport.createMultipartUpload(longer, Map.of()).get();
        assertFalse(transport.uploadListed(where, other).get());
        assertTrue(transport.uploadListed(longer, other).get());
        transport.abortMultipartUpload(longer, other).get();
    }

    @Test
    void anEmptyObjectIsOnePutWithItsMetadata() throws Exception {
        String key = "t/empty.bin";
        S3Location where = at(key);
        transport.putObject(where, Map.of("dgen4j-manifest", "{\"n\":0}"), MemorySegment.ofArray(new byte[0])).get();
        assertEquals(0, Files.size(serverFile(key)));
        ObjectHead head = transport.headObject(where).get().orElseThrow();
        assertEquals(0, head.size());
        assertEquals("{\"n\":0}", head.metadata().get("dgen4j-manifest"));
        assertNotNull(head.etag());
    }

    @Test
    void aPutFromAConfinedSegmentSendsItsBytes() throws Exception {
        String key = "t/put-confined.bin";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = random(arena, 10_000, 4);
            transport.putObject(at(key), Map.of(), data).get();
            assertArrayEquals(bytes(data), Files.readAllBytes(serverFile(key)));
        }
    }

    @Test
    void headObjectOfAMissingObjectIsEmptyAndDeleteRemovesTheObject() throws Exception {
        String key = "t/deleted.bin";
        S3Location where = at(key);
        assertEquals(Optional.empty(), transport.headObject(where).get());
        try (Arena arena = Arena.ofShared()) {
            transport.putObject(where, Map.of(), random(arena, 4096, 5)).get();
        }
        assertTrue(Files.exists(serverFile(key)));
        assertEquals(4096, transport.headObject(where).get().orElseThrow().size());
        transport.deleteObject(where).get();
        assertFalse(Files.exists(serverFile(key)), "the server's file after DeleteObject");
        assertEquals(Optional.empty(), transport.headObject(where).get());
        transport.deleteObject(where).get(); // missing: completes normally
    }

    @Test
    void getRangeReadsTheRangeAskedForAndFewerAtTheEnd() throws Exception {
        String key = "t/ranges.bin";
        S3Location where = at(key);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment data = random(arena, 3 * 4096 + 100, 6);
            transport.putObject(where, Map.of(), data).get();
            String etag = transport.headObject(where).get().orElseThrow().etag();

            MemorySegment mid = arena.allocate(4096, 4096);
            assertEquals(4096, transport.getRange(where, 4096, mid, etag).get());
            assertArrayEquals(bytes(data.asSlice(4096, 4096)), bytes(mid));

            MemorySegment tail = arena.allocate(8192, 4096);
            assertEquals(4196, transport.getRange(where, 2 * 4096, tail, etag).get(), "bytes at the object's end");
            assertArrayEquals(bytes(data.asSlice(2 * 4096, 4196)), bytes(tail.asSlice(0, 4196)));
        }
    }

    @Test
    void getRangeIntoAConfinedSegmentIsRefusedBeforeAnyRequest() throws Exception {
        S3Location where = at("t/confined-read.bin");
        try (Arena confined = Arena.ofConfined()) {
            // the CRT's threads could not write into it: refused at once (the driver reads through a shared one)
            Throwable e = failure(transport.getRange(where, 0, confined.allocate(4096, 4096), null));
            assertTrue(e instanceof IllegalArgumentException && e.getMessage().contains("confined to one thread"),
                    "" + e);
            assertEquals(FailureKind.REQUEST, transport.classify(e));
        }
    }

    @Test
    void getRangeWithAnETagThatNoLongerMatchesIsRefusedAsAChangedObject() throws Exception {
        S3Location where = at("t/replaced.bin");
        try (Arena arena = Arena.ofShared()) {
            transport.putObject(where, Map.of(), random(arena, 8192, 8)).get();
            String old = transport.headObject(where).get().orElseThrow().etag();
            transport.putObject(where, Map.of(), random(arena, 8192, 9)).get();
            String now = transport.headObject(where).get().orElseThrow().etag();
            assertFalse(old.equals(now), "a new object has a new ETag");

            MemorySegment dst = arena.allocate(4096, 4096);
            Throwable e = failure(transport.getRange(where, 0, dst, old));
            assertEquals(FailureKind.CHANGED, transport.classify(e));
            String m = transport.describe("GetObject", where, e).getMessage();
            assertTrue(m.contains("HTTP 412"), m);
            assertOneLine(m);
            assertEquals(4096, transport.getRange(where, 0, dst, now).get());
        }
    }

    @Test
    void aMissingBucketIsTheRequestsFaultWithStatusAndCode() throws Exception {
        S3Location where = S3Location.of(StorageTarget.parse("s3://no-such-bucket-dgen4j/k.bin"));
        Throwable head = failure(transport.headBucket("no-such-bucket-dgen4j"));
        assertEquals(FailureKind.REQUEST, transport.classify(head));
        Throwable create = failure(transport.createMultipartUpload(where, Map.of()));
        assertEquals(FailureKind.REQUEST, transport.classify(create));
        // the exception as a caller of get() or join() sees it, wrappers and all
        assertEquals(FailureKind.REQUEST, transport.classify(new CompletionException(create)));
        String m = transport.describe("CreateMultipartUpload", where, create).getMessage();
        // in every client's words (S3Errors.noSuchBucket)
        assertEquals("bucket no-such-bucket-dgen4j does not exist at " + S3.endpoint(), m);
        assertOneLine(m);
        String h = transport.describe("HeadBucket", where, head).getMessage();
        assertEquals("bucket no-such-bucket-dgen4j does not exist at " + S3.endpoint(), h);
        // another 404 is not taken for a missing bucket
        Throwable part = failure(transport.getRange(at("t/absent.bin"), 0, MemorySegment.ofArray(new byte[16]), null));
        assertEquals(FailureKind.REQUEST, transport.classify(part));
        String g = transport.describe("GetObject", at("t/absent.bin"), part).getMessage();
        assertTrue(g.startsWith("GetObject of s3://" + S3.bucket() + "/t/absent.bin at " + S3.endpoint()
                + " failed: HTTP 404 NoSuchKey"), g);
    }

    @Test
    void aDeadEndpointIsTheEndpointsFault() throws Exception {
        // Port 1 (tcpmux): nothing listens there, and outside the ephemeral range a connect to it
        // can never meet itself.
        assertThrows(java.net.ConnectException.class, () -> new Socket("127.0.0.1", 1).close(),
                "something listens on 127.0.0.1:1");
        S3Settings dead = S3.settings().toBuilder().endpoint(URI.create("http://127.0.0.1:1")).build();
        try (S3Transport t = factory().open(dead)) {
            assertEquals("http://127.0.0.1:1", t.endpoint());
            Throwable e = failure(t.headBucket(S3.bucket()));
            assertEquals(FailureKind.ENDPOINT, t.classify(e), "" + e);
            Throwable put = failure(t.putObject(at("t/dead.bin"), Map.of(), MemorySegment.ofArray(new byte[0])));
            assertEquals(FailureKind.ENDPOINT, t.classify(put), "" + put);
            String m = t.describe("PutObject", at("t/dead.bin"), put).getMessage();
            System.out.println("crt transport, dead endpoint: " + m);
            assertTrue(m.startsWith("PutObject of s3://" + S3.bucket() + "/t/dead.bin: cannot connect to the S3 "
                    + "endpoint http://127.0.0.1:1: socket connection refused"), m);
            assertOneLine(m);
        }
    }

    @Test
    void aConnectionTheServerClosesIsTheEndpointsFault() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            Thread closer = Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        server.accept().close(); // accepted, then closed without an answer
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            S3Settings closing = S3.settings().toBuilder()
                    .endpoint(URI.create("http://127.0.0.1:" + server.getLocalPort())).build();
            try (S3Transport t = factory().open(closing)) {
                Throwable e = failure(t.headObject(at("t/closed.bin")));
                assertEquals(FailureKind.ENDPOINT, t.classify(e), "" + e);
                String m = t.describe("HeadObject", at("t/closed.bin"), e).getMessage();
                System.out.println("crt transport, connection closed: " + m);
                assertTrue(m.startsWith("HeadObject of s3://" + S3.bucket() + "/t/closed.bin at http://127.0.0.1:"
                        + server.getLocalPort() + " failed: the connection broke: "), m);
                assertOneLine(m);
            }
            server.close();
            closer.join(5000);
        }
    }

    /**
     * A certificate the CRT refuses. Slow (about a minute here) and not for our want of trying: s2n
     * delays the close after a failed handshake by 10 to 30 s (its "blinding" against timing attacks,
     * seen in the CRT's debug log as the delayed write-direction shutdown), and the CRT tries three
     * times.
     */
    @Test
    void aFailedTlsHandshakeIsTheEndpointsFault(@TempDir Path dir) throws Exception {
        try (UntrustedTlsServer tls = new UntrustedTlsServer(dir)) {
            S3Settings untrusted = S3.settings().toBuilder().endpoint(tls.endpoint()).build();
            try (S3Transport t = factory().open(untrusted)) {
                Throwable e = failure(t.headBucket(S3.bucket()));
                assertEquals(FailureKind.ENDPOINT, t.classify(e), "" + e);
                String m = t.describe("HeadBucket", at("x"), e).getMessage();
                System.out.println("crt transport, TLS failure: " + m);
                assertTrue(m.startsWith("HeadBucket of s3://" + S3.bucket() + "/x: TLS with " + tls.endpoint()
                        + " failed: TLS (SSL) negotiation failed"), m);
                assertTrue(m.contains("trusts only the system's CA file"), m);
                assertOneLine(m);
            }
        }
    }

    @Test
    void serverErrorsAndTimeoutsAreTheEndpointsFaultOtherAnswersTheRequests() {
        // s3proxy cannot be made to answer 5xx on demand: these are the exceptions the SDK builds for them
        S3Exception unavailable = (S3Exception) S3Exception.builder().statusCode(503).message("Slow Down").build();
        assertEquals(FailureKind.ENDPOINT, transport.classify(unavailable));
        S3Exception internal = (S3Exception) S3Exception.builder().statusCode(500).build();
        assertEquals(FailureKind.ENDPOINT, transport.classify(new CompletionException(internal)));
        assertEquals(FailureKind.ENDPOINT, transport.classify(ApiCallAttemptTimeoutException.create(1000)));
        S3Exception denied = (S3Exception) S3Exception.builder().statusCode(403).build();
        assertEquals(FailureKind.REQUEST, transport.classify(denied));
        assertEquals(FailureKind.REQUEST, transport.classify(SdkClientException.create("Unable to marshall request")));
        assertEquals(FailureKind.REQUEST, transport.classify(new java.util.concurrent.CancellationException()));
    }

    @Test
    void describeNamesTheOperationObjectEndpointAndCause() throws Exception {
        S3Location where = at("t/described.bin");
        // part 1 of every upload is refused (HTTP 400) by a fault proxy before the server
        try (FaultProxy p = FaultProxy.start(S3.endpoint());
             S3Transport t = CrtTransport.open(p.settings(S3.settings()), 1); Arena arena = Arena.ofShared()) {
            p.inject(FaultProxy.Match.uploadPart(1), FaultProxy.Fault.status(400), 1, FaultProxy.EVERY);
            String id = t.createMultipartUpload(where, Map.of()).get();
            Throwable e = failure(t.uploadPart(where, id, 1, random(arena, 4096, 10)));
            assertEquals(FailureKind.REQUEST, t.classify(e));
            IOException d = t.describe("UploadPart 1 (bytes 0..4096)", where, e);
            assertTrue(d.getMessage().startsWith("UploadPart 1 (bytes 0..4096) of s3://" + S3.bucket()
                    + "/t/described.bin at " + p.endpoint() + " failed: HTTP 400"), d.getMessage());
            assertOneLine(d.getMessage());
            assertTrue(d.getCause() instanceof S3Exception, "the client's exception is the cause: " + d.getCause());
            // part 2 is not spoiled
            assertNotNull(t.uploadPart(where, id, 2, random(arena, 4096, 11)).get().etag());
            t.abortMultipartUpload(where, id).get();
            assertFalse(t.uploadListed(where, id).get());
        }
    }
}
