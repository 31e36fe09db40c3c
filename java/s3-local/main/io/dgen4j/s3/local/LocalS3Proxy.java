package io.dgen4j.s3.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local S3 server: s3proxy ({@code org.gaul:s3proxy}, its {@code jar-with-dependencies}) run as
 * a child JVM on a free port of 127.0.0.1, with the filesystem backend under a directory and
 * signed requests (AWS v2 or v4) required. The CLI starts one when no S3 endpoint is configured;
 * the tests' {@code S3ProxyExtension} and the S3 benchmarks run on it. It knows no dgen4j type (the
 * s3 module's test kit depends on it): callers make their settings from {@link #endpoint()},
 * {@link #accessKey()} and {@link #secretKey()}.
 *
 * {@snippet :
 * try (LocalS3Proxy s3 = LocalS3Proxy.startTemporary(Path.of("s3proxy.jar"))) {
 *     s3.createBucket("ckpt");
 *     URI endpoint = s3.endpoint();          // with s3.accessKey(), s3.secretKey()
 * }                                          // killed, its directory removed
 * }
 */
public final class LocalS3Proxy implements AutoCloseable {
    private static final Duration START_LIMIT = Duration.ofSeconds(90);

    private final Path jar;
    private final Path dir;
    private final boolean ownsDir;
    private final String accessKey;
    private final String secretKey;
    private final int port;
    private final Path log;
    private final Process process;

    private LocalS3Proxy(Path jar, Path dir, boolean ownsDir, String accessKey, String secretKey, int port, Path log,
            Process process) {
        this.jar = jar;
        this.dir = dir;
        this.ownsDir = ownsDir;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts s3proxy from {@code jar} over the files in {@code dir} (its buckets under
     * {@code dir/data}, created if missing), with these keys, and waits until it answers. The
     * directory stays after {@link #close()}.
     *
     * @throws IllegalStateException with the server's log when it exits or does not answer within 90 s
     * @throws java.nio.file.NoSuchFileException when {@code jar} is not a file
     */
    public static LocalS3Proxy start(Path jar, Path dir, String accessKey, String secretKey)
            throws IOException, InterruptedException {
        return start(jar, dir, false, accessKey, secretKey, 0);
    }

    /**
     * Starts s3proxy as {@link #start(Path, Path, String, String)} does, on {@code port} of 127.0.0.1
     * (0: a free one). Several servers over one {@code dir} serve the same buckets and uploads: they
     * act as gateways of one store.
     */
    public static LocalS3Proxy start(Path jar, Path dir, String accessKey, String secretKey, int port)
            throws IOException, InterruptedException {
        return start(jar, dir, false, accessKey, secretKey, port);
    }

    /**
     * Starts this server again, after {@link #kill()}, on the same port over the same files.
     *
     * @throws IllegalStateException when it is still running, or does not start
     */
    public LocalS3Proxy restart() throws IOException, InterruptedException {
        if (isRunning()) {
            throw new IllegalStateException("s3proxy is still running on " + endpoint());
        }
        return start(jar, dir, ownsDir, accessKey, secretKey, port);
    }

    /**
     * Starts s3proxy from {@code jar} in a new temporary directory with random keys; {@link #close()}
     * kills it and removes the directory.
     */
    public static LocalS3Proxy startTemporary(Path jar) throws IOException, InterruptedException {
        if (!Files.isRegularFile(jar)) {
            throw new java.nio.file.NoSuchFileException(jar.toString(), null, "no s3proxy jar here");
        }
        Path dir = Files.createTempDirectory("dgen4j-s3proxy-");
        SecureRandom random = new SecureRandom();
        byte[] id = new byte[8];
        byte[] secret = new byte[24];
        random.nextBytes(id);
        random.nextBytes(secret);
        try {
            return start(jar, dir, true, "local" + HexFormat.of().formatHex(id), HexFormat.of().formatHex(secret), 0);
        } catch (IOException | InterruptedException | RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
    }

    private static LocalS3Proxy start(Path jar, Path dir, boolean ownsDir, String accessKey, String secretKey,
            int fixedPort) throws IOException, InterruptedException {
        if (!Files.isRegularFile(jar)) {
            throw new java.nio.file.NoSuchFileException(jar.toString(), null, "no s3proxy jar here");
        }
        Files.createDirectories(dir.resolve("data"));
        // a free port may be taken before s3proxy binds it (servers start side by side, in other
        // processes too): then it says "Failed to bind" and exits, and another free port is tried
        for (int attempt = 1; ; attempt++) {
            int port = fixedPort > 0 ? fixedPort : freePort();
            try {
                return startOn(jar, dir, ownsDir, accessKey, secretKey, port);
            } catch (IllegalStateException e) {
                if (fixedPort > 0 || attempt == 3 || !String.valueOf(e.getMessage()).contains("Failed to bind")) {
                    throw e;
                }
            }
        }
    }

    private static LocalS3Proxy startOn(Path jar, Path dir, boolean ownsDir, String accessKey, String secretKey,
            int port) throws IOException, InterruptedException {
        // one file per server: several may run over one directory
        Path props = dir.resolve("s3proxy-" + port + ".properties");
        Files.writeString(props, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + accessKey,
                "s3proxy.credential=" + secretKey,
                "s3proxy.ignore-unknown-headers=true",
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + dir.resolve("data"),
                "jclouds.identity=" + accessKey,
                "jclouds.credential=" + secretKey,
                ""), StandardCharsets.UTF_8);
        Path log = dir.resolve("s3proxy-" + port + ".log");
        long logFrom = Files.exists(log) ? Files.size(log) : 0; // a restart appends to the log of its port
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = List.of(java.toString(), "-Xmx1g", "-XX:+UseParallelGC", "-jar", jar.toString(),
                "--properties", props.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        LocalS3Proxy s3 = new LocalS3Proxy(jar, dir, ownsDir, accessKey, secretKey, port, log, p);
        s3.awaitReady(logFrom);
        return s3;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The access key id the server accepts. */
    public String accessKey() {
        return accessKey;
    }

    /** The secret access key the server accepts (print it nowhere). */
    public String secretKey() {
        return secretKey;
    }

    /** The directory the server runs in. */
    public Path dir() {
        return dir;
    }

    /** The server's directory of buckets (the filesystem backend's base directory). */
    public Path dataDir() {
        return dir.resolve("data");
    }

    /** Whether the server process is running. */
    public boolean isRunning() {
        return process.isAlive();
    }

    /**
     * Kills the server at once and waits until it is gone, even when this thread is interrupted
     * (Ctrl-C's cleanup calls it so): the interrupt is kept for the caller.
     */
    public void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        boolean interrupted = Thread.interrupted();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    if (!process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        throw new IllegalStateException("s3proxy (pid " + process.pid()
                                + ") did not exit after SIGKILL");
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Kills the server; removes its directory when {@link #startTemporary} made it. */
    @Override
    public void close() throws IOException, InterruptedException {
        kill();
        if (ownsDir) {
            deleteTree(dir);
        }
    }

    /** The last lines of the server's log. */
    public String logTail() {
        try {
            List<String> lines = !Files.exists(log) ? List.of() : Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * Creates a bucket with a signed (AWS v2) PUT and returns its name.
     *
     * @throws IOException with the server's answer when it refuses
     */
    public String createBucket(String name) throws IOException, InterruptedException {
        HttpResponse<String> r = signed("PUT", "/" + name);
        if (r.statusCode() != 200) {
            throw new IOException("s3proxy refused to create bucket " + name + ": HTTP " + r.statusCode() + " "
                    + r.body());
        }
        return name;
    }

    /** Removes {@code dir} and everything under it, if it exists. */
    public static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private HttpResponse<String> signed(String method, String path) throws IOException, InterruptedException {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
        String toSign = method + "\n\n\n" + date + "\n" + path;
        String signature;
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            signature = Base64.getEncoder().encodeToString(mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 is missing", e);
        }
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpRequest req = HttpRequest.newBuilder(endpoint().resolve(path)).timeout(Duration.ofSeconds(30))
                    .header("Date", date).header("Authorization", "AWS " + accessKey + ":" + signature)
                    .method(method, HttpRequest.BodyPublishers.noBody()).build();
            return http.send(req, HttpResponse.BodyHandlers.ofString());
        }
    }

    /**
     * Waits until this process serves its port: it answers HTTP, and its log (from {@code logFrom})
     * says its connector started on the port; an answer alone may come from another server that
     * holds the port.
     */
    private void awaitReady(long logFrom) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(String.format("s3proxy exited with status %d while starting; its "
                            + "log:%n%s", process.exitValue(), logTail()));
                }
                try {
                    http.send(HttpRequest.newBuilder(endpoint().resolve("/")).timeout(Duration.ofSeconds(5)).GET()
                            .build(), HttpResponse.BodyHandlers.discarding());
                    if (bound(logFrom)) {
                        return; // any HTTP answer (403 without a signature) means it is serving
                    }
                    if (System.nanoTime() > deadline) {
                        kill();
                        throw new IllegalStateException(String.format("s3proxy did not say it serves %s within %d s "
                                + "(another server answers there); its log:%n%s", endpoint(), START_LIMIT.toSeconds(),
                                logTail()));
                    }
                    Thread.sleep(200);
                } catch (IOException e) {
                    if (System.nanoTime() > deadline) {
                        kill();
                        throw new IllegalStateException(String.format("s3proxy did not answer on %s within %d s; its "
                                + "log:%n%s", endpoint(), START_LIMIT.toSeconds(), logTail()), e);
                    }
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    kill();
                    throw e;
                }
            }
        }
    }

    /** Whether the log, from {@code from}, says the connector started on this server's port. */
    private boolean bound(long from) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(log)) {
            in.skipNBytes(from);
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.lines().anyMatch(l -> l.contains("Started") && l.contains("{127.0.0.1:" + port + "}"));
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
