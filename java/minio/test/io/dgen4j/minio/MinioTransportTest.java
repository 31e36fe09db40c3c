package io.dgen4j.minio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.spi.S3Transport;
import io.dgen4j.s3.spi.S3Transport.FailureKind;
import io.dgen4j.s3.spi.S3Transport.ObjectHead;
import io.dgen4j.s3.spi.S3Transport.UploadedPart;
import io.dgen4j.s3.UntrustedTlsServer;
import io.minio.GetObjectArgs;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Every call of {@link MinioTransport}, one at a time, against a real S3 server (s3proxy). */
class MinioTransportTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();
    private static final int MIB = 1 << 20;
    private static final MinioTransportFactory FACTORY = new MinioTransportFactory(MinioOptions.defaults(), MinioClients.concurrency(64));
    private static RawMinio raw;
    private static S3Transport t;

    @BeforeAll
    static void open() throws IOException {
        raw = new RawMinio(S3);
        t = FACTORY.open(S3.settings());
    }

    @AfterAll
    static void close() {
        t.close();
        raw.close();
    }

    private static S3Location at(String key) {
        return new S3Location(S3.bucket(), key);
    }

    private static MemorySegment random(Arena arena, int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        MemorySegment s = arena.allocate(size, 4096);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, size);
        return s;
    }

    private static byte[] get(String key) throws IOException {
        try (InputStream in = raw.client.getObject(GetObjectArgs.builder().bucket(S3.bucket()).object(key).build())
                .join()) {
            return in.readAllBytes();
        }
    }

    /** The failure a future completed with, as the transport's caller sees it (unwrapped). */
    private static Throwable failure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        Throwable c = e;
        while (c instanceof CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    @Test
    void theFactoryIsFoundByTheServiceLoaderUnderTheBackendsName() {
        List<String> names = io.dgen4j.s3.S3StorageProvider.clients().stream()
                .map(c -> c.transports(io.dgen4j.storage.StorageOptions.empty(), 0).backend()).toList();
        assertTrue(names.contains("minio"), names.toString());
        assertEquals(S3.endpoint().toString(), t.endpoint());
        assertEquals("minio transport to " + S3.endpoint(), t.toString());
    }

    @Test
    void aMultipartUploadRoundTripsItsBytesAndMetadata() throws IOException {
        S3Location where = at("mpu/round-trip.bin");
        Map<String, String> meta = Map.of("dgen4j-manifest", "{\"size\":6291459}", "owner", "test");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment whole = random(arena, 6 * MIB + 3, 7);
            MemorySegment first = whole.asSlice(0, 5 * MIB);
            MemorySegment second = whole.asSlice(5 * MIB);
            t.headBucket(S3.bucket()).join();
            String id = t.createMultipartUpload(where, meta).join();
            assertNotNull(id);
            assertTrue(t.uploadListed(where, id).join(), "a new upload is listed");
            // sent out of order, completed in order
            CompletableFuture<UploadedPart> p2 = t.uploadPart(where, id, 2, second);
            CompletableFuture<UploadedPart> p1 = t.uploadPart(where, id, 1, first);
            UploadedPart u1 = p1.join();
            UploadedPart u2 = p2.join();
            assertEquals(1, u1.number());
            assertEquals(2, u2.number());
            assertFalse(u1.etag().isEmpty());
            assertEquals(crc32c(first), u1.checksum(), "the CRC32C sent with the part");
            assertEquals(crc32c(second), u2.checksum());
            t.completeMultipartUpload(where, id, List.of(u1, u2)).join();
            assertFalse(t.uploadListed(where, id).join(), "a completed upload is no longer listed");
            assertArrayEquals(whole.toArray(ValueLayout.JAVA_BYTE), get(where.key()));
            ObjectHead h = t.headObject(where).join().orElseThrow();
            assertEquals(6L * MIB + 3, h.size());
            assertEquals(meta, h.metadata());
            assertTrue(h.etag().contains("-2"), "a two-part upload's ETag: " + h.etag());
        }
    }

    @Test
    void theFullChecksumModeSendsNoChecksumOfItsOwn() throws IOException {
        S3Location where = at("mpu/full.bin");
        try (S3Transport full = FACTORY.open(S3.settings().toBuilder().checksumMode(S3Settings.ChecksumMode.FULL)
                .build()); Arena arena = Arena.ofShared()) {
            MemorySegment body = random(arena, MIB + 5, 8);
            String id = full.createMultipartUpload(where, Map.of()).join();
            UploadedPart p = full.uploadPart(where, id, 1, body).join();
            assertNull(p.checksum());
            full.completeMultipartUpload(where, id, List.of(p)).join();
            assertArrayEquals(body.toArray(ValueLayout.JAVA_BYTE), get(where.key()));
        }
    }

    @Test
    void anAbortedUploadIsNoLongerListedAndAbortingAgainIsFine() {
        S3Location where = at("mpu/aborted.bin");
        try (Arena arena = Arena.ofShared()) {
            String id = t.createMultipartUpload(where, Map.of()).join();
            t.uploadPart(where, id, 1, random(arena, 5 * MIB, 9)).join();
            assertTrue(t.uploadListed(where, id).join());
            t.abortMultipartUpload(where, id).join();
            assertFalse(t.uploadListed(where, id).join());
            assertEquals(List.of(), raw.uploads(S3.bucket(), where.key()));
            t.abortMultipartUpload(where, id).join(); // NoSuchUpload completes normally
            assertEquals(Optional.empty(), t.headObject(where).join(), "nothing was stored");
        }
    }

    @Test
    void anEmptyPutKeepsItsMetadata() {
        S3Location where = at("empty.bin");
        Map<String, String> meta = Map.of("dgen4j-manifest", "{\"size\":0}");
        t.putObject(where, meta, MemorySegment.NULL).join();
        ObjectHead h = t.headObject(where).join().orElseThrow();
        assertEquals(0, h.size());
        assertEquals(meta, h.metadata());
        assertEquals(0L, raw.head(S3.bucket(), "empty.bin").size());
    }

    @Test
    void headObjectIsEmptyForAMissingObjectAndDeleteRemovesOne() {
        S3Location where = at("to-delete.bin");
        assertEquals(Optional.empty(), t.headObject(at("never-written.bin")).join());
        t.putObject(where, Map.of(), MemorySegment.ofArray("abc".getBytes(StandardCharsets.UTF_8))).join();
        assertEquals(3, t.headObject(where).join().orElseThrow().size());
        t.deleteObject(where).join();
        assertEquals(Optional.empty(), t.headObject(where).join());
        assertNull(raw.head(S3.bucket(), where.key()));
        t.deleteObject(where).join(); // a missing object completes normally
    }

    @Test
    void aRangedGetReadsItsBytesOnlyWhileTheEtagMatches() {
        S3Location where = at("ranged.bin");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment whole = random(arena, 3 * MIB + 100, 10);
            t.putObject(where, Map.of(), whole).join();
            String etag = t.headObject(where).join().orElseThrow().etag();
            MemorySegment dst = arena.allocate(MIB + 4096, 4096);
            assertEquals(MIB + 4096, t.getRange(where, 4096, dst, etag).join());
            assertEquals(whole.asSlice(4096, MIB + 4096).mismatch(dst), -1);
            // fewer bytes at the object's end
            MemorySegment tail = arena.allocate(MIB, 4096);
            assertEquals(100, t.getRange(where, 3L * MIB, tail, etag).join());
            assertEquals(whole.asSlice(3L * MIB, 100).mismatch(tail.asSlice(0, 100)), -1);
            // without an ETag, no condition
            assertEquals(MIB, t.getRange(where, 0, tail, null).join());
            assertEquals(whole.asSlice(0, MIB).mismatch(tail), -1);
            // a replaced object: the old ETag is refused by the server
            Throwable e = failure(t.getRange(where, 0, tail, "\"0123456789abcdef0123456789abcdef\""));
            assertEquals(FailureKind.CHANGED, t.classify(e));
            String line = t.describe("GetObject bytes=0-1048575", where, e).getMessage();
            assertTrue(line.contains("HTTP 412"), line);
            assertTrue(line.startsWith("GetObject bytes=0-1048575 of " + where + " at " + S3.endpoint()), line);
        }
    }

    @Test
    void aDeadEndpointIsTheEndpointsFault() throws IOException {
        assertThrows(java.net.ConnectException.class, () -> new java.net.Socket("127.0.0.1", 1).close(),
                "something listens on 127.0.0.1:1");
        URI dead = URI.create("http://127.0.0.1:1");
        try (S3Transport d = FACTORY.open(S3.settings().toBuilder().endpoint(dead).build())) {
            assertEquals(dead.toString(), d.endpoint());
            S3Location where = at("dead.bin");
            for (CompletableFuture<?> f : List.of(d.headBucket(S3.bucket()), d.createMultipartUpload(where, Map.of()),
                    d.headObject(where))) {
                Throwable e = failure(f);
                assertEquals(FailureKind.ENDPOINT, d.classify(e), e.toString());
                IOException io = d.describe("HeadBucket", where, e);
                assertEquals(oneLine(io), io.getMessage());
                assertTrue(io.getMessage().startsWith("HeadBucket of " + where + ": cannot connect to the S3 endpoint "
                        + dead), io.getMessage());
                assertSame(e, io.getCause());
            }
        }
    }

    @Test
    void aMissingBucketIsTheRequestsFault() {
        S3Location where = new S3Location("no-such-bucket-here", "k.bin");
        Throwable head = failure(t.headBucket(where.bucket()));
        assertEquals(FailureKind.REQUEST, t.classify(head));
        Throwable create = failure(t.createMultipartUpload(where, Map.of()));
        assertEquals(FailureKind.REQUEST, t.classify(create));
        assertEquals("bucket no-such-bucket-here does not exist at " + S3.endpoint(),
                t.describe("CreateMultipartUpload", where, create).getMessage());
    }

    @Test
    void badCredentialsAreTheRequestsFaultAndNoSecretIsShown() throws IOException {
        String wrong = "wrong-SECRET-n3v3rpr1nt-0b8e";
        try (S3Transport bad = FACTORY.open(S3.settings().toBuilder()
                .credentials(S3ProxyExtension.ACCESS_KEY, wrong, null).build())) {
            S3Location where = at("bad-creds.bin");
            Throwable e = failure(bad.createMultipartUpload(where, Map.of()));
            assertEquals(FailureKind.REQUEST, bad.classify(e));
            String line = bad.describe("CreateMultipartUpload", where, e).getMessage();
            assertTrue(line.startsWith("CreateMultipartUpload of " + where + ": " + S3.endpoint()
                    + " refused the credentials (access key dgen****, from settings) with HTTP 403"), line);
            assertFalse(line.contains(wrong), line);
            assertFalse(line.contains(S3ProxyExtension.SECRET_KEY), line);
        }
    }

    @Test
    void aTlsFailureIsTheEndpointsFault(@TempDir Path dir) throws Exception {
        try (UntrustedTlsServer tls = new UntrustedTlsServer(dir);
             S3Transport d = FACTORY.open(S3.settings().toBuilder().endpoint(tls.endpoint()).build())) {
            S3Location where = at("tls.bin");
            Throwable e = failure(d.headBucket(S3.bucket()));
            assertEquals(FailureKind.ENDPOINT, d.classify(e), e.toString());
            String line = d.describe("HeadBucket", where, e).getMessage();
            assertTrue(line.contains("TLS with " + tls.endpoint() + " failed"), line);
        }
    }

    @Test
    void aServerErrorIsTheEndpointsFaultWithItsCodeAndMessage() throws IOException {
        // a gateway whose backend is down: every request is answered 503 SlowDown (S3's XML error)
        AtomicInteger requests = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", x -> {
            requests.incrementAndGet();
            x.getRequestBody().readAllBytes();
            byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
                    + "<Message>Please reduce your request rate.</Message><RequestId>r1</RequestId></Error>")
                    .getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/xml");
            x.sendResponseHeaders(503, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        try (S3Transport d = FACTORY.open(S3.settings().toBuilder().endpoint(endpoint).build())) {
            S3Location where = at("busy.bin");
            Throwable e = failure(d.createMultipartUpload(where, Map.of()));
            assertEquals(FailureKind.ENDPOINT, d.classify(e), e.toString());
            String line = d.describe("CreateMultipartUpload", where, e).getMessage();
            assertEquals("CreateMultipartUpload of " + where + " at " + endpoint + " failed: HTTP 503 SlowDown: Please "
                    + "reduce your request rate.", line);
            assertTrue(requests.get() >= 1);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aSegmentBodyStreamsTheSegmentFromItsFirstByteEveryTime() throws IOException {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment seg = arena.allocate(3 * 8192 + 5);
            for (long i = 0; i < seg.byteSize(); i++) {
                seg.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            SegmentBody body = new SegmentBody(seg);
            assertEquals(seg.byteSize(), body.length());
            byte[] want = seg.toArray(ValueLayout.JAVA_BYTE);
            // OkHttp may send a request again: each stream starts over and yields the same bytes
            for (int round = 0; round < 2; round++) {
                try (java.io.InputStream in = body.inputStream()) {
                    assertEquals(want[0] & 0xff, in.read());
                    byte[] rest = in.readAllBytes();
                    assertEquals(want.length - 1, rest.length);
                    assertArrayEquals(java.util.Arrays.copyOfRange(want, 1, want.length), rest);
                    assertEquals(-1, in.read());
                    assertEquals(-1, in.read(new byte[4], 0, 4));
                }
            }
            assertThrows(UnsupportedOperationException.class, () -> body.write(1));
        }
    }

    @Test
    void describeIsOneLineNamingOperationObjectEndpointAndCause() {
        S3Location where = at("missing-upload.bin");
        Throwable e = failure(t.completeMultipartUpload(where, "no-such-upload-id",
                List.of(new UploadedPart(1, "\"abc\"", null))));
        assertEquals(FailureKind.REQUEST, t.classify(e));
        IOException io = t.describe("CompleteMultipartUpload", where, e);
        String line = io.getMessage();
        assertEquals(oneLine(io), line);
        assertTrue(line.startsWith("CompleteMultipartUpload of " + where + " at " + S3.endpoint() + " failed: HTTP 404 "
                + "NoSuchUpload"), line);
        assertFalse(line.contains(S3ProxyExtension.SECRET_KEY), line);
        assertSame(e, io.getCause());
    }

    private static String oneLine(IOException e) {
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        return e.getMessage();
    }

    private static String crc32c(MemorySegment s) {
        CRC32C c = new CRC32C();
        c.update(s.asByteBuffer());
        int v = (int) c.getValue();
        return java.util.Base64.getEncoder().encodeToString(java.nio.ByteBuffer.allocate(4).putInt(v).array());
    }
}
