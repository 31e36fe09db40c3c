package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * quickstart and compare on a filesystem in memory say, in one line, that their figures measure
 * memory; quickstart's lines reach a pipe as each step ends.
 */
class MemoryTargetCliTest {
    @TempDir
    Path dir;

    private static String note(Path where, String type) {
        return "note: " + where + " is on " + type + ", in memory: these figures measure memory, not a disk; point"
                + " TEST_CHECKPOINT_DIR (or --dir) at a disk";
    }

    @Test
    void tmpfsAndRamfsTargetsAreNamedAsMemoryAndADiskIsNot() throws Exception {
        assertEquals("0", MisuseTest.uid(), "this test mounts tmpfs and ramfs and must run as root, as CI does");
        for (String type : List.of("tmpfs", "ramfs")) {
            Path mnt = Files.createDirectories(dir.resolve(type));
            MisuseTest.exec("mount", "-t", type, "-o", "size=64m", type, mnt.toString());
            try {
                CliRun cmp = CliRun.of(Map.of(), "compare", "--dir", mnt.toString(), "--size", "8MiB", "--chunk", "4MiB");
                assertEquals(0, cmp.code(), cmp.err());
                assertTrue(cmp.out().startsWith(note(mnt, type) + "\n"), cmp.out());
                CliRun json = CliRun.of(Map.of(), "compare", "--dir", mnt.toString(), "--size", "8MiB", "--chunk",
                        "4MiB", "--json");
                assertEquals(0, json.code(), json.err());
                assertEquals(note(mnt, type) + "\n", json.err(), "with --json the note goes to stderr");
                assertTrue(json.out().startsWith("{"), json.out());

                CliRun quick = CliRun.of(Map.of("TEST_CHECKPOINT_DIR", mnt.toString()), "quickstart", "--size", "8MiB",
                        "--chunk", "4MiB", "--no-s3");
                assertEquals(0, quick.code(), quick.err());
                List<String> lines = quick.out().lines().toList();
                assertTrue(lines.get(0).startsWith("dgen4j quickstart in " + mnt + "/dgen4j-quickstart-"), quick.out());
                assertEquals(note(mnt, type), lines.get(1), quick.out());
                assertEquals(1, lines.stream().filter(l -> l.startsWith("note: ")).count(), quick.out());
            } finally {
                MisuseTest.exec("umount", mnt.toString());
            }
        }
        // the test's temp dir is on a disk (ext4 on CI): no note
        assertFalse(List.of("tmpfs", "ramfs", "overlay").contains(Files.getFileStore(dir).type()),
                "this check needs the temp dir on a disk; it is on " + Files.getFileStore(dir).type());
        CliRun disk = CliRun.of(Map.of(), "compare", "--dir", dir.toString(), "--size", "8MiB", "--chunk", "4MiB");
        assertEquals(0, disk.code(), disk.err());
        assertFalse(disk.out().contains("note:"), disk.out());
    }

    @Test
    void quickstartsFirstLinesReachAPipeBeforeTheRunEnds() throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "quickstart", "--dir", dir.toString(), "--size", "512MiB", "--no-s3")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        p.getOutputStream().close();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String first = r.readLine();
            boolean alive = p.isAlive();
            assertTrue(first != null && first.startsWith("dgen4j quickstart in "), first);
            assertTrue(alive, "the first line came only when the run had ended");
            String rest = r.lines().collect(java.util.stream.Collectors.joining("\n"));
            assertTrue(rest.contains("1. streaming save") && rest.contains("3. old vs new"), rest);
        } finally {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        assertEquals(0, p.exitValue());
    }
}
