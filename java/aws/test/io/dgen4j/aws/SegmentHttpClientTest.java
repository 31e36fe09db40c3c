package io.dgen4j.aws;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.gen.NodeBuffers;
import io.dgen4j.nativelib.NativeLibrary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * {@link SegmentHttpClient} against a small HTTP/1.1 server on loopback that records what it is
 * sent and answers as each test says: the bytes and headers the SDK's part upload puts on the wire,
 * connection reuse, a server that closed a pooled connection, an error answered before the body is
 * read, and the idle, read and abort paths.
 */
class SegmentHttpClientTest {
    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        arena.close();
    }

    /** One request as the server read it. */
    record Seen(String line, Map<String, String> headers, byte[] body) {}

    /** What the server does with each request it read on a connection: answer it, or stop. */
    @FunctionalInterface
    interface Handler {
        /** Answers {@code seen} on {@code out}; false: close the connection after it. */
        boolean answer(Seen seen, OutputStream out, int connection) throws IOException;
    }

    /** A loopback HTTP/1.1 server: reads each request's head and Content-Length body, then asks the handler. */
    final class Server implements AutoCloseable {
        final ServerSocket socket;
        final List<Seen> seen = new CopyOnWriteArrayList<>();
        final AtomicInteger connections = new AtomicInteger();
        private final Thread thread;

        Server(Handler handler) throws IOException {
            this(handler, true);
        }

        /** {@code readBodies}: false, the server reads the heads only, and never the bodies. */
        Server(Handler handler, boolean readBodies) throws IOException {
            socket = new ServerSocket();
            socket.setReceiveBufferSize(64 << 10);
            socket.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            thread = Thread.ofPlatform().daemon().start(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket s = socket.accept();
                        int n = connections.incrementAndGet();
                        Thread.ofPlatform().daemon().start(() -> serve(s, handler, readBodies, n));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            open.add(this);
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }

        private void serve(Socket s, Handler handler, boolean readBodies, int n) {
            try (s) {
                InputStream in = new java.io.BufferedInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                while (true) {
                    String line = readLine(in);
                    if (line == null) {
                        return;
                    }
                    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                    String h;
                    while (!(h = readLine(in)).isEmpty()) {
                        int colon = h.indexOf(':');
                        headers.put(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
                    }
                    long length = Long.parseLong(headers.getOrDefault("Content-Length", "0"));
                    byte[] body = readBodies ? in.readNBytes((int) length) : new byte[0];
                    Seen one = new Seen(line, headers, body);
                    seen.add(one);
                    if (!handler.answer(one, out, n)) {
                        return;
                    }
                    out.flush();
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return c < 0 && b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    private static void ok(OutputStream out, String extraHeaders, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 200 OK\r\nETag: \"e\"\r\n" + extraHeaders + "Content-Length: " + b.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(b);
    }

    private MemorySegment pattern(long size) {
        MemorySegment seg = arena.allocate(size, 4096);
        for (long i = 0; i < size; i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >>> 11)));
        }
        return seg;
    }

    private SegmentHttpClient client(Duration read, Duration idle) {
        SegmentHttpClient c = new SegmentHttpClient(Duration.ofSeconds(2), read, idle);
        open.add(c);
        return c;
    }

    private S3Client s3(SegmentHttpClient http, URI endpoint) {
        S3Client c = S3Client.builder().httpClient(http).putAuthScheme(new UnsignedPayloadScheme())
                .region(Region.US_EAST_1).forcePathStyle(true).endpointOverride(endpoint)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
                .overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1))).build();
        open.add(c);
        return c;
    }

    /** {@link #pattern}'s bytes in a memory file's buffer, at {@code offset} of it (a slice, as a part of a chunk is). */
    private MemorySegment sharedPattern(long offset, long size) {
        MemorySegment buffer = NodeBuffers.allocateShared(arena, offset + size, -1);
        MemorySegment seg = buffer.asSlice(offset, size);
        seg.copyFrom(pattern(size));
        assertEquals(offset, NodeBuffers.fileRegion(seg).orElseThrow().position());
        return seg;
    }

    private static UploadPartResponse uploadPart(S3Client s3, MemorySegment body, int part) {
        SegmentHttpClient.SegmentBody b = new SegmentHttpClient.SegmentBody(body, true);
        return b.send(() -> s3.uploadPart(r -> r.bucket("b").key("k").uploadId("u").partNumber(part)
                        .contentLength(body.byteSize()).checksumCRC32C("AAAAAA=="),
                RequestBody.fromContentProvider(b, body.byteSize(), "application/octet-stream")));
    }

    @Test
    void aPartGoesOnTheWireAsTheSegmentsBytesSignedLikeHttps() throws Exception {
        Server server = new Server((seen, out, n) -> {
            ok(out, "x-amz-checksum-crc32c: AAAAAA==\r\n", "");
            return true;
        });
        MemorySegment body = pattern(3 * SegmentHttpClient.WRITE_PIECE + 12345);
        S3Client s3 = s3(client(Duration.ofSeconds(5), Duration.ofSeconds(5)), server.endpoint());

        UploadPartResponse r = uploadPart(s3, body, 7);

        assertEquals("\"e\"", r.eTag());
        assertEquals("AAAAAA==", r.checksumCRC32C());
        Seen seen = server.seen.getFirst();
        assertTrue(seen.line().startsWith("PUT /b/k?"), seen.line());
        assertTrue(seen.line().contains("partNumber=7") && seen.line().endsWith(" HTTP/1.1"), seen.line());
        assertEquals(Long.toString(body.byteSize()), seen.headers().get("Content-Length"));
        assertEquals("UNSIGNED-PAYLOAD", seen.headers().get("x-amz-content-sha256"));
        assertEquals("AAAAAA==", seen.headers().get("x-amz-checksum-crc32c"));
        assertFalse(seen.headers().containsKey("Content-Encoding"), seen.headers().toString());
        assertFalse(seen.headers().containsKey("Expect"), "no 100-continue wait: " + seen.headers());
        assertTrue(seen.headers().get("Authorization").startsWith("AWS4-HMAC-SHA256 "), seen.headers().toString());
        assertEquals("127.0.0.1:" + server.socket.getLocalPort(), seen.headers().get("Host"));
        assertArrayEquals(body.toArray(ValueLayout.JAVA_BYTE), seen.body());
    }

    @Test
    void aPartInAMemoryFileIsSentWithSendfileAndAPutObjectsBodyIsCopied() throws Exception {
        assertTrue(NativeLibrary.isAvailable(), "the native core makes memory files");
        Server server = new Server((seen, out, n) -> {
            ok(out, "", "");
            return true;
        });
        SegmentHttpClient http = client(Duration.ofSeconds(5), Duration.ofSeconds(5));
        S3Client s3 = s3(http, server.endpoint());
        MemorySegment part = sharedPattern(8192, 2 * SegmentHttpClient.WRITE_PIECE + 777);

        uploadPart(s3, part, 1);
        uploadPart(s3, part, 2);

        assertEquals(2 * part.byteSize(), http.bytesSentFromFiles(), "both parts by sendfile");
        server.seen.forEach(s -> assertArrayEquals(part.toArray(ValueLayout.JAVA_BYTE), s.body()));
        assertEquals(1, server.connections.get(), "the connection kept after a part sent from its pages");

        // a body that may not be sent from the file (a PutObject's) is written from a copy
        SegmentHttpClient.SegmentBody copied = new SegmentHttpClient.SegmentBody(part, false);
        copied.send(() -> s3.putObject(r -> r.bucket("b").key("k").contentLength(part.byteSize()),
                RequestBody.fromContentProvider(copied, part.byteSize(), "application/octet-stream")));
        assertEquals(2 * part.byteSize(), http.bytesSentFromFiles());
        assertArrayEquals(part.toArray(ValueLayout.JAVA_BYTE), server.seen.getLast().body());
    }

    @Test
    void anAbortedPartFromAMemoryFileResetsItsConnectionSoNoQueuedPageIsSentOn() throws Exception {
        // The server reads the head and then nothing until the abort: the socket buffers hold some of
        // the body's pages. The abort must reset the connection (the kernel drops what it queued),
        // not close it (it would go on sending pages the caller may already be filling anew).
        AtomicReference<Object> end = new AtomicReference<>();
        java.util.concurrent.CountDownLatch aborted = new java.util.concurrent.CountDownLatch(1);
        ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        open.add(ss);
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            try (Socket s = ss.accept()) {
                InputStream in = s.getInputStream();
                while (!readLine(in).isEmpty()) {
                    // the head
                }
                aborted.await();
                byte[] b = new byte[1 << 20];
                long read = 0;
                int n;
                while ((n = in.read(b)) >= 0) {
                    read += n;
                }
                end.set("EOF after " + read + " body bytes");
            } catch (IOException | InterruptedException e) {
                end.set(e);
            }
        });
        SegmentHttpClient http = client(Duration.ofSeconds(20), Duration.ofSeconds(20));
        S3Client s3 = s3(http, URI.create("http://127.0.0.1:" + ss.getLocalPort()));
        MemorySegment body = sharedPattern(0, 64 << 20);
        SegmentHttpClient.SegmentBody b = new SegmentHttpClient.SegmentBody(body, true);
        CompletableFuture<Object> upload = CompletableFuture.supplyAsync(() -> b.send(() -> s3.uploadPart(
                r -> r.bucket("b").key("k").uploadId("u").partNumber(1).contentLength(body.byteSize()),
                RequestBody.fromContentProvider(b, body.byteSize(), "application/octet-stream"))));
        long t0 = System.nanoTime();
        while (http.bytesSentFromFiles() == 0 && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10)) {
            Thread.sleep(5);
        }
        Thread.sleep(200); // the transfer is blocked on the full socket

        b.abort();
        assertThrows(Exception.class, () -> upload.get(5, TimeUnit.SECONDS));
        aborted.countDown();
        t.join(5_000);

        assertTrue(http.bytesSentFromFiles() > 0 && http.bytesSentFromFiles() < body.byteSize(),
                "sent " + http.bytesSentFromFiles());
        assertInstanceOf(java.net.SocketException.class, end.get(), "the server saw " + end.get());
        assertTrue(((Exception) end.get()).getMessage().toLowerCase(Locale.ROOT).contains("reset"),
                () -> end.get().toString());
    }

    @Test
    void aBodyOtherThanTheThreadsSegmentIsCopiedAsItIs() throws Exception {
        Server server = new Server((seen, out, n) -> {
            ok(out, "", "");
            return true;
        });
        SegmentHttpClient http = client(Duration.ofSeconds(5), Duration.ofSeconds(5));
        byte[] bytes = "not a segment: the SDK's own stream".getBytes(StandardCharsets.UTF_8);
        SdkHttpFullRequest req = SdkHttpFullRequest.builder().method(SdkHttpMethod.PUT).uri(server.endpoint())
                .encodedPath("/b/k").putHeader("Content-Length", Integer.toString(bytes.length)).build();

        HttpExecuteResponse r = http.prepareRequest(HttpExecuteRequest.builder().request(req)
                .contentStreamProvider(() -> new java.io.ByteArrayInputStream(bytes)).build()).call();

        assertEquals(200, r.httpResponse().statusCode());
        assertArrayEquals(bytes, server.seen.getFirst().body());
    }

    @Test
    void connectionsAreReusedAndAClosedOneIsReplacedWithoutAFailure() throws Exception {
        // the first connection's first answer is its last: the server closes it without saying so
        Server server = new Server((seen, out, n) -> {
            ok(out, "", "<r/>");
            return n != 1;
        });
        S3Client s3 = s3(client(Duration.ofSeconds(5), Duration.ofSeconds(5)), server.endpoint());
        MemorySegment body = pattern(100_000);

        for (int part = 1; part <= 4; part++) {
            assertEquals("\"e\"", uploadPart(s3, body, part).eTag());
        }

        assertEquals(4, server.seen.size(), "each part sent once: " + server.seen);
        assertEquals(2, server.connections.get(), "the closed connection replaced once, then reused");
        server.seen.forEach(s -> assertArrayEquals(body.toArray(ValueLayout.JAVA_BYTE), s.body()));
    }

    @Test
    void aChunkedAnswerIsReadToItsEndAndItsConnectionReused() throws Exception {
        Server server = new Server((seen, out, n) -> {
            out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            return true;
        });
        SegmentHttpClient http = client(Duration.ofSeconds(5), Duration.ofSeconds(5));
        SdkHttpFullRequest req = SdkHttpFullRequest.builder().method(SdkHttpMethod.GET).uri(server.endpoint())
                .encodedPath("/b/k").build();
        for (int i = 0; i < 2; i++) {
            HttpExecuteResponse r = http.prepareRequest(HttpExecuteRequest.builder().request(req).build()).call();
            try (AbortableInputStream in = r.responseBody().orElseThrow()) {
                assertEquals("hello, world", new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        assertEquals(1, server.connections.get());
    }

    @Test
    void anErrorAnsweredBeforeTheBodyIsReadReachesTheSdkAsTheStoresError() throws Exception {
        // the server reads the head only, answers 403 and closes: the client's write of a body larger
        // than the socket buffers fails, and the answer is read all the same
        Server server = new Server((seen, out, n) -> {
            byte[] xml = ("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>no</Message>"
                    + "<RequestId>r</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\nConnection: close\r\n"
                    + "Content-Length: " + xml.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(xml);
            out.flush();
            return false;
        }, false);
        S3Client s3 = s3(client(Duration.ofSeconds(5), Duration.ofSeconds(5)), server.endpoint());

        S3Exception e = assertThrows(S3Exception.class, () -> uploadPart(s3, pattern(32 << 20), 1));

        assertEquals(403, e.statusCode());
        assertEquals("AccessDenied", e.awsErrorDetails().errorCode());
    }

    @Test
    void aBodyTheServerStopsReadingFailsWithinTheIdleTimeout() throws Exception {
        Server server = new Server((seen, out, n) -> {
            sleep(30_000); // reads the head, then neither the body nor anything else
            return false;
        }, false);
        SegmentHttpClient http = client(Duration.ofSeconds(20), Duration.ofMillis(300));
        MemorySegment body = pattern(64 << 20);
        long t0 = System.nanoTime();

        Exception e = assertThrows(Exception.class, () -> uploadPart(s3(http, server.endpoint()), body, 1));

        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < 5_000, "failed after " + ms + " ms, not within the 300 ms idle timeout and its check");
        assertTrue(causes(e).stream().anyMatch(c -> c instanceof SocketTimeoutException
                && c.getMessage().contains("idle timeout")), () -> causes(e).toString());
    }

    @Test
    void anAnswerThatNeverComesFailsAfterTheReadTimeout() throws Exception {
        Server server = new Server((seen, out, n) -> {
            sleep(30_000); // the whole request read, no answer
            return false;
        });
        SegmentHttpClient http = client(Duration.ofMillis(400), Duration.ofSeconds(5));
        long t0 = System.nanoTime();

        Exception e = assertThrows(Exception.class, () -> uploadPart(s3(http, server.endpoint()), pattern(4096), 1));

        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 350 && ms < 5_000, "failed after " + ms + " ms");
        assertTrue(causes(e).stream().anyMatch(SocketTimeoutException.class::isInstance), () -> causes(e).toString());
    }

    @Test
    void anAbortedBodyStopsItsWriteAtOnce() throws Exception {
        Server server = new Server((seen, out, n) -> {
            sleep(30_000);
            return false;
        }, false);
        S3Client s3 = s3(client(Duration.ofSeconds(20), Duration.ofSeconds(20)), server.endpoint());
        MemorySegment body = pattern(64 << 20);
        SegmentHttpClient.SegmentBody b = new SegmentHttpClient.SegmentBody(body, true);
        CompletableFuture<Object> upload = CompletableFuture.supplyAsync(() -> b.send(() -> s3.uploadPart(
                r -> r.bucket("b").key("k").uploadId("u").partNumber(1).contentLength(body.byteSize()),
                RequestBody.fromContentProvider(b, body.byteSize(), "application/octet-stream"))));
        while (server.seen.isEmpty()) {
            Thread.sleep(5);
        }
        Thread.sleep(200); // the write is blocked on the full socket

        long t0 = System.nanoTime();
        b.abort();
        Exception e = assertThrows(Exception.class, () -> upload.get(5, TimeUnit.SECONDS));

        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < 2_000);
        assertTrue(causes(e).stream().anyMatch(IOException.class::isInstance), () -> causes(e).toString());
        assertInstanceOf(java.util.concurrent.ExecutionException.class, e);
    }

    @Test
    void httpsIsRefusedWithItsReason() {
        SegmentHttpClient http = client(Duration.ofSeconds(1), Duration.ofSeconds(1));
        SdkHttpFullRequest req = SdkHttpFullRequest.builder().method(SdkHttpMethod.GET)
                .uri(URI.create("https://127.0.0.1:1")).encodedPath("/b/k").build();
        IOException e = assertThrows(IOException.class,
                () -> http.prepareRequest(HttpExecuteRequest.builder().request(req).build()).call());
        assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains("http:// only"), e.getMessage());
    }

    private static List<Throwable> causes(Throwable e) {
        List<Throwable> all = new ArrayList<>();
        for (Throwable t = e; t != null && all.size() < 20; t = t.getCause()) {
            all.add(t);
            all.addAll(List.of(t.getSuppressed()));
        }
        return all;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
