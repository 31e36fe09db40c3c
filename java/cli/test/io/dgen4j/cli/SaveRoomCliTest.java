package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A save over an existing file needs room for both copies until its rename: on a 64 MiB tmpfs, a replace that
 * fits says nothing and works; one that does not is named in one note before any byte is written, then fails
 * on ENOSPC as before, leaving the old file and nothing else.
 */
class SaveRoomCliTest {
    @TempDir
    Path dir;

    @Test
    void aReplaceWithoutRoomForTheSecondCopyIsNamedAndOneWithRoomWorks() throws Exception {
        assertEquals("0", MisuseTest.uid(), "this test mounts a 64 MiB tmpfs and must run as root, as CI does");
        Path mnt = Files.createDirectories(dir.resolve("small"));
        MisuseTest.exec("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt.toString());
        try {
            Path f = mnt.resolve("ckpt");
            for (int i = 0; i < 2; i++) { // a new file, then a replace with room for both copies (2 x 24 MiB)
                CliRun r = CliRun.of(Map.of(), "save", f.toString(), "--size", "24MiB", "--chunk", "4MiB", "--no-progress");
                assertEquals(0, r.code(), r.err());
                assertEquals("", r.err());
                assertEquals(24L << 20, Files.size(f));
            }
            List<String> before = listing(mnt);

            long free = Files.getFileStore(mnt).getUsableSpace();
            CliRun r = CliRun.of(Map.of(), "save", f.toString(), "--size", "48MiB", "--chunk", "4MiB", "--no-progress");
            List<String> err = r.err().lines().toList();
            assertEquals("note: this save writes 48.00 MiB beside the 24.00 MiB of " + f + " it replaces (renamed over it"
                    + " at the end), but " + io.dgen4j.unit.ByteSize.approx(free) + " is free there: delete the old file first"
                    + " or free space", err.get(0), r.err());
            assertEquals(ExitCodes.IO, r.code(), r.err());
            assertEquals(2, err.size(), r.err());
            assertTrue(err.get(1).contains("No space left on device"), r.err());
            assertEquals(before, listing(mnt), "the old file stays, the new one's partial copy is gone");
            assertEquals(24L << 20, Files.size(f));
            CliRun load = CliRun.of(Map.of(), "load", f.toString(), "--verify", "--no-progress");
            assertEquals(0, load.code(), "the old checkpoint still loads and verifies: " + load.err());
        } finally {
            MisuseTest.exec("umount", mnt.toString());
        }
    }

    private static List<String> listing(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
