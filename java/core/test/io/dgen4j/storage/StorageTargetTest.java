package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Targets as users type them: paths and file:// / direct:// URIs. */
class StorageTargetTest {
    @Test
    void urisArePercentDecodedAndLocalhostIsTheLocalHost() {
        assertEquals(Path.of("/tmp/a b"), StorageTarget.parse("file:///tmp/a%20b").path());
        assertEquals(Path.of("/tmp/é%.bin"), StorageTarget.parse("file:///tmp/%C3%A9%25.bin").path());
        assertEquals(Path.of("/tmp/x"), StorageTarget.parse("file://localhost/tmp/x").path());
        assertEquals(Path.of("/tmp/x"), StorageTarget.parse("FILE://LOCALHOST/tmp/x").path());
        StorageTarget d = StorageTarget.parse("direct://localhost/tmp/x%3Fy");
        assertEquals(Path.of("/tmp/x?y"), d.path());
        assertEquals(StorageTarget.DIRECT, d.scheme());
        assertEquals(Path.of("rel/x").toAbsolutePath(), StorageTarget.parse("direct://rel/x").path());
        assertEquals(Path.of("/tmp/a%20b"), StorageTarget.parse("/tmp/a%20b").path(), "a plain path is not decoded");
    }

    @Test
    void badTargetsAreRefusedWithTheReason() {
        assertMessage("file://server/tmp/x", "names host 'server': the file backend is local");
        assertMessage("file:///tmp/dir/", "ends with '/': a checkpoint target is a file");
        assertMessage("/tmp/dir/", "ends with '/': a checkpoint target is a file");
        assertMessage("/tmp/..", "names a directory");
        assertMessage("file://", "names no file");
        assertMessage("file:///tmp/%zz", "'%' at index 5 is not followed by two hex digits");
        assertMessage("file:///tmp/%ff", "its percent-escapes are not UTF-8");
        assertMessage("file:///tmp/a%00b", "is not a valid path");
        assertMessage("s 3://bucket/x", "is not a URI scheme");
        assertMessage(" ", "got nothing");
        for (String t : List.of("file://u:SECRET@localhost/tmp/x", "direct://u:SECRET@/tmp/x", "s3://u:SECRET@b/k",
                "az://SECRET@acct/c")) {
            var e = assertThrows(IllegalArgumentException.class, () -> StorageTarget.parse(t));
            assertTrue(e.getMessage().contains("carries user info (user:secret@): credentials never go in a target"),
                    e.getMessage());
            assertFalse(e.getMessage().contains("SECRET"), e.getMessage());
        }
        var bad = assertThrows(IllegalArgumentException.class, () -> StorageTarget.parse("s 3://u:SECRET@b/k"));
        assertEquals("bad URI s 3://***@b/k: 's 3' is not a URI scheme", bad.getMessage());
    }

    @Test
    void otherSchemesAreLeftToTheirBackendAndRefusedWhenNoneIsInstalled() {
        StorageTarget s3 = StorageTarget.parse("S3://bucket/dir/x.bin");
        assertEquals("s3", s3.scheme());
        assertEquals("bucket/dir/x.bin", s3.location());
        assertThrows(IllegalStateException.class, s3::path);
        var e = assertThrows(IllegalArgumentException.class,
                () -> StorageProviders.forTarget(s3, java.util.Optional.empty()));
        assertTrue(e.getMessage().startsWith("no storage backend for 's3://' in S3://bucket/dir/x.bin (installed: "
                + "file (direct://, file://))"), e.getMessage());
        var named = assertThrows(IllegalArgumentException.class,
                () -> StorageProviders.forTarget(StorageTarget.parse("/tmp/x"), java.util.Optional.of("aws")));
        assertTrue(named.getMessage().startsWith("no storage backend called 'aws' is installed"), named.getMessage());
        assertEquals("file", StorageProviders.forTarget(StorageTarget.parse("/tmp/x"), java.util.Optional.empty()).name());
        assertEquals("file", StorageProviders.forTarget(StorageTarget.parse("direct:///tmp/x"),
                java.util.Optional.of("FILE")).name());
    }

    @Test
    void namesTooLongForTheTemporaryNameAreRefused() {
        String fits = "n".repeat(StorageTarget.NAME_MAX - StorageTarget.DERIVED_NAME_OVERHEAD);
        StorageTarget.parse("/tmp/" + fits);
        assertMessage("/tmp/" + fits + "n", "is 213 bytes: with its temporary and manifest names (up to 43 bytes "
                + "more) it must be at most 212 bytes");
        // Bytes, not characters: 'é' is 2 bytes of UTF-8.
        assertMessage("/tmp/" + "é".repeat(107), "is 214 bytes");
        // The manifest's temporary name in FileStorage: "." + name + ".manifest.json.dgen4j-" + pid (<= 7
        // digits) + "-" + 8 hex + ".tmp".
        assertEquals(StorageTarget.DERIVED_NAME_OVERHEAD, ".".length() + ".manifest.json".length()
                + ".dgen4j-".length() + 7 + "-".length() + 8 + ".tmp".length());
    }

    private static void assertMessage(String target, String part) {
        var e = assertThrows(IllegalArgumentException.class, () -> StorageTarget.parse(target));
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
