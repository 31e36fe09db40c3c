package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/** The storage contract, kept by the file backend (found through the service loader, like any other). */
class FileStorageContractTest extends StorageContract {
    @TempDir
    Path dir;

    @Override
    protected StorageProvider provider() {
        return StorageProviders.named("file").orElseThrow();
    }

    @Override
    protected StorageTarget target(String name) {
        return StorageTarget.parse(dir.resolve(name).toString());
    }

    @Override
    protected void assertNoTrace(StorageTarget target) throws IOException {
        String name = target.path().getFileName().toString();
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(), s.map(p -> p.getFileName().toString()).filter(n -> n.contains(name)).toList());
        }
    }
}
