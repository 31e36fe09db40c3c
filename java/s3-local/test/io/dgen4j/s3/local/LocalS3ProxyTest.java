package io.dgen4j.s3.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local server the CLI starts: random keys on 127.0.0.1, its temporary files gone after close. */
class LocalS3ProxyTest {
    /** The property the parent pom's surefire sets to the jar this module's pom copies. */
    private static final String JAR_PROPERTY = "dgen4j.test.s3proxy";

    private static Path jar() {
        String jar = System.getProperty(JAR_PROPERTY);
        assertTrue(jar != null && Files.isRegularFile(Path.of(jar)), "surefire names the s3proxy jar in "
                + JAR_PROPERTY + ": " + jar);
        return Path.of(jar);
    }

    @Test
    void aTemporaryServerHasRandomKeysAndRemovesItsFilesWhenClosed() throws Exception {
        Path dir;
        String firstKey;
        String firstSecret;
        try (LocalS3Proxy s3 = LocalS3Proxy.startTemporary(jar())) {
            dir = s3.dir();
            firstKey = s3.accessKey();
            firstSecret = s3.secretKey();
            assertTrue(firstKey.length() >= 16 && firstSecret.length() >= 32, firstKey);
            assertEquals("127.0.0.1", s3.endpoint().getHost());
            assertEquals("ckpt", s3.createBucket("ckpt"));
            assertTrue(Files.isDirectory(s3.dataDir().resolve("ckpt")));
            try (HttpClient http = HttpClient.newHttpClient()) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(s3.endpoint().resolve("/ckpt")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(403, r.statusCode(), "unsigned requests are refused: " + r.body());
            }
        }
        assertFalse(Files.exists(dir), "its directory is removed: " + dir);
        try (LocalS3Proxy other = LocalS3Proxy.startTemporary(jar())) {
            assertNotEquals(firstKey, other.accessKey(), "each server has its own keys");
            assertNotEquals(firstSecret, other.secretKey(), "each server has its own keys");
            other.kill();
            assertFalse(other.isRunning());
        }
    }

    @Test
    void anotherServerAnsweringOnThePortIsNotTakenForOurs(@TempDir Path tmp) throws Exception {
        // as when a free port is taken between its choice and s3proxy's bind (servers starting side by side)
        com.sun.net.httpserver.HttpServer other = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 10);
        other.createContext("/", x -> {
            x.sendResponseHeaders(403, -1);
            x.close();
        });
        other.start();
        try {
            int port = other.getAddress().getPort();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> LocalS3Proxy.start(jar(), tmp, "k", "s", port));
            assertTrue(e.getMessage().contains("Failed to bind"), e.getMessage());
        } finally {
            other.stop(0);
        }
    }

    @Test
    void aMissingJarIsNamed(@TempDir Path tmp) {
        Path none = tmp.resolve("none.jar");
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> LocalS3Proxy.startTemporary(none));
        assertEquals(none.toString(), e.getFile());
        try (var s = Files.list(tmp)) {
            assertEquals(0, s.count());
        } catch (java.io.IOException io) {
            throw new java.io.UncheckedIOException(io);
        }
    }
}
