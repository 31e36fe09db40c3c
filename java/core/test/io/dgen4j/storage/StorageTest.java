package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@link Storage} session owns its providers: its own instances, chosen as before, refused once closed. */
class StorageTest {
    @TempDir
    Path dir;

    @Test
    void eachSessionLoadsProvidersOfItsOwnAndChoosesAsBefore() {
        try (Storage one = Storage.open(); Storage two = Storage.open(Map.of(), dir)) {
            StorageProvider a = one.forTarget(StorageTarget.parse("/tmp/x"), Optional.empty());
            StorageProvider b = two.forTarget(StorageTarget.parse("/tmp/x"), Optional.empty());
            assertEquals("file", a.name());
            assertNotSame(a, b, "two sessions share no provider");
            assertEquals(a, one.named("FILE").orElseThrow());
            assertEquals(dir.toAbsolutePath(), two.workingDirectory());
            assertEquals(Map.of(), two.environment());
            var e = assertThrows(IllegalArgumentException.class,
                    () -> one.forTarget(StorageTarget.parse("S3://bucket/x.bin"), Optional.empty()));
            assertTrue(e.getMessage().startsWith("no storage backend for 's3://' in S3://bucket/x.bin (installed: "
                    + "file (direct://, file://))"), e.getMessage());
            var named = assertThrows(IllegalArgumentException.class,
                    () -> one.forTarget(StorageTarget.parse("/tmp/x"), Optional.of("aws")));
            assertTrue(named.getMessage().startsWith("no storage backend called 'aws' is installed"), named.getMessage());
        }
    }

    @Test
    void aClosedSessionRefusesUseSayingSo() throws Exception {
        Storage storage = Storage.open(Map.of(), dir);
        StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(64 << 10).storage(storage).build();
        Path file = dir.resolve("ckpt.bin");
        assertEquals(256L << 10, ckpt.save(file.toString(), 256L << 10).totalBytes());
        assertTrue(ckpt.load(file.toString(), true).verified(), "a session serves many saves and loads");
        assertFalse(storage.isClosed());
        assertEquals(List.of(), storage.close(Duration.ofSeconds(30)), "nothing left open, no wait");
        assertTrue(storage.isClosed());
        for (var use : List.<org.junit.jupiter.api.function.Executable>of(
                () -> ckpt.save(file.toString(), 256L << 10),
                () -> ckpt.load(file.toString(), true),
                () -> storage.forTarget(StorageTarget.parse("/tmp/x"), Optional.empty()),
                storage::backends)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, use);
            assertEquals("this storage session is closed: its backends and their clients are released (open a new "
                    + "one with Storage.open())", e.getMessage());
        }
        storage.close(); // again: nothing
        assertTrue(Files.exists(file), "the checkpoint saved before the close is there");
    }

    @Test
    void withoutASessionEachSaveOpensAndClosesItsOwn() throws Exception {
        Path file = dir.resolve("own.bin");
        StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(64 << 10).build();
        assertEquals(128L << 10, ckpt.save(file.toString(), 128L << 10).totalBytes());
        assertTrue(ckpt.load(file.toString(), true).verified());
        assertTrue(ckpt.delete(StorageTarget.parse(file.toString())));
    }

    @Test
    void closingInTheBackgroundWithNothingLeftOpenClosesAtOnce() {
        Storage storage = Storage.open(Map.of(), dir);
        storage.closeInBackground();
        assertTrue(storage.isClosed());
    }

    @Test
    void theAbortWaitIsReadFromTheSessionsEnvironment() {
        try (Storage s = Storage.open(Map.of(Storage.ABORT_WAIT_VAR, " 7 "), dir)) {
            assertEquals(Duration.ofSeconds(7), s.abortWait());
        }
        try (Storage s = Storage.open(Map.of(), dir)) {
            assertEquals(Duration.ofSeconds(30), s.abortWait());
        }
        var e = assertThrows(IllegalArgumentException.class,
                () -> Storage.open(Map.of(Storage.ABORT_WAIT_VAR, "1.5"), dir));
        assertEquals("DGEN4J_S3_ABORT_WAIT=1.5 must be a whole number of seconds from 0 to 3600 (0: do not wait; "
                + "unset: 30)", e.getMessage());
    }
}
