package io.dgen4j.crt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dgen4j.s3.S3ClientKit;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What the crt backend's tests share: the backend as the service loader finds it, and trace checks. */
final class CrtTests {
    private CrtTests() {}

    /** The backend, found through the service loader like any other. */
    static StorageProvider crt() {
        return new S3ClientKit(CrtClient.NAME).provider();
    }

    static StorageTarget target(S3ProxyExtension s3, String key) {
        return StorageTarget.parse("s3://" + s3.bucket() + "/" + key);
    }

    static StorageOptions options(S3Settings settings) {
        return StorageOptions.empty().with(settings);
    }

    /**
     * Asserts that nothing of {@code key} is left on the server: no object and no multipart
     * upload, seen both in the server's files (the filesystem backend keeps an object as a file
     * named by its key, and an upload's parts as {@code .mpus-<upload id>-<key>-<n>}) and through
     * ListMultipartUploads.
     */
    static void assertNoTrace(S3ProxyExtension s3, String key) throws IOException {
        Path bucket = s3.dataDir().resolve(s3.bucket());
        String leaf = key.substring(key.lastIndexOf('/') + 1);
        try (Stream<Path> files = Files.walk(bucket)) {
            List<String> left = files.filter(Files::isRegularFile).map(p -> bucket.relativize(p).toString())
                    .filter(n -> n.contains(leaf)).toList();
            assertEquals(List.of(), left, "files of " + key + " left in the server's bucket directory");
        }
        assertEquals(List.of(), openUploads(s3, key), "open multipart uploads of " + key);
    }

    /** The ids of the multipart uploads open for exactly {@code key}. */
    static List<String> openUploads(S3ProxyExtension s3, String key) throws IOException {
        return new S3ClientKit(CrtClient.NAME).openUploads(s3, key);
    }
}
