package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.dgen4j.s3.FaultProxy.Fault;
import io.dgen4j.s3.FaultProxy.Injection;
import io.dgen4j.s3.FaultProxy.Match;
import io.dgen4j.s3.FaultProxy.Seen;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fault proxy does what each fault says: against a small upstream (the JDK's HTTP server, which
 * records what reached it, or raw sockets where the bytes on the wire matter) and a real s3proxy.
 */
class FaultProxyTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** What the upstream received, whole. */
    record Received(String method, String uri, Map<String, List<String>> headers, byte[] body) { }

    private static final BlockingQueue<Received> RECEIVED = new LinkedBlockingQueue<>();
    private static HttpServer upstream;
    private FaultProxy proxy;
    private HttpClient http;

    @BeforeAll
    static void startUpstream() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        upstream.createContext("/", FaultProxyTest::serve);
        upstream.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        upstream.start();
    }

    @AfterAll
    static void stopUpstream() {
        upstream.stop(0);
    }

    /**
     * {@code GET /data/N}: N bytes of {@link #data} (chunked with {@code ?chunked}); {@code /empty}:
     * 204; anything else: the request's body is kept and "ok N" answered.
     */
    private static void serve(HttpExchange x) throws IOException {
        byte[] body = x.getRequestBody().readAllBytes();
        String path = x.getRequestURI().getPath();
        RECEIVED.add(new Received(x.getRequestMethod(), x.getRequestURI().toString(), Map.copyOf(x.getRequestHeaders()),
                body));
        if (path.startsWith("/data/")) {
            byte[] d = data(Integer.parseInt(path.substring(6)));
            boolean chunked = "chunked".equals(x.getRequestURI().getQuery());
            x.getResponseHeaders().add("ETag", "\"d\"");
            if ("HEAD".equals(x.getRequestMethod())) {
                x.getResponseHeaders().add("Content-Length", Integer.toString(d.length));
                x.sendResponseHeaders(200, -1);
            } else {
                x.sendResponseHeaders(200, chunked ? 0 : d.length);
                try (OutputStream o = x.getResponseBody()) {
                    o.write(d);
                }
            }
        } else if (path.equals("/empty")) {
            x.sendResponseHeaders(204, -1);
        } else {
            byte[] ok = ("ok " + body.length).getBytes(StandardCharsets.US_ASCII);
            x.sendResponseHeaders(200, ok.length);
            try (OutputStream o = x.getResponseBody()) {
                o.write(ok);
            }
        }
        x.close();
    }

    private static byte[] data(int n) {
        byte[] d = new byte[n];
        for (int i = 0; i < n; i++) {
            d[i] = (byte) (i * 31 + 7);
        }
        return d;
    }

    private static URI upstreamUri() {
        return URI.create("http://127.0.0.1:" + upstream.getAddress().getPort());
    }

    @BeforeEach
    void start() throws IOException {
        RECEIVED.clear();
        proxy = FaultProxy.start(upstreamUri());
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterEach
    void stop() {
        http.close();
        proxy.close();
    }

    private HttpRequest.Builder request(String target) {
        return HttpRequest.newBuilder(proxy.endpoint().resolve(target)).timeout(Duration.ofSeconds(20));
    }

    private HttpResponse<byte[]> send(HttpRequest r) throws IOException, InterruptedException {
        return http.send(r, HttpResponse.BodyHandlers.ofByteArray());
    }

    private static Received received() throws InterruptedException {
        Received r = RECEIVED.poll(10, TimeUnit.SECONDS);
        assertTrue(r != null, "the upstream received the request");
        return r;
    }

    private static byte[] flipped(byte[] b, int at) {
        byte[] c = b.clone();
        c[at] ^= (byte) 0xff;
        return c;
    }

    @Test
    void everyFramingIsForwardedByteExactOverOneKeptAliveConnection() throws Exception {
        byte[] body = data(300_000);
        HttpResponse<byte[]> r = send(request("/b/fixed").PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build());
        assertEquals("ok 300000", new String(r.body(), StandardCharsets.US_ASCII));
        assertArrayEquals(body, received().body(), "a Content-Length body");
        r = send(request("/b/chunked").PUT(HttpRequest.BodyPublishers.ofInputStream(
                () -> new ByteArrayInputStream(body))).build());
        assertEquals(200, r.statusCode());
        Received got = received();
        assertEquals(List.of("chunked"), got.headers().get("Transfer-encoding"), got.headers().toString());
        assertArrayEquals(body, got.body(), "a chunked body");
        r = send(request("/b/expect?partNumber=3&uploadId=u1").expectContinue(true)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build());
        assertEquals(200, r.statusCode());
        assertArrayEquals(body, received().body(), "a body after 100-continue");
        assertArrayEquals(data(200_000), send(request("/data/200000").GET().build()).body(), "a Content-Length answer");
        assertArrayEquals(data(200_000), send(request("/data/200000?chunked").GET().build()).body(), "a chunked answer");
        r = send(request("/data/5000").HEAD().build());
        assertEquals(200, r.statusCode());
        assertEquals("5000", r.headers().firstValue("Content-Length").orElseThrow());
        assertEquals(0, r.body().length);
        assertEquals(204, send(request("/empty").GET().build()).statusCode());
        assertEquals(200, send(request("/data/10").GET().build()).statusCode(), "the connection still serves");

        List<Seen> seen = proxy.seen();
        assertEquals(8, seen.size(), seen.toString());
        assertEquals(1, proxy.connections(), "one kept-alive connection: " + seen);
        for (int i = 0; i < seen.size(); i++) {
            assertEquals(i + 1, seen.get(i).index(), seen.toString());
            assertNull(seen.get(i).fault());
        }
        assertEquals("PUT", seen.get(2).method());
        assertEquals(Map.of("partNumber", "3", "uploadId", "u1"), seen.get(2).query());
        assertEquals("/b/expect", seen.get(2).path());
        assertEquals(List.of(200, 200, 200, 200, 200, 200, 204, 200), seen.stream().map(Seen::status).toList());
        assertEquals(1, proxy.count(Match.uploadPart(3)));
        assertEquals(2, proxy.count(Match.put().noQuery("partNumber")));
    }

    @Test
    void aResponseDelimitedByTheCloseIsForwardedWhole() throws Exception {
        byte[] answer = data(70_000);
        try (RawUpstream up = new RawUpstream(s -> {
            readHead(s);
            OutputStream o = s.getOutputStream();
            o.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            o.write(answer);
        }); FaultProxy p = FaultProxy.start(up.uri())) {
            String raw = exchange(p.endpoint(), "GET /x HTTP/1.1\r\nHost: h\r\n\r\n", 10_000);
            assertTrue(raw.startsWith("HTTP/1.1 200 OK\r\n"), raw.substring(0, 40));
            byte[] body = raw.substring(raw.indexOf("\r\n\r\n") + 4).getBytes(StandardCharsets.ISO_8859_1);
            assertArrayEquals(answer, body);
        }
    }

    @Test
    void theNthMatchingRequestsGetTheFaultAsManyTimesAsSaid() throws Exception {
        Injection i = proxy.inject(Match.uploadPart(3), Fault.status(500), 2, 2);
        List<Integer> statuses = new ArrayList<>();
        for (int n = 0; n < 4; n++) {
            statuses.add(send(request("/b/k?uploadId=u&partNumber=3").PUT(HttpRequest.BodyPublishers.ofString("x"))
                    .build()).statusCode());
            send(request("/b/k?uploadId=u&partNumber=4").PUT(HttpRequest.BodyPublishers.ofString("y")).build());
        }
        assertEquals(List.of(200, 500, 500, 200), statuses);
        assertEquals(4, i.matched());
        assertEquals(2, i.fired());
        assertEquals(2, proxy.seen().stream().filter(s -> s.fault() instanceof Fault.Status).count());
        assertEquals(6, RECEIVED.size(), "the two faulted requests never reached the upstream");
    }

    @Test
    void aChosenStatusCarriesAnS3ErrorAndKeepsTheConnection() throws Exception {
        proxy.inject(Match.get().header("Range"), Fault.status(503));
        HttpResponse<byte[]> r = send(request("/data/100").header("Range", "bytes=0-9").GET().build());
        assertEquals(503, r.statusCode());
        String xml = new String(r.body(), StandardCharsets.UTF_8);
        assertTrue(xml.contains("<Code>SlowDown</Code>"), xml);
        assertEquals(200, send(request("/data/100").header("Range", "bytes=0-9").GET().build()).statusCode(),
                "once: the next is forwarded (this upstream ignores Range)");
        assertEquals(1, proxy.connections(), "the 503 kept the connection");
        // before the body, to a request that waits for 100-continue
        proxy.inject(Match.put(), Fault.status(429));
        r = send(request("/b/k").expectContinue(true).PUT(HttpRequest.BodyPublishers.ofByteArray(data(100_000)))
                .build());
        assertEquals(429, r.statusCode());
        assertEquals(1, RECEIVED.size(), "only the forwarded GET reached the upstream");
    }

    @Test
    void requestAndResponseDelaysHoldTheExchange() throws Exception {
        proxy.inject(Match.put(), Fault.delayRequest(Duration.ofMillis(400)));
        proxy.inject(Match.get(), Fault.delayResponse(Duration.ofMillis(400)));
        long t0 = System.nanoTime();
        send(request("/b/k").PUT(HttpRequest.BodyPublishers.ofString("x")).build());
        assertTrue(System.nanoTime() - t0 >= 400_000_000L);
        assertEquals(1, RECEIVED.size());
        t0 = System.nanoTime();
        assertArrayEquals(data(1000), send(request("/data/1000").GET().build()).body());
        assertTrue(System.nanoTime() - t0 >= 400_000_000L);
    }

    @Test
    void aStalledRequestIsNeverAnsweredNorForwarded() throws Exception {
        proxy.inject(Match.get(), Fault.stall());
        assertThrows(HttpTimeoutException.class, () -> send(request("/data/10").timeout(Duration.ofMillis(700))
                .GET().build()));
        assertEquals(0, RECEIVED.size());
        assertEquals(200, send(request("/data/10").GET().build()).statusCode(), "once");
        assertInstanceOf(Fault.Stall.class, proxy.seen().getFirst().fault());
        assertEquals(0, proxy.seen().getFirst().status());
    }

    @Test
    void aBlackHoleAcceptsAndNeverAnswersUntilItIsTurnedOff() throws Exception {
        proxy.blackHole(true);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.endpoint().getPort())) {
            s.setSoTimeout(700);
            s.getOutputStream().write("GET /data/10 HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read());
            assertEquals(1, proxy.connections());
            assertEquals(0, proxy.seen().size(), "nothing is read");
            proxy.blackHole(false);
            assertEquals(200, send(request("/data/10").GET().build()).statusCode());
            assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(), "the held one stays unanswered");
        }
    }

    @Test
    void aDroppedRequestReachesTheUpstreamCutAfterItsNthBodyByte() throws Exception {
        BlockingQueue<byte[]> got = new LinkedBlockingQueue<>();
        try (RawUpstream up = new RawUpstream(s -> got.add(s.getInputStream().readAllBytes()));
                FaultProxy p = FaultProxy.start(up.uri())) {
            p.inject(Match.put(), Fault.dropRequest(1000));
            String head = "PUT /b/k HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\n";
            byte[] body = data(5000);
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), p.endpoint().getPort())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().write(body, 0, 1000);
                s.getOutputStream().flush();
                byte[] upstreamGot = got.poll(10, TimeUnit.SECONDS);
                assertTrue(upstreamGot != null, "the upstream connection was closed");
                ByteArrayOutputStream want = new ByteArrayOutputStream();
                want.write(head.getBytes(StandardCharsets.US_ASCII));
                want.write(body, 0, 1000);
                assertArrayEquals(want.toByteArray(), upstreamGot, "the head and 1000 body bytes, no more");
                assertEquals(-1, readOrReset(s.getInputStream()), "no answer, the connection closed");
            }
        }
    }

    @Test
    void aDroppedResponseWaitsForAnUpstreamThatAnswersItsHeadBeforeItIsDone() throws Exception {
        // as s3proxy's CompleteMultipartUpload does: the head at once, the body once the work is done
        java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
        try (RawUpstream up = new RawUpstream(s -> {
            readHead(s);
            OutputStream o = s.getOutputStream();
            o.write("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            try {
                Thread.sleep(700);
            } catch (InterruptedException e) {
                throw new java.io.InterruptedIOException();
            }
            done.set(System.nanoTime());
            o.write("done".getBytes(StandardCharsets.US_ASCII));
            o.flush();
        }); FaultProxy p = FaultProxy.start(up.uri())) {
            p.inject(Match.post(), Fault.dropResponse(0));
            String got = exchange(p.endpoint(), "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", 10_000);
            long closed = System.nanoTime();
            assertEquals("", got);
            assertTrue(done.get() != 0 && done.get() < closed, "the client's connection closed before the upstream "
                    + "was done");
        }
    }

    @Test
    void aResetRequestFailsTheClientWithConnectionReset() throws Exception {
        proxy.inject(Match.get(), Fault.reset());
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.endpoint().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /data/10 HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            SocketException e = assertThrows(SocketException.class, () -> s.getInputStream().read());
            assertTrue(e.getMessage().contains("reset"), e.getMessage());
        }
    }

    @Test
    void aDroppedResponseStopsAfterItsNthByteAndTheStoreActed() throws Exception {
        proxy.inject(Match.get(), Fault.dropResponse(150));
        String cut = exchange(proxy.endpoint(), "GET /data/1000 HTTP/1.1\r\nHost: h\r\n\r\n", 10_000);
        assertEquals(150, cut.length(), cut);
        assertTrue(cut.startsWith("HTTP/1.1 200 OK\r\n"), cut);
        int bodyAt = cut.indexOf("\r\n\r\n") + 4;
        assertTrue(bodyAt > 4 && bodyAt < 150, cut);
        assertArrayEquals(java.util.Arrays.copyOf(data(1000), 150 - bodyAt),
                cut.substring(bodyAt).getBytes(StandardCharsets.ISO_8859_1), "the answer's first 150 bytes");
        proxy.inject(Match.put(), Fault.dropResponse(0));
        assertThrows(IOException.class, () -> send(request("/b/k").PUT(HttpRequest.BodyPublishers.ofString("x"))
                .build()));
        assertEquals("PUT", RECEIVED.stream().toList().getLast().method(), "the store got the request");
        proxy.inject(Match.get(), Fault.resetResponse(100));
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.endpoint().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /data/100000 HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            SocketException e = assertThrows(SocketException.class, () -> {
                while (in.read() >= 0) {
                    // up to the reset
                }
            });
            assertTrue(e.getMessage().contains("reset"), e.getMessage());
        }
    }

    @Test
    void aFlippedRequestByteReachesTheUpstreamInvertedInEveryFraming() throws Exception {
        byte[] body = data(100_000);
        proxy.inject(Match.put().path("/b/fixed"), Fault.flipRequestBody(70_000));
        send(request("/b/fixed").PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build());
        assertArrayEquals(flipped(body, 70_000), received().body(), "Content-Length");
        proxy.inject(Match.put().path("/b/chunked"), Fault.flipRequestBody(0));
        send(request("/b/chunked").PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .build());
        assertArrayEquals(flipped(body, 0), received().body(), "chunked");
        // aws-chunked inside a Content-Length body: the data's byte, not the framing's
        String aws = "5;chunk-signature=aaaa\r\nhello\r\n6;chunk-signature=bbbb\r\n world\r\n"
                + "0;chunk-signature=cccc\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n";
        proxy.inject(Match.put().path("/b/aws"), Fault.flipRequestBody(6));
        send(request("/b/aws").header("Content-Encoding", "aws-chunked")
                .PUT(HttpRequest.BodyPublishers.ofString(aws)).build());
        byte[] want = aws.getBytes(StandardCharsets.US_ASCII);
        want[aws.indexOf(" world") + 1] ^= (byte) 0xff;
        assertArrayEquals(want, received().body(), "aws-chunked: data byte 6 is the 'w'");
        assertEquals(3, proxy.seen().stream().filter(s -> s.fault() instanceof Fault.FlipRequestBody).count());
    }

    @Test
    void aFlippedResponseByteReachesTheClientInverted() throws Exception {
        proxy.inject(Match.get(), Fault.flipResponseBody(12_345), 1, 2);
        assertArrayEquals(flipped(data(20_000), 12_345), send(request("/data/20000").GET().build()).body());
        assertArrayEquals(flipped(data(20_000), 12_345), send(request("/data/20000?chunked").GET().build()).body());
        assertArrayEquals(data(20_000), send(request("/data/20000").GET().build()).body(), "twice only");
    }

    @Test
    void garbageIsNotHttp() throws Exception {
        proxy.inject(Match.get(), Fault.garbage());
        String raw = exchange(proxy.endpoint(), "GET /data/10 HTTP/1.1\r\nHost: h\r\n\r\n", 10_000);
        assertFalse(raw.isEmpty());
        assertFalse(raw.startsWith("HTTP/"), raw);
        proxy.inject(Match.put(), Fault.garbage());
        assertThrows(IOException.class, () -> send(request("/b/k").PUT(HttpRequest.BodyPublishers.ofString("x"))
                .build()));
        assertEquals(0, RECEIVED.size());
    }

    @Test
    void aTrickledAnswerComesWholeButSlowly() throws Exception {
        proxy.inject(Match.get(), Fault.trickle(50, Duration.ofMillis(40)));
        long t0 = System.nanoTime();
        assertArrayEquals(data(500), send(request("/data/500").GET().build()).body());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        // the head (about 100 bytes) and 500 body bytes: at least 12 slices of 50 bytes, 40 ms apart
        assertTrue(ms >= 400, ms + " ms");
    }

    @Test
    void anOutageRefusesConnectionsThenForwardsAgainOnTheSamePort() throws Exception {
        int port = proxy.endpoint().getPort();
        proxy.inject(Match.delete(), Fault.outage(Duration.ofMillis(1500)));
        assertThrows(IOException.class, () -> send(request("/b/k").DELETE().build()));
        long t0 = System.nanoTime();
        assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
        boolean back = false;
        while (System.nanoTime() - t0 < 10_000_000_000L && !back) {
            try {
                new Socket(InetAddress.getLoopbackAddress(), port).close();
                back = true;
            } catch (ConnectException e) {
                Thread.sleep(50);
            }
        }
        assertTrue(back, "it listens again");
        assertTrue(System.nanoTime() - t0 >= 1_000_000_000L, "not before the outage ended");
        assertEquals(200, send(request("/data/10").GET().build()).statusCode());
        assertEquals(port, proxy.endpoint().getPort());
        // the same, asked for by the test
        proxy.outage(0, Duration.ofSeconds(5)); // long enough for a loaded machine to try within it
        assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
    }

    @Test
    void severalListenersAreSeveralGatewaysAndAMatchCanNameOne() throws Exception {
        try (FaultProxy p = FaultProxy.start(List.of(upstreamUri(), upstreamUri(), upstreamUri()))) {
            assertEquals(3, p.endpoints().stream().distinct().count());
            p.inject(Match.any().listener(1), Fault.status(500), 1, FaultProxy.EVERY);
            for (int i = 0; i < 3; i++) {
                HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(p.endpoint(i).resolve("/data/10")).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(i == 1 ? 500 : 200, r.statusCode());
            }
            S3Settings s = p.settings(S3.settings(EndpointSet.Strategy.LEAST_CONNECTIONS));
            assertEquals(p.endpoints(), s.endpointSet().orElseThrow().endpoints());
            assertEquals(EndpointSet.Strategy.LEAST_CONNECTIONS, s.endpointSet().orElseThrow().strategy());
        }
    }

    @Test
    void closeEndsHeldAndStalledConnectionsAndFreesThePort() throws Exception {
        FaultProxy p = FaultProxy.start(upstreamUri());
        p.inject(Match.get(), Fault.stall());
        int port = p.endpoint().getPort();
        try (Socket stalled = new Socket(InetAddress.getLoopbackAddress(), port)) {
            stalled.setSoTimeout(10_000);
            stalled.getOutputStream().write("GET /x HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertTrue(p.await(Match.get(), 1, Duration.ofSeconds(10)));
            p.blackHole(true);
            try (Socket held = new Socket(InetAddress.getLoopbackAddress(), port)) {
                held.setSoTimeout(10_000);
                while (p.connections() < 2) {
                    Thread.sleep(10);
                }
                p.close(); // throws when a thread of it is left
                assertEquals(-1, readOrReset(stalled.getInputStream()));
                assertEquals(-1, readOrReset(held.getInputStream()));
            }
        }
        assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
    }

    @Test
    void aRealS3ProxyIsForwardedAndFaulted() throws Exception {
        try (FaultProxy p = FaultProxy.start(S3.endpoint())) {
            URI bucket = p.endpoint().resolve("/" + S3.bucket() + "/");
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(bucket).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, r.statusCode(), "an unsigned request is refused by s3proxy: " + r.body());
            assertTrue(r.body().contains("<Code>AccessDenied</Code>"), r.body());
            assertEquals(403, http.send(HttpRequest.newBuilder(bucket).HEAD().build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            p.inject(Match.get(), Fault.status(503));
            r = http.send(HttpRequest.newBuilder(bucket).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, r.statusCode());
            assertTrue(r.body().contains("<Code>SlowDown</Code>"), r.body());
            p.inject(Match.get(), Fault.flipResponseBody(0));
            r = http.send(HttpRequest.newBuilder(bucket).GET().build(), HttpResponse.BodyHandlers.ofString(
                    StandardCharsets.ISO_8859_1));
            assertEquals((char) ('<' ^ 0xff), r.body().charAt(0), "s3proxy's XML answer, its first byte inverted");
            assertEquals(List.of(403, 403, 503, 403), p.seen().stream().map(Seen::status).toList());
        }
    }

    /** Reads to the end; a reset after the bytes counts as the end. */
    private static int readOrReset(InputStream in) throws IOException {
        try {
            while (in.read() >= 0) {
                // drain
            }
        } catch (SocketException e) {
            if (!e.getMessage().contains("reset")) {
                throw e;
            }
        }
        return -1;
    }

    /** Sends {@code request} on a new connection and returns everything that comes back until the close. */
    private static String exchange(URI endpoint, String request, int timeoutMs) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), endpoint.getPort())) {
            s.setSoTimeout(timeoutMs);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                s.getInputStream().transferTo(got);
            } catch (SocketException e) {
                // a reset after the bytes
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static void readHead(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        int state = 0;
        while (state < 4) {
            int c = in.read();
            if (c < 0) {
                return;
            }
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1
                    : 0;
        }
    }

    /** A raw upstream: each connection is given to {@code handler}, then closed. */
    private static final class RawUpstream implements AutoCloseable {
        interface Handler {
            void accept(Socket s) throws IOException;
        }

        private final ServerSocket server;
        private final Thread acceptor;

        RawUpstream(Handler handler) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        handler.accept(s);
                    } catch (IOException e) {
                        // the next connection
                    }
                }
            });
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            server.close();
            try {
                acceptor.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
