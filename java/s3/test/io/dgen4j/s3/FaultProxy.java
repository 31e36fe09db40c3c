package io.dgen4j.s3;

import io.dgen4j.s3.Http1.DataSink;
import io.dgen4j.s3.Http1.Framing;
import io.dgen4j.s3.Http1.Head;
import io.dgen4j.s3.Http1.Wire;
import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injecting HTTP/1.1 forwarder for tests: listeners on 127.0.0.1 (one per upstream: several
 * make the "gateways" of an endpoint set), each forwarding every request, byte for byte, to its
 * upstream S3 server (s3proxy), except those an {@link Injection} picks, to which it does what its
 * {@link Fault} says: delay, stall, drop or reset the connection after some bytes, flip a byte of a
 * body, answer garbage or a chosen S3 error status, trickle the answer, or take the listener down
 * for a while. A listener can also be a black hole ({@link #blackHole(int, boolean)}). It records
 * every request it saw ({@link #seen()}), so tests can assert which faults fired.
 *
 * {@snippet :
 * try (FaultProxy proxy = FaultProxy.start(S3.endpoint())) {
 *     Injection flip = proxy.inject(Match.uploadPart(3), Fault.flipRequestBody(0));
 *     proxy.inject(Match.rangedGet(), Fault.status(503), 2, FaultProxy.EVERY);  // the 2nd and later
 *     S3Settings s = proxy.settings(S3.settings());                            // its endpoint instead
 *     ... save and load with s ...
 *     assertEquals(1, flip.fired());
 * }
 * }
 *
 * <p>Each client connection gets a fresh upstream connection per request (so an upstream's idle
 * timeout never meets a stale connection); the client's connection is kept alive as the client and
 * the upstream's answer allow. Requests and responses may carry their bodies by Content-Length or
 * chunked transfer coding (and {@code aws-chunked} inside either), responses also until the close;
 * {@code Expect: 100-continue} gets the upstream's interim answer.
 */
public final class FaultProxy implements AutoCloseable {
    /** As {@code times}: every matching request from the n-th on. */
    public static final int EVERY = Integer.MAX_VALUE;
    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** How long an upstream may take to answer {@code Expect: 100-continue} before the body goes anyway. */
    private static final int CONTINUE_WAIT_MS = 1000;

    private final List<Listener> listeners = new ArrayList<>();
    private final List<Injection> injections = new CopyOnWriteArrayList<>();
    private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile boolean closed;

    private FaultProxy() {
    }

    /** Starts one listener forwarding to {@code upstream} ({@code http://host:port}). */
    public static FaultProxy start(URI upstream) throws IOException {
        return start(List.of(upstream));
    }

    /**
     * Starts one listener per upstream, listener {@code i} forwarding to {@code upstreams.get(i)}
     * (name one upstream n times for n gateways of one server).
     */
    public static FaultProxy start(List<URI> upstreams) throws IOException {
        if (upstreams.isEmpty()) {
            throw new IllegalArgumentException("a fault proxy needs at least one upstream");
        }
        FaultProxy p = new FaultProxy();
        try {
            for (URI u : upstreams) {
                if (!"http".equals(u.getScheme()) || u.getPort() < 0) {
                    throw new IllegalArgumentException("the fault proxy forwards to http://host:port, not " + u);
                }
                p.listeners.add(p.new Listener(p.listeners.size(), new InetSocketAddress(u.getHost(), u.getPort())));
            }
            for (Listener l : p.listeners) {
                l.acceptor = p.spawn("fault-proxy-" + l.index, l::acceptLoop);
            }
        } catch (IOException | RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    /** The first listener's address, {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return endpoint(0);
    }

    /** Listener {@code i}'s address. */
    public URI endpoint(int i) {
        return URI.create("http://127.0.0.1:" + listeners.get(i).port);
    }

    /** Every listener's address, in order. */
    public List<URI> endpoints() {
        List<URI> out = new ArrayList<>();
        for (int i = 0; i < listeners.size(); i++) {
            out.add(endpoint(i));
        }
        return out;
    }

    /**
     * {@code base} pointed at this proxy: its one listener as the endpoint, or every listener as an
     * endpoint set with {@code base}'s strategy (round-robin when it has none).
     */
    public S3Settings settings(S3Settings base) {
        if (listeners.size() == 1) {
            return base.toBuilder().endpoint(endpoint()).build();
        }
        EndpointSet.Strategy strategy = base.endpointSet().map(EndpointSet::strategy)
                .orElse(EndpointSet.Strategy.ROUND_ROBIN);
        return base.toBuilder().endpointSet(EndpointSet.builder().endpoints(endpoints()).strategy(strategy).build())
                .build();
    }

    /** Applies {@code fault} to the first request {@code match} picks, once. */
    public Injection inject(Match match, Fault fault) {
        return inject(match, fault, 1, 1);
    }

    /**
     * Applies {@code fault} to the {@code nth} request {@code match} picks (counting from 1) and the
     * ones after it, {@code times} requests in all ({@link #EVERY}: no bound). When several
     * injections would take one request the earliest added does; every matching one counts it.
     */
    public Injection inject(Match match, Fault fault, int nth, int times) {
        if (nth < 1 || times < 1) {
            throw new IllegalArgumentException("nth and times count from 1: " + nth + ", " + times);
        }
        Injection i = new Injection(Objects.requireNonNull(match), Objects.requireNonNull(fault), nth, times);
        injections.add(i);
        return i;
    }

    /** The injections in force, in the order they were added (for a kit that checks each one fired). */
    List<Injection> injections() {
        return List.copyOf(injections);
    }

    /** Stops applying {@code i}. */
    public void remove(Injection i) {
        injections.remove(i);
    }

    /** Removes every injection, ends black-hole mode on every listener, and forgets what was seen. */
    public void clear() {
        injections.clear();
        for (Listener l : listeners) {
            l.blackHole = false;
        }
        exchanges.clear();
        for (Listener l : listeners) {
            l.accepted.set(0);
        }
    }

    /**
     * Makes every listener a black hole ({@code on}) or a forwarder again: see
     * {@link #blackHole(int, boolean)}.
     */
    public void blackHole(boolean on) {
        for (int i = 0; i < listeners.size(); i++) {
            blackHole(i, on);
        }
    }

    /**
     * Makes listener {@code i} accept connections and never read from or answer them ({@code on}), as
     * a gateway whose server hangs does; connections it takes so stay open (unanswered) until
     * {@link #close()}, also after it forwards again.
     */
    public void blackHole(int i, boolean on) {
        listeners.get(i).blackHole = on;
    }

    /**
     * Takes listener {@code i} down for {@code d} from now: its connections are closed and new ones
     * refused (its port is closed) until then, when it listens on the same port again. Returns once
     * the port refuses connections.
     */
    public void outage(int i, Duration d) {
        listeners.get(i).outage(d);
    }

    /** Every request seen so far, in the order they came (across listeners and connections). */
    public List<Seen> seen() {
        return exchanges.stream().map(Exchange::snapshot).toList();
    }

    /** How many requests seen so far {@code match} picks. */
    public int count(Match match) {
        return (int) exchanges.stream().map(Exchange::snapshot).filter(match).count();
    }

    /**
     * Waits until {@code n} requests that {@code match} picks have been seen, up to {@code timeout};
     * returns whether they were.
     */
    public boolean await(Match match, int n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(match) < n) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** Connections accepted so far by every listener (black-holed ones too). */
    public int connections() {
        return listeners.stream().mapToInt(l -> l.accepted.get()).sum();
    }

    /** Connections accepted so far by listener {@code i}. */
    public int connections(int i) {
        return listeners.get(i).accepted.get();
    }

    /** Closes every listener and connection and ends every thread of the proxy (waiting up to 10 s). */
    @Override
    public void close() {
        closed = true;
        for (Listener l : listeners) {
            l.closeServer();
        }
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        // a connection accepted as the proxy closed may start a thread after this began: go round until none is left
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        boolean interrupted = false;
        while (!threads.isEmpty() && System.nanoTime() < deadline) {
            for (Socket s : sockets) {
                closeQuietly(s);
            }
            for (Thread t : threads) {
                t.interrupt();
                try {
                    t.join(Duration.ofMillis(50));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        List<String> alive = threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!alive.isEmpty()) {
            throw new IllegalStateException("the fault proxy's threads did not end within 10 s: " + alive);
        }
    }

    private Thread spawn(String name, Runnable body) {
        Thread t = Thread.ofVirtual().name(name).unstarted(() -> {
            try {
                body.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        });
        threads.add(t);
        t.start();
        return t;
    }

    private Injection pick(Seen s) {
        synchronized (injections) {
            Injection chosen = null;
            for (Injection i : injections) {
                if (i.match.test(s)) {
                    int m = i.matched.incrementAndGet();
                    if (chosen == null && m >= i.nth && i.fired.get() < i.times) {
                        i.fired.incrementAndGet();
                        chosen = i;
                    }
                }
            }
            return chosen;
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
    }

    private static void pause(Duration d) throws InterruptedIOException {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("the fault proxy is closing");
        }
    }

    /** What to do to a request. Make one with the static methods. */
    public sealed interface Fault {
        /** Wait {@code d} before forwarding the request. */
        record DelayRequest(Duration d) implements Fault { }

        /** Forward the request and wait {@code d} before answering with the upstream's response. */
        record DelayResponse(Duration d) implements Fault { }

        /** Read the request (and whatever follows) and never answer; nothing reaches the upstream. */
        record Stall() implements Fault { }

        /**
         * Forward the request's head and its first {@code bodyBytes} body bytes, then close the
         * connections (with a TCP reset when {@code reset}); no answer. A shorter body is forwarded
         * whole and the connections are closed all the same.
         */
        record DropRequest(long bodyBytes, boolean reset) implements Fault { }

        /**
         * Forward the request and send the first {@code bytes} bytes of the upstream's answer (status
         * line and headers included: 0 sends nothing), then, once the upstream's whole answer is read
         * (the store is done with the request), close the connection (with a TCP reset when
         * {@code reset}, which may lose bytes still in flight).
         */
        record DropResponse(long bytes, boolean reset) implements Fault { }

        /**
         * Forward the request with the byte at {@code offset} of its body's data inverted (the data,
         * not its framing: chunked and {@code aws-chunked} framing stays intact).
         */
        record FlipRequestBody(long offset) implements Fault { }

        /** Forward the request; invert the byte at {@code offset} of the answer's body data. */
        record FlipResponseBody(long offset) implements Fault { }

        /** Read the request and answer bytes that are not HTTP, then close; nothing reaches the upstream. */
        record Garbage() implements Fault { }

        /**
         * Read the request and answer {@code status} with an S3 error body of {@code code}; nothing
         * reaches the upstream. To a request that expects 100-continue, the answer comes before its
         * body and the connection is closed after it.
         */
        record Status(int status, String code) implements Fault { }

        /** Forward the request; send the answer {@code bytes} bytes at a time, every {@code every}. */
        record Trickle(int bytes, Duration every) implements Fault { }

        /** Take the listener down for {@code d} (see {@link FaultProxy#outage}) instead of forwarding. */
        record Outage(Duration d) implements Fault { }

        /** Waits {@code d} before forwarding. */
        static Fault delayRequest(Duration d) {
            return new DelayRequest(d);
        }

        /** Waits {@code d} before answering. */
        static Fault delayResponse(Duration d) {
            return new DelayResponse(d);
        }

        /** Takes the request and never answers. */
        static Fault stall() {
            return new Stall();
        }

        /** Closes the connection after {@code bodyBytes} of the request's body went upstream. */
        static Fault dropRequest(long bodyBytes) {
            return new DropRequest(bodyBytes, false);
        }

        /** Resets the connection after {@code bodyBytes} of the request's body went upstream. */
        static Fault resetRequest(long bodyBytes) {
            return new DropRequest(bodyBytes, true);
        }

        /** Resets the connection as soon as the request's head went upstream. */
        static Fault reset() {
            return new DropRequest(0, true);
        }

        /** Closes the connection after {@code bytes} of the answer (head included) went to the client. */
        static Fault dropResponse(long bytes) {
            return new DropResponse(bytes, false);
        }

        /** Resets the connection after {@code bytes} of the answer (head included) went to the client. */
        static Fault resetResponse(long bytes) {
            return new DropResponse(bytes, true);
        }

        /** Inverts the request body's byte at {@code offset}. */
        static Fault flipRequestBody(long offset) {
            return new FlipRequestBody(offset);
        }

        /** Inverts the response body's byte at {@code offset}. */
        static Fault flipResponseBody(long offset) {
            return new FlipResponseBody(offset);
        }

        /** Answers bytes that are not HTTP. */
        static Fault garbage() {
            return new Garbage();
        }

        /** Answers {@code status} with S3's usual code for it (503 and 429: SlowDown; 500: InternalError). */
        static Fault status(int status) {
            String code = switch (status) {
                case 503, 429 -> "SlowDown";
                case 500 -> "InternalError";
                case 400 -> "BadRequest";
                case 403 -> "AccessDenied";
                case 404 -> "NoSuchKey";
                default -> status >= 500 ? "InternalError" : "InvalidRequest";
            };
            return new Status(status, code);
        }

        /** Answers {@code status} with the S3 error code {@code code}. */
        static Fault status(int status, String code) {
            return new Status(status, code);
        }

        /** Sends the answer {@code bytes} at a time, every {@code every}. */
        static Fault trickle(int bytes, Duration every) {
            if (bytes < 1) {
                throw new IllegalArgumentException("trickle at least 1 byte at a time, not " + bytes);
            }
            return new Trickle(bytes, every);
        }

        /** Takes the listener down for {@code d}. */
        static Fault outage(Duration d) {
            return new Outage(d);
        }
    }

    /**
     * Which requests an injection takes: a method, a path pattern, query parameters present (with a
     * value) or absent, header fields present (matching a pattern), a listener. Immutable: each
     * method returns a narrower copy.
     *
     * {@snippet :
     * Match.put().query("partNumber", "3")        // UploadPart 3
     * Match.get().header("Range")                 // a ranged GET
     * Match.post().query("uploads")               // CreateMultipartUpload
     * }
     */
    public static final class Match implements Predicate<Seen> {
        private final String method;
        private final Pattern path;
        private final Map<String, String> query;
        private final List<String> noQuery;
        private final Map<String, Pattern> headers;
        private final int listener;

        private Match(String method, Pattern path, Map<String, String> query, List<String> noQuery,
                Map<String, Pattern> headers, int listener) {
            this.method = method;
            this.path = path;
            this.query = query;
            this.noQuery = noQuery;
            this.headers = headers;
            this.listener = listener;
        }

        /** Every request. */
        public static Match any() {
            return new Match(null, null, Map.of(), List.of(), Map.of(), -1);
        }

        /** Requests with this method. */
        public static Match method(String method) {
            return any().withMethod(method.toUpperCase(Locale.ROOT));
        }

        public static Match get() {
            return method("GET");
        }

        public static Match head() {
            return method("HEAD");
        }

        public static Match put() {
            return method("PUT");
        }

        public static Match post() {
            return method("POST");
        }

        public static Match delete() {
            return method("DELETE");
        }

        /** UploadPart of any part. */
        public static Match uploadPart() {
            return put().query("partNumber").query("uploadId");
        }

        /** UploadPart of part {@code n} (counting from 1). */
        public static Match uploadPart(int n) {
            return put().query("partNumber", Integer.toString(n)).query("uploadId");
        }

        /** PutObject (a PUT that is no part of a multipart upload). */
        public static Match putObject() {
            return put().noQuery("uploadId").noQuery("partNumber");
        }

        /** CreateMultipartUpload ({@code POST ?uploads}). */
        public static Match createUpload() {
            return post().query("uploads");
        }

        /** CompleteMultipartUpload ({@code POST ?uploadId=}). */
        public static Match completeUpload() {
            return post().query("uploadId");
        }

        /** AbortMultipartUpload ({@code DELETE ?uploadId=}). */
        public static Match abortUpload() {
            return delete().query("uploadId");
        }

        /** A GET with a Range header. */
        public static Match rangedGet() {
            return get().header("Range");
        }

        /** Only requests whose path (before {@code ?}, decoded) matches {@code regex} in full. */
        public Match path(String regex) {
            return new Match(method, Pattern.compile(regex), query, noQuery, headers, listener);
        }

        /** Only requests with the query parameter {@code name} (any value, or none: {@code ?uploads}). */
        public Match query(String name) {
            return query(name, null);
        }

        /** Only requests with the query parameter {@code name} equal to {@code value}. */
        public Match query(String name, String value) {
            Map<String, String> q = new LinkedHashMap<>(query);
            q.put(name, value);
            return new Match(method, path, java.util.Collections.unmodifiableMap(q), noQuery, headers, listener);
        }

        /** Only requests without the query parameter {@code name}. */
        public Match noQuery(String name) {
            List<String> n = new ArrayList<>(noQuery);
            n.add(name);
            return new Match(method, path, query, List.copyOf(n), headers, listener);
        }

        /** Only requests with the header field {@code name}. */
        public Match header(String name) {
            return header(name, ".*");
        }

        /** Only requests whose header field {@code name} matches {@code regex} in full. */
        public Match header(String name, String regex) {
            Map<String, Pattern> h = new LinkedHashMap<>(headers);
            h.put(name.toLowerCase(Locale.ROOT), Pattern.compile(regex, Pattern.DOTALL));
            return new Match(method, path, query, noQuery, java.util.Collections.unmodifiableMap(h), listener);
        }

        /** Only requests that came to listener {@code i}. */
        public Match listener(int i) {
            return new Match(method, path, query, noQuery, headers, i);
        }

        private Match withMethod(String m) {
            return new Match(m, path, query, noQuery, headers, listener);
        }

        @Override
        public boolean test(Seen s) {
            if (method != null && !method.equals(s.method())) {
                return false;
            }
            if (listener >= 0 && listener != s.listener()) {
                return false;
            }
            if (path != null && !path.matcher(s.path()).matches()) {
                return false;
            }
            Map<String, String> q = s.query();
            for (Map.Entry<String, String> e : query.entrySet()) {
                String v = q.get(e.getKey());
                if (v == null || (e.getValue() != null && !e.getValue().equals(v))) {
                    return false;
                }
            }
            for (String n : noQuery) {
                if (q.containsKey(n)) {
                    return false;
                }
            }
            for (Map.Entry<String, Pattern> e : headers.entrySet()) {
                String v = s.headers().get(e.getKey());
                if (v == null || !e.getValue().matcher(v).matches()) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return (method == null ? "any" : method) + (path == null ? "" : " " + path) + (query.isEmpty() ? ""
                    : " ?" + query) + (noQuery.isEmpty() ? "" : " !?" + noQuery) + (headers.isEmpty() ? ""
                    : " " + headers.keySet()) + (listener < 0 ? "" : " @" + listener);
        }
    }

    /** One fault applied to the requests one {@link Match} picks: how many it saw, how many it took. */
    public static final class Injection {
        private final Match match;
        private final Fault fault;
        private final int nth;
        private final int times;
        private final AtomicInteger matched = new AtomicInteger();
        private final AtomicInteger fired = new AtomicInteger();

        private Injection(Match match, Fault fault, int nth, int times) {
            this.match = match;
            this.fault = fault;
            this.nth = nth;
            this.times = times;
        }

        /** Requests its match picked so far (taken by it or not). */
        public int matched() {
            return matched.get();
        }

        /** Requests it applied its fault to so far. */
        public int fired() {
            return fired.get();
        }

        public Match match() {
            return match;
        }

        public Fault fault() {
            return fault;
        }

        @Override
        public String toString() {
            return fault + " on " + match + " from #" + nth + (times == EVERY ? ", every time" : ", " + times
                    + " times") + ": fired " + fired() + " of " + matched() + " matched";
        }
    }

    /**
     * A request the proxy saw: on which listener and connection (numbered from 1 across the proxy),
     * its place on that connection (from 1), its method, target and header fields (lower-case names),
     * the fault applied to it (null: forwarded as it was), and the status sent back (0 when none was).
     */
    public record Seen(int listener, long connection, int index, String method, String target,
            Map<String, String> headers, Fault fault, int status) {
        /** The path, before {@code ?}, decoded. */
        public String path() {
            int q = target.indexOf('?');
            return URLDecoder.decode(q < 0 ? target : target.substring(0, q), StandardCharsets.UTF_8);
        }

        /** The query parameters, decoded; a parameter without {@code =} has the value "". */
        public Map<String, String> query() {
            int q = target.indexOf('?');
            Map<String, String> out = new LinkedHashMap<>();
            if (q >= 0) {
                for (String p : target.substring(q + 1).split("&")) {
                    if (p.isEmpty()) {
                        continue;
                    }
                    int eq = p.indexOf('=');
                    String name = URLDecoder.decode(eq < 0 ? p : p.substring(0, eq), StandardCharsets.UTF_8);
                    out.put(name, eq < 0 ? "" : URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return "#" + connection + "." + index + "@" + listener + " " + method + " " + target + (fault == null
                    ? "" : " [" + fault + "]") + " -> " + status;
        }
    }

    /** A request being served: what {@link Seen} reports, with the status to come. */
    private static final class Exchange {
        final int listener;
        final long connection;
        final int index;
        final Head head;
        volatile Fault fault;
        volatile int status;

        Exchange(int listener, long connection, int index, Head head) {
            this.listener = listener;
            this.connection = connection;
            this.index = index;
            this.head = head;
        }

        Seen snapshot() {
            return new Seen(listener, connection, index, head.method(), head.target(), head.fields(), fault, status);
        }
    }

    /** Ends an exchange by closing its connections; {@code reset}: with a TCP reset. */
    private static final class Cutoff extends IOException {
        private static final long serialVersionUID = 1L;
        final boolean reset;

        Cutoff(boolean reset) {
            super(reset ? "reset" : "dropped");
            this.reset = reset;
        }
    }

    /** Passes {@code limit} bytes, then throws {@link Cutoff}. */
    private static final class Cut extends FilterOutputStream {
        private long left;
        private final boolean reset;

        Cut(OutputStream out, long limit, boolean reset) {
            super(out);
            this.left = limit;
            this.reset = reset;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            int k = (int) Math.min(len, left);
            out.write(b, off, k);
            left -= k;
            if (left == 0) {
                out.flush();
                throw new Cutoff(reset);
            }
        }
    }

    /** Passes the first {@code limit} bytes and flushes them, then swallows the rest. */
    private static final class Keep extends FilterOutputStream {
        private long left;

        Keep(OutputStream out, long limit) {
            super(out);
            this.left = limit;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            int k = (int) Math.min(len, left);
            if (k > 0) {
                out.write(b, off, k);
                left -= k;
                if (left == 0) {
                    out.flush();
                }
            }
        }
    }

    /** Sends {@code bytes} at a time, flushing each, every {@code every}. */
    private static final class Trickling extends FilterOutputStream {
        private final int bytes;
        private final Duration every;

        Trickling(OutputStream out, int bytes, Duration every) {
            super(out);
            this.bytes = bytes;
            this.every = every;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int k = Math.min(bytes, len);
                out.write(b, off, k);
                out.flush();
                off += k;
                len -= k;
                pause(every);
            }
        }
    }

    /** Inverts the byte at {@code offset} of the data runs it is given. */
    private static final class Flip implements DataSink {
        private final long offset;

        Flip(long offset) {
            this.offset = offset;
        }

        @Override
        public void data(byte[] b, int off, int n, long dataOffset) {
            if (offset >= dataOffset && offset < dataOffset + n) {
                b[off + (int) (offset - dataOffset)] ^= (byte) 0xff;
            }
        }
    }

    /** One port of 127.0.0.1 forwarding to one upstream. */
    private final class Listener {
        final int index;
        final InetSocketAddress upstream;
        final int port;
        final AtomicInteger accepted = new AtomicInteger();
        final Set<Socket> clients = ConcurrentHashMap.newKeySet();
        volatile ServerSocket server;
        volatile boolean blackHole;
        volatile long outageUntil;
        /** The server socket the acceptor is blocked in {@code accept()} on, else null. */
        volatile ServerSocket accepting;
        Thread acceptor;

        Listener(int index, InetSocketAddress upstream) throws IOException {
            this.index = index;
            this.upstream = upstream;
            this.server = bind(0);
            this.port = server.getLocalPort();
        }

        private static ServerSocket bind(int port) throws IOException {
            ServerSocket s = new ServerSocket();
            try {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(LOOPBACK, port), 128);
                return s;
            } catch (IOException e) {
                s.close();
                throw e;
            }
        }

        void acceptLoop() {
            while (!closed) {
                ServerSocket s = server;
                if (s == null) {
                    if (!reopen()) {
                        return;
                    }
                    continue;
                }
                Socket c;
                accepting = s;
                try {
                    c = s.accept();
                } catch (IOException e) {
                    continue; // closed by an outage or by close()
                } finally {
                    accepting = null;
                }
                if (closed || server != s) {
                    closeQuietly(c);
                    continue;
                }
                accepted.incrementAndGet();
                sockets.add(c);
                clients.add(c);
                if (blackHole) {
                    continue; // held open, never read: closed by an outage or close()
                }
                long id = connectionIds.incrementAndGet();
                spawn("fault-proxy-" + index + "-" + id, () -> serve(c, id));
            }
        }

        /** Waits out an outage and listens again on the same port; false when the proxy closed meanwhile. */
        private boolean reopen() {
            while (!closed) {
                long wait = outageUntil - System.nanoTime();
                try {
                    if (wait > 0) {
                        Thread.sleep(Duration.ofNanos(Math.min(wait, 50_000_000L)));
                        continue;
                    }
                    synchronized (this) {
                        if (outageUntil - System.nanoTime() > 0) {
                            continue;
                        }
                        server = bind(port);
                    }
                    LOG.debug("fault proxy listener {} on port {} is back", index, port);
                    return true;
                } catch (InterruptedException e) {
                    return false;
                } catch (IOException e) {
                    LOG.warn("fault proxy listener {} cannot listen on port {} again yet: {}", index, port, e.toString());
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException ie) {
                        return false;
                    }
                }
            }
            return false;
        }

        void outage(Duration d) {
            synchronized (this) {
                outageUntil = Math.max(outageUntil, System.nanoTime() + d.toNanos());
                LOG.debug("fault proxy listener {} on port {} down for {}", index, port, d);
                ServerSocket s = server;
                server = null;
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    awaitAcceptReturned(s);
                }
            }
            for (Socket c : clients) {
                closeQuietly(c);
            }
        }

        /**
         * Waits until the acceptor has left {@code accept()} on {@code s}: a thread blocked there
         * holds the kernel's socket open (close only signals it), so until it wakes the port still
         * takes connections. Bounded, so a stuck acceptor cannot hang the test that called this.
         */
        private void awaitAcceptReturned(ServerSocket s) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (accepting == s && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
                Thread.yield();
            }
            if (accepting == s) {
                throw new IllegalStateException("fault proxy listener " + index + " on port " + port
                        + " still accepts 10 s after its socket was closed");
            }
        }

        void closeServer() {
            synchronized (this) {
                ServerSocket s = server;
                server = null;
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException e) {
                        // closing: nothing to do
                    }
                    awaitAcceptReturned(s);
                }
            }
        }

        private void serve(Socket client, long id) {
            try {
                client.setTcpNoDelay(true);
                Wire in = new Wire(client.getInputStream());
                OutputStream out = new BufferedOutputStream(client.getOutputStream(), 64 << 10);
                for (int n = 1; !closed; n++) {
                    Head req = in.readHead();
                    if (req == null) {
                        return;
                    }
                    Exchange ex = new Exchange(index, id, n, req);
                    exchanges.add(ex);
                    Injection chosen = pick(ex.snapshot());
                    Fault f = chosen == null ? null : chosen.fault;
                    ex.fault = f;
                    if (f != null) {
                        LOG.debug("fault proxy: {} on {}", f, ex.snapshot());
                    }
                    if (!exchange(client, in, out, req, ex, f)) {
                        return;
                    }
                }
            } catch (Cutoff c) {
                if (c.reset) {
                    reset(client);
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    LOG.debug("fault proxy connection {} on listener {} ended: {}", id, index, e.toString());
                }
            } finally {
                closeQuietly(client);
                sockets.remove(client);
                clients.remove(client);
            }
        }

        /** Serves one request; returns whether the client's connection carries on. */
        private boolean exchange(Socket client, Wire in, OutputStream out, Head req, Exchange ex, Fault f)
                throws IOException {
            Framing reqBody = Framing.ofRequest(req);
            boolean expect = req.expectsContinue() && reqBody.hasBody();
            switch (f) {
                case Fault.Outage(Duration d) -> {
                    outage(d);
                    return false;
                }
                case Fault.Stall() -> {
                    while (in.fill() >= 0) {
                        in.pos = in.lim;
                    }
                    return false;
                }
                case Fault.Status(int status, String code) -> {
                    if (!expect) {
                        in.discard(reqBody);
                    }
                    ex.status = status;
                    out.write(errorResponse(req, status, code, expect || req.closes()));
                    out.flush();
                    if (expect || req.closes()) {
                        lingeringClose(client);
                        return false;
                    }
                    return true;
                }
                case Fault.Garbage() -> {
                    if (!expect) {
                        in.discard(reqBody);
                    }
                    out.write(GARBAGE);
                    out.flush();
                    lingeringClose(client);
                    return false;
                }
                case Fault.DelayRequest(Duration d) -> pause(d);
                case null, default -> { }
            }
            return forward(client, in, out, req, reqBody, expect, ex, f);
        }

        private boolean forward(Socket client, Wire in, OutputStream out, Head req, Framing reqBody, boolean expect,
                Exchange ex, Fault f) throws IOException {
            Socket up = new Socket();
            sockets.add(up);
            try {
                try {
                    up.connect(upstream, (int) CONNECT_TIMEOUT.toMillis());
                } catch (IOException e) {
                    // the upstream is gone: the client sees its connection fail, as it would with no proxy
                    LOG.debug("fault proxy listener {}: upstream {} refused: {}", index, upstream, e.toString());
                    reset(client);
                    return false;
                }
                up.setTcpNoDelay(true);
                Wire upIn = new Wire(up.getInputStream());
                OutputStream upOut = new BufferedOutputStream(up.getOutputStream(), 64 << 10);
                upOut.write(req.raw());
                upOut.flush();
                boolean bodySent = false;
                Head interim = null;
                if (expect && !(f instanceof Fault.DropRequest(long n, _) && n == 0)) {
                    up.setSoTimeout(CONTINUE_WAIT_MS);
                    try {
                        upIn.fill();
                    } catch (SocketTimeoutException e) {
                        // no interim answer: the body goes anyway, as clients send it after a wait
                    }
                    up.setSoTimeout(0);
                    if (upIn.pos < upIn.lim) {
                        interim = upIn.readHead();
                        if (interim != null && interim.status() == 100) {
                            out.write(interim.raw());
                            out.flush();
                            interim = null;
                        }
                    } else {
                        // the client waits for it: ours stands in
                        out.write(CONTINUE);
                        out.flush();
                    }
                }
                if (interim == null) {
                    OutputStream bodyOut = upOut;
                    if (f instanceof Fault.DropRequest(long n, boolean r)) {
                        bodyOut = new Cut(upOut, n, r);
                        if (n == 0) {
                            throw new Cutoff(r);
                        }
                    }
                    DataSink sink = DataSink.NONE;
                    if (f instanceof Fault.FlipRequestBody(long offset)) {
                        Flip flip = new Flip(offset);
                        if (req.awsChunked()) {
                            Http1.ChunkScanner inner = new Http1.ChunkScanner();
                            sink = (b, off, n, o) -> {
                                try {
                                    inner.scan(b, off, n, flip);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            };
                        } else {
                            sink = flip;
                        }
                    }
                    Http1.relay(in, bodyOut, reqBody, sink);
                    bodyOut.flush();
                    bodySent = true;
                    if (f instanceof Fault.DropRequest(_, boolean r)) {
                        throw new Cutoff(r); // the body was shorter than n: dropped all the same
                    }
                }
                Head resp = interim;
                while (resp == null) {
                    resp = upIn.readHead();
                    if (resp == null) {
                        LOG.debug("fault proxy listener {}: upstream closed without answering {}", index,
                                req.startLine());
                        reset(client);
                        return false;
                    }
                    if (resp.status() >= 100 && resp.status() < 200 && resp.status() != 101) {
                        if (!(bodySent && resp.status() == 100)) {
                            out.write(resp.raw());
                            out.flush();
                        }
                        resp = null;
                    }
                }
                if (f instanceof Fault.DelayResponse(Duration d)) {
                    pause(d);
                }
                OutputStream toClient = out;
                if (f instanceof Fault.Trickle(int bytes, Duration every)) {
                    toClient = new Trickling(toClient, bytes, every);
                }
                if (f instanceof Fault.DropResponse(long n, _)) {
                    // the whole answer is read from the upstream before the cut: a store may send its
                    // head before it is done (s3proxy's CompleteMultipartUpload does), and "the store
                    // acted, its answer was lost" means done
                    toClient = new Keep(toClient, n);
                }
                ex.status = resp.status();
                Framing respBody = Framing.ofResponse(resp, req.method());
                toClient.write(resp.raw());
                Http1.relay(upIn, toClient, respBody,
                        f instanceof Fault.FlipResponseBody(long offset) ? new Flip(offset) : DataSink.NONE);
                toClient.flush();
                if (f instanceof Fault.DropResponse(_, boolean r)) {
                    throw new Cutoff(r); // the answer was shorter than n: dropped all the same
                }
                if (!bodySent && reqBody.hasBody()) {
                    // a final answer to a request that expected 100-continue: its body never comes
                    lingeringClose(client);
                    return false;
                }
                return !req.closes() && !resp.closes() && respBody.kind() != Framing.Kind.UNTIL_CLOSE;
            } finally {
                closeQuietly(up);
                sockets.remove(up);
            }
        }
    }

    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] GARBAGE = ("\u0016\u0003\u0001\u0000\u00a5 this is not HTTP \u0000\u00ff\u00fe"
            + " garbage from the fault proxy \u0007\u0008\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);

    private static byte[] errorResponse(Head req, int status, String code, boolean close) {
        String body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>"
                + "injected by the fault proxy</Message><Resource>" + req.target().replace("&", "&amp;")
                .replace("<", "&lt;") + "</Resource><RequestId>FAULTPROXY</RequestId></Error>";
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + reason(status) + "\r\n"
                + "Content-Type: application/xml\r\n"
                + "Content-Length: " + b.length + "\r\n"
                + "x-amz-request-id: FAULTPROXY\r\n"
                + (close ? "Connection: close\r\n" : "")
                + "\r\n";
        byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
        if ("HEAD".equals(req.method())) {
            return h;
        }
        byte[] all = new byte[h.length + b.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(b, 0, all, h.length, b.length);
        return all;
    }

    private static String reason(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "Fault";
        };
    }

    /** Closes with a TCP reset (SO_LINGER 0): the peer's next read or write fails with "connection reset". */
    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (SocketException e) {
            // already closed
        }
        closeQuietly(s);
    }

    /**
     * Closes after an answer sent before the request's body was read: the write side first, then
     * what the client still sends is read and dropped (up to 2 s), so the close does not reset the
     * connection before the client has read the answer.
     */
    private static void lingeringClose(Socket s) {
        try {
            s.shutdownOutput();
            s.setSoTimeout(2000);
            byte[] sink = new byte[64 << 10];
            long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (System.nanoTime() < deadline && s.getInputStream().read(sink) >= 0) {
                // drop it
            }
        } catch (IOException e) {
            // the client went: nothing to do
        }
        closeQuietly(s);
    }
}
