package io.dgen4j.aws;

import io.dgen4j.gen.NodeBuffers;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * An HTTP/1.1 client for the SDK's sync S3 client ({@code http://} endpoints only) that sends a
 * {@link SegmentBody} straight from its native segment to the socket in blocking 1 MiB pieces, with
 * no copy in Java, no event loop and no per-piece handling: a part whose segment lies in a memory
 * file ({@link NodeBuffers#fileRegion}) with {@code sendfile}, so the socket takes its pages and the
 * kernel does not copy them either; other segments with {@code write}. The SDK still marshals, signs
 * and parses every request; only the bytes' transport is this class's. Other bodies are copied.
 *
 * <p>Keep-alive connections are pooled per host and port. A request on a pooled connection that
 * gets no response byte before the connection ends is sent once more on a new connection (the
 * server closed an idle connection). {@code Expect: 100-continue} is not sent (it is not a signed
 * header): the body follows the head at once, and a response the server gives before it has read
 * the whole body (an error) is still read when the write fails.
 *
 * <p>Timeouts: connect; read (no response byte for that long once the request is written); idle
 * (no body byte accepted by the socket for that long: the connection is closed).
 */
final class SegmentHttpClient implements SdkHttpClient {
    /**
     * A body is written in blocking writes of at most this many bytes, each bounded by the idle
     * timeout: as the async client's pieces ({@link AwsTransport#BODY_PIECE}), it bounds a stall of
     * the body, not the time a whole part takes.
     */
    static final int WRITE_PIECE = AwsTransport.BODY_PIECE;
    /** The buffer that bodies other than segments are read into. */
    private static final int COPY_BUFFER = 256 << 10;
    /** A pooled connection idle for longer is closed rather than reused. */
    private static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(20);

    private final int connectMillis;
    private final int readMillis;
    private final long idleMillis;
    private final Map<String, ArrayDeque<Connection>> pool = new HashMap<>();
    private final ScheduledExecutorService watchdog;
    /** Body bytes sent from memory files ({@code sendfile}) rather than written: what the tests check. */
    private final java.util.concurrent.atomic.AtomicLong sentFromFiles = new java.util.concurrent.atomic.AtomicLong();
    /** The connections in a body write, which the watchdog checks. */
    private final java.util.Set<Connection> writing = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private boolean closed;

    SegmentHttpClient(Duration connect, Duration read, Duration idle) {
        this.connectMillis = (int) Math.min(Integer.MAX_VALUE, connect.toMillis());
        this.readMillis = (int) Math.min(Integer.MAX_VALUE, read.toMillis());
        this.idleMillis = idle.toMillis();
        ScheduledThreadPoolExecutor w = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "dgen4j-aws-put-watchdog");
            t.setDaemon(true);
            return t;
        });
        this.watchdog = w;
        long period = Math.max(10, Math.min(1000, idleMillis / 4));
        w.scheduleWithFixedDelay(this::closeStalled, period, period, TimeUnit.MILLISECONDS);
    }

    /** Body bytes this client has sent from memory files with {@code sendfile}, not copied. */
    long bytesSentFromFiles() {
        return sentFromFiles.get();
    }

    /**
     * A request body that is a native segment's bytes, sent through the SDK by {@link #send}: this
     * client sends it from the segment itself. The SDK wraps a body's provider and its streams in
     * its own, so the body is known to the client by the thread that sends it, and taken only where
     * the request's body is the segment's bytes as they are (see {@link #current}).
     */
    static final class SegmentBody implements ContentStreamProvider {
        /** The body of the request this thread is making through the SDK, while it makes it. */
        private static final ThreadLocal<SegmentBody> CURRENT = new ThreadLocal<>();
        private final MemorySegment segment;
        /** Whether its pages may be sent uncopied ({@code sendfile}) where they are a memory file's. */
        private final boolean fromFile;
        private volatile boolean aborted;
        /** The call writing this body, once one is: what {@link #abort()} closes. */
        private volatile Call call;

        /**
         * A body of {@code segment}'s bytes; with {@code fromFile}, sent with {@code sendfile} where
         * they lie in a memory file ({@link NodeBuffers#fileRegion}). The socket then holds the pages,
         * not a copy, until the server has read them: the caller must not change the segment until
         * the request has its answer, and only a request whose bytes the store checks later (a part,
         * whose ETag the upload's completion compares) should take it, since a body abandoned on a
         * closed connection could still reach the server changed.
         */
        SegmentBody(MemorySegment segment, boolean fromFile) {
            this.segment = segment;
            this.fromFile = fromFile;
        }

        /** Makes the SDK's request {@code call} with this body known to the client on this thread. */
        <T> T send(java.util.function.Supplier<T> call) {
            CURRENT.set(this);
            try {
                return call.get();
            } finally {
                CURRENT.remove();
            }
        }

        /**
         * Stops the body: a write of it in progress fails at once (its connection is closed), and
         * none starts after this; the segment is not read any more once the write has failed.
         */
        void abort() {
            aborted = true;
            Call c = call;
            if (c != null) {
                c.abort();
            }
        }

        /**
         * The body of this thread's request {@code r} when {@code r} sends it as it is, else null: a
         * Content-Length of the segment's size, an unsigned payload, no content encoding (the SDK's
         * aws-chunked encoding, or a trailer, would make the body other bytes than the segment's).
         */
        static SegmentBody current(SdkHttpRequest r) {
            SegmentBody b = CURRENT.get();
            if (b == null) {
                return null;
            }
            String size = Long.toString(b.segment.byteSize());
            boolean asIs = r.firstMatchingHeader("Content-Length").map(size::equals).orElse(false)
                    && r.firstMatchingHeader("x-amz-content-sha256").map("UNSIGNED-PAYLOAD"::equals).orElse(false)
                    && r.firstMatchingHeader("Content-Encoding").isEmpty()
                    && r.firstMatchingHeader("x-amz-trailer").isEmpty();
            return asIs ? b : null;
        }

        @Override
        public InputStream newStream() {
            return new SegmentStream(segment);
        }

        @Override
        public String name() {
            return "MemorySegment";
        }
    }

    /** The segment's bytes as a stream, for any reader other than this client. */
    static final class SegmentStream extends InputStream {
        private final MemorySegment segment;
        private long at;

        SegmentStream(MemorySegment segment) {
            this.segment = segment;
        }

        @Override
        public int read() {
            return at < segment.byteSize() ? Byte.toUnsignedInt(segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE,
                    at++)) : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            long left = segment.byteSize() - at;
            if (len == 0) {
                return 0;
            }
            if (left <= 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            MemorySegment.copy(segment, java.lang.foreign.ValueLayout.JAVA_BYTE, at, b, off, n);
            at += n;
            return n;
        }

        @Override
        public int available() {
            return (int) Math.min(Integer.MAX_VALUE, segment.byteSize() - at);
        }
    }

    /** Closes each connection whose write has taken no byte for the idle timeout (its writer then fails). */
    private void closeStalled() {
        long now = System.nanoTime();
        for (Connection c : writing) {
            if (now - c.progress > TimeUnit.MILLISECONDS.toNanos(idleMillis)) {
                c.stalled = true;
                c.close();
            }
        }
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        return new Call(request);
    }

    @Override
    public String clientName() {
        return "dgen4j-segment";
    }

    @Override
    public void close() {
        List<Connection> all = new java.util.ArrayList<>();
        synchronized (pool) {
            closed = true;
            pool.values().forEach(all::addAll);
            pool.clear();
        }
        all.forEach(Connection::close);
        watchdog.shutdownNow();
    }

    private Connection acquire(String key) {
        synchronized (pool) {
            ArrayDeque<Connection> q = pool.get(key);
            long now = System.nanoTime();
            while (q != null && !q.isEmpty()) {
                Connection c = q.pollLast();
                if (now - c.idleSince < MAX_IDLE_NANOS && c.channel.isOpen()) {
                    return c;
                }
                c.close();
            }
        }
        return null;
    }

    private void release(String key, Connection c) {
        synchronized (pool) {
            if (!closed) {
                c.idleSince = System.nanoTime();
                pool.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(c);
                return;
            }
        }
        c.close();
    }

    /** One socket, blocking, with the reader of its responses. */
    private static final class Connection {
        final SocketChannel channel;
        final InputStream in;
        long idleSince;
        /** When the current write last began a system call (nanoTime); read by the watchdog. */
        volatile long progress;
        /** Whether the watchdog closed it. */
        volatile boolean stalled;
        /**
         * Whether the socket may still hold pages of a memory file ({@link Call#transfer}) that the
         * server has not read: from a transfer until a success answer (the server read the whole
         * body). Closing it then resets the connection, which drops the pages it still queues, so a
         * body abandoned here is not sent on after the caller has reused its buffer.
         */
        volatile boolean filePages;

        Connection(SocketChannel channel, int readMillis) throws IOException {
            this.channel = channel;
            channel.socket().setSoTimeout(readMillis);
            this.in = new java.io.BufferedInputStream(channel.socket().getInputStream(), 16 << 10);
        }

        void close() {
            try {
                if (filePages) {
                    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                }
            } catch (IOException | RuntimeException ignored) {
                // already closed: nothing is queued on it
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing: nothing to do about it
            }
        }
    }

    /** One request: its connection, once it has one, is what {@link #abort()} closes. */
    private final class Call implements ExecutableHttpRequest {
        private final HttpExecuteRequest request;
        private volatile Connection connection;
        private volatile boolean aborted;

        Call(HttpExecuteRequest request) {
            this.request = request;
        }

        @Override
        public HttpExecuteResponse call() throws IOException {
            SdkHttpRequest r = request.httpRequest();
            if (!"http".equals(r.protocol())) {
                throw new IOException("dgen4j's segment HTTP client sends http:// only, got " + r.protocol());
            }
            String key = r.host() + ":" + r.port();
            Connection pooled = acquire(key);
            if (pooled != null) {
                try {
                    return exchange(pooled, key, true);
                } catch (StaleConnection e) {
                    // the server had closed it: once more on a new connection
                }
            }
            return exchange(open(r), key, false);
        }

        private Connection open(SdkHttpRequest r) throws IOException {
            SocketChannel ch = SocketChannel.open();
            try {
                ch.socket().setTcpNoDelay(true);
                ch.socket().connect(new InetSocketAddress(r.host(), r.port()), connectMillis);
                return new Connection(ch, readMillis);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        }

        /**
         * Sends the request on {@code c} and reads the response's head. On a {@code reused}
         * connection that ends (or is reset) before the response's first byte, throws {@link
         * StaleConnection}: the server had closed it while idle.
         */
        private HttpExecuteResponse exchange(Connection c, String key, boolean reused) throws IOException {
            connection = c;
            if (aborted) {
                c.close();
                throw new IOException("the request was aborted");
            }
            SdkHttpRequest r = request.httpRequest();
            IOException writeFailure = null;
            try {
                writeHead(c, r);
                Optional<ContentStreamProvider> body = request.contentStreamProvider();
                if (body.isPresent()) {
                    writeBody(c, body.get());
                }
            } catch (IOException e) {
                if (aborted || e instanceof SocketTimeoutException) {
                    c.close();
                    throw e;
                }
                writeFailure = e; // the server may have answered (an error) and closed: read that below
            }
            Response resp;
            try {
                resp = readResponse(c, r.method() == SdkHttpMethod.HEAD);
            } catch (IOException e) {
                c.close();
                if (reused && !aborted && (e instanceof NoResponse || e instanceof java.net.SocketException)) {
                    throw new StaleConnection();
                }
                if (writeFailure != null) {
                    writeFailure.addSuppressed(e);
                    throw writeFailure;
                }
                throw e;
            }
            if (writeFailure == null && resp.response().isSuccessful()) {
                c.filePages = false; // the server has read the whole body
            }
            boolean keep = writeFailure == null && resp.keepAlive();
            InputStream bodyIn = resp.body(c, keep ? () -> release(key, c) : c::close);
            return HttpExecuteResponse.builder().response(resp.response())
                    .responseBody(AbortableInputStream.create(bodyIn, c::close)).build();
        }

        private void writeHead(Connection c, SdkHttpRequest r) throws IOException {
            StringBuilder h = new StringBuilder(512);
            h.append(r.method().name()).append(' ').append(r.encodedPath().isEmpty() ? "/" : r.encodedPath());
            SdkHttpUtils.encodeAndFlattenQueryParameters(r.rawQueryParameters()).ifPresent(q -> h.append('?').append(q));
            h.append(" HTTP/1.1\r\n");
            boolean host = false;
            boolean length = false;
            for (Map.Entry<String, List<String>> e : r.headers().entrySet()) {
                String name = e.getKey();
                String lower = name.toLowerCase(Locale.ROOT);
                if (lower.equals("expect") || lower.equals("connection") || lower.equals("transfer-encoding")) {
                    continue;
                }
                host |= lower.equals("host");
                length |= lower.equals("content-length");
                for (String v : e.getValue()) {
                    h.append(name).append(": ").append(v).append("\r\n");
                }
            }
            if (!host) {
                h.append("Host: ").append(r.host());
                if (r.port() != 80) {
                    h.append(':').append(r.port());
                }
                h.append("\r\n");
            }
            if (!length && request.contentStreamProvider().isPresent()) {
                throw new IOException("a request body without a Content-Length: " + r.method() + " " + r.encodedPath());
            }
            h.append("\r\n");
            ByteBuffer b = ByteBuffer.wrap(h.toString().getBytes(StandardCharsets.ISO_8859_1));
            while (b.hasRemaining()) {
                c.channel.write(b);
            }
        }

        private void writeBody(Connection c, ContentStreamProvider provider) throws IOException {
            SegmentBody body = SegmentBody.current(request.httpRequest());
            if (body != null) {
                body.call = this;
                if (body.aborted) {
                    abort();
                    throw new IOException("the request was aborted");
                }
                MemorySegment seg = body.segment;
                Optional<NodeBuffers.FileRegion> file = body.fromFile ? NodeBuffers.fileRegion(seg) : Optional.empty();
                if (file.isPresent()) {
                    transfer(c, file.get(), seg.byteSize());
                    return;
                }
                for (long at = 0; at < seg.byteSize(); at += WRITE_PIECE) {
                    write(c, seg.asSlice(at, Math.min(WRITE_PIECE, seg.byteSize() - at)).asByteBuffer());
                }
                return;
            }
            byte[] a = new byte[COPY_BUFFER];
            try (InputStream s = provider.newStream()) {
                int n;
                while ((n = s.read(a)) >= 0) {
                    write(c, ByteBuffer.wrap(a, 0, n));
                }
            }
        }

        /** Writes all of {@code b}; the watchdog closes the connection if the socket takes no byte for the idle timeout. */
        private void write(Connection c, ByteBuffer b) throws IOException {
            c.progress = System.nanoTime(); // before the watchdog can see it: not an earlier write's time
            writing.add(c);
            try {
                while (b.hasRemaining()) {
                    c.progress = System.nanoTime();
                    c.channel.write(b);
                }
            } catch (ClosedChannelException e) { // the watchdog's close, or an abort
                throw stalled(c, e);
            } finally {
                writing.remove(c);
            }
        }

        /**
         * Sends {@code size} bytes of {@code file} from its position with {@code sendfile}, in pieces
         * of {@link #WRITE_PIECE} as {@link #write} does: the socket takes the pages themselves, no
         * copy. Until the server has answered, the connection holds them ({@link Connection#filePages}).
         */
        private void transfer(Connection c, NodeBuffers.FileRegion file, long size) throws IOException {
            c.filePages = true;
            c.progress = System.nanoTime();
            writing.add(c);
            try {
                for (long at = 0; at < size; ) {
                    c.progress = System.nanoTime();
                    long n = file.file().transferTo(file.position() + at, Math.min(WRITE_PIECE, size - at), c.channel);
                    if (n <= 0) { // only past the file's end, which fileRegion rules out
                        throw new IOException("sendfile sent no byte at " + (file.position() + at) + " of a memory file of "
                                + file.file().size() + " bytes");
                    }
                    at += n;
                    sentFromFiles.addAndGet(n);
                }
            } catch (ClosedChannelException e) {
                throw stalled(c, e);
            } finally {
                writing.remove(c);
            }
        }

        /** The failure of a body write whose connection was closed: an idle timeout where the watchdog closed it. */
        private IOException stalled(Connection c, ClosedChannelException e) {
            if (aborted || !c.stalled) {
                return e;
            }
            SocketTimeoutException t = new SocketTimeoutException(
                    "the socket took no body byte for " + idleMillis + " ms (idle timeout)");
            t.initCause(e);
            return t;
        }

        private Response readResponse(Connection c, boolean head) throws IOException {
            boolean first = true;
            while (true) {
                String status = first ? firstLine(c.in) : line(c.in);
                first = false;
                // HTTP/1.1 200 OK
                String[] p = status.split(" ", 3);
                if (p.length < 2 || !p[0].startsWith("HTTP/1.")) {
                    throw new IOException("not an HTTP/1.x response: " + status);
                }
                int code = Integer.parseInt(p[1]);
                SdkHttpResponse.Builder b = SdkHttpResponse.builder().statusCode(code)
                        .statusText(p.length > 2 ? p[2] : "");
                long length = -1;
                boolean chunked = false;
                boolean keep = p[0].equals("HTTP/1.1");
                String l;
                while (!(l = line(c.in)).isEmpty()) {
                    int colon = l.indexOf(':');
                    if (colon <= 0) {
                        throw new IOException("a malformed response header: " + l);
                    }
                    String name = l.substring(0, colon).trim();
                    String value = l.substring(colon + 1).trim();
                    b.appendHeader(name, value);
                    switch (name.toLowerCase(Locale.ROOT)) {
                        case "content-length" -> length = Long.parseLong(value);
                        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                        case "connection" -> keep = !value.equalsIgnoreCase("close") && (keep
                                || value.equalsIgnoreCase("keep-alive"));
                        default -> { }
                    }
                }
                if (code >= 100 && code < 200) {
                    continue; // an interim response (100 Continue): the final one follows
                }
                boolean none = head || code == 204 || code == 304;
                return new Response(b.build(), none ? 0 : chunked ? -2 : length, keep && (none || chunked
                        || length >= 0));
            }
        }

        @Override
        public void abort() {
            aborted = true;
            Connection c = connection;
            if (c != null) {
                c.close();
            }
        }
    }

    /** A pooled connection ended before any response byte. */
    private static final class StaleConnection extends IOException {
        StaleConnection() {
            super("a pooled connection was closed by the server");
        }
    }

    /** The connection ended before the response's first byte. */
    private static final class NoResponse extends EOFException {
        NoResponse() {
            super("the connection ended before a response");
        }
    }

    /** A response's first line; {@link NoResponse} when the connection ends before its first byte. */
    private static String firstLine(InputStream in) throws IOException {
        in.mark(1);
        if (in.read() < 0) {
            throw new NoResponse();
        }
        in.reset();
        return line(in);
    }

    /** A response head; {@code length} is -2 for chunked, -1 for "until the connection ends". */
    private record Response(SdkHttpResponse response, long length, boolean keepAlive) {
        InputStream body(Connection c, Runnable done) {
            if (length == 0) {
                done.run();
                return InputStream.nullInputStream();
            }
            return new BodyStream(c.in, length, done, c::close);
        }
    }

    /** A response line, without its CRLF; EOF before any byte is an {@link EOFException}. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        int ch;
        while ((ch = in.read()) >= 0) {
            if (ch == '\n') {
                int n = b.size();
                byte[] a = b.toByteArray();
                return new String(a, 0, n > 0 && a[n - 1] == '\r' ? n - 1 : n, StandardCharsets.ISO_8859_1);
            }
            if (b.size() > 64 << 10) {
                throw new IOException("a response line longer than 64 KiB");
            }
            b.write(ch);
        }
        throw new EOFException("the connection ended" + (b.size() > 0 ? " within a response line" : ""));
    }

    /**
     * A response body: {@code length} bytes, chunked ({@code -2}) or up to the end of the connection
     * ({@code -1}). Read to its end, it calls {@code done} (the connection back to the pool); closed
     * before, it calls {@code abort} (the connection closed: its unread bytes would be the next response's).
     */
    private static final class BodyStream extends InputStream {
        /** The most bytes {@link #close()} reads to keep the connection. */
        private static final int DRAIN = 64 << 10;
        private final InputStream in;
        private final Runnable done;
        private final Runnable abort;
        private final boolean chunked;
        private long left; // bytes left in the body or the current chunk; -1: to the end
        private boolean end;
        private boolean closed;

        BodyStream(InputStream in, long length, Runnable done, Runnable abort) {
            this.in = in;
            this.done = done;
            this.abort = abort;
            this.chunked = length == -2;
            this.left = chunked ? 0 : length;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : Byte.toUnsignedInt(one[0]);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (end || closed) {
                return -1;
            }
            if (len == 0) {
                return 0;
            }
            if (chunked && left == 0) {
                String size = line(in);
                int semi = size.indexOf(';');
                left = Long.parseLong((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
                if (left == 0) {
                    while (!line(in).isEmpty()) {
                        // trailers: none expected, skipped
                    }
                    return finish();
                }
            }
            if (left == 0) {
                return finish();
            }
            int n = in.read(b, off, left < 0 ? len : (int) Math.min(len, left));
            if (n < 0) {
                if (left < 0) {
                    end = true;
                    closed = true;
                    abort.run();
                    return -1;
                }
                throw new EOFException("the connection ended " + left + " bytes before the body's end");
            }
            if (left > 0) {
                left -= n;
                if (chunked && left == 0) {
                    line(in); // the CRLF after the chunk
                } else if (!chunked && left == 0) {
                    end = true;
                    closed = true;
                    done.run();
                }
            }
            return n;
        }

        private int finish() {
            end = true;
            closed = true;
            done.run();
            return -1;
        }

        /**
         * Closes the body: a rest of up to {@value #DRAIN} bytes is read first, so that the
         * connection goes back to the pool (the SDK closes small bodies it has no use for unread,
         * an UploadPart's among them); a longer one, or one that fails, closes the connection.
         */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            try {
                byte[] skip = new byte[4096];
                long drained = 0;
                while (!end && drained <= DRAIN) {
                    int n = read(skip, 0, skip.length);
                    if (n < 0) {
                        return; // read to its end: done() ran
                    }
                    drained += n;
                }
            } catch (IOException | RuntimeException e) {
                // closed below
            }
            if (!closed) {
                closed = true;
                abort.run();
            }
        }
    }
}
