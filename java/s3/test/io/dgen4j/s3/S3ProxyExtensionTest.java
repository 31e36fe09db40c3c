package io.dgen4j.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The test server itself: it runs on 127.0.0.1, refuses unsigned requests, makes buckets, dies when killed. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3ProxyExtensionTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Test
    @Order(1)
    void servesOnLoopbackWithTheClassBucketAndRefusesUnsignedRequests() throws Exception {
        assertEquals("127.0.0.1", S3.endpoint().getHost());
        assertTrue(Files.isDirectory(S3.dataDir().resolve(S3.bucket())), "bucket directory " + S3.bucket());
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(S3.endpoint().resolve("/" + S3.bucket())).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(403, r.statusCode(), r.body());
        }
        assertEquals("second-bucket", S3.createBucket("second-bucket"));
        assertTrue(Files.isDirectory(S3.dataDir().resolve("second-bucket")));
        assertTrue(S3.settings().toString().contains("http://127.0.0.1:" + S3.endpoint().getPort()));
    }

    @Test
    @Order(2)
    void killStopsItAtOnce() throws Exception {
        S3.kill();
        assertFalse(S3.isRunning());
        try (HttpClient http = HttpClient.newHttpClient()) {
            assertThrows(IOException.class, () -> http.send(HttpRequest.newBuilder(S3.endpoint()).build(),
                    HttpResponse.BodyHandlers.discarding()));
        }
    }
}
