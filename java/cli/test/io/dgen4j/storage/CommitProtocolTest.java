package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dgen4j.checkpoint.CheckpointException;
import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.Manifest;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.storage.FileStorage.CommitStep;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The commit protocol of docs/CHECKPOINTS.md under faults at every step: an injected I/O error
 * (in-process), a process stopped dead between two system calls (kill -9, power cut), a SIGTERM
 * while a step is under way, a real failing system call (strace -e inject), and a second save of
 * the same target from another process and another thread. After each, a verified load sees the
 * complete old checkpoint or the complete new one, never a mix and never one without its spec.
 */
class CommitProtocolTest {
    /** The checkpoint being replaced, and the one replacing it: different seeds and sizes. */
    private static final long OLD_SEED = 11;
    private static final long OLD_SIZE = 3_000_017;
    private static final long NEW_SEED = 22;
    private static final long NEW_SIZE = 2_000_003;

    @TempDir
    Path dir;

    @AfterEach
    void resetHook() {
        FileStorage.stepHook(null);
    }

    /** Steps after which the new data is under the target's name. */
    private static boolean dataPlacedBefore(CommitStep step) {
        return step.ordinal() > CommitStep.DATA_RENAME.ordinal();
    }

    private static StreamingCheckpoint ckpt(long seed) {
        return StreamingCheckpoint.builder().chunkSize(1 << 20).buffers(3).writersInFlight(2).readersInFlight(2)
                .spec(DataSpec.builder().seed(seed).compressRatio(2).build()).build();
    }

    /** Loads {@code f} with every byte verified and returns the seed its manifest names. */
    private static long loadVerified(Path f) throws IOException {
        LoadResult r = ckpt(0).load(f.toString(), true);
        assertTrue(r.verified());
        try (StorageReader reader = FileStorage.openReader(f, FileOptions.defaults())) {
            Manifest m = Manifest.fromMetadata(reader.metadata(), "sidecar of " + f);
            assertEquals(r.totalBytes(), m.spec().size());
            return m.spec().seed();
        }
    }

    private static void assertOld(Path f) throws IOException {
        assertEquals(OLD_SEED, loadVerified(f), "the previous checkpoint is what a load sees");
        assertEquals(OLD_SIZE, Files.size(f));
    }

    private static void assertNew(Path f) throws IOException {
        assertEquals(NEW_SEED, loadVerified(f), "the new checkpoint is what a load sees");
        assertEquals(NEW_SIZE, Files.size(f));
    }

    private static List<String> hidden(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).sorted().toList();
        }
    }

    // ---- injected I/O errors, in process ---------------------------------------------------

    @ParameterizedTest
    @EnumSource(CommitStep.class)
    void anIoErrorAtAnyStepLeavesTheOldOrTheNewCheckpoint(CommitStep failing) throws Exception {
        Path f = dir.resolve("eio.bin");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        FileStorage.stepHook((step, target) -> {
            if (step == failing) {
                throw new IOException("injected EIO before " + step);
            }
        });
        boolean finalStep = failing.ordinal() >= CommitStep.FINAL_WRITE.ordinal();
        if (finalStep) {
            ckpt(NEW_SEED).save(f.toString(), NEW_SIZE); // the pair is complete before these steps
        } else {
            var e = assertThrows(CheckpointException.class, () -> ckpt(NEW_SEED).save(f.toString(), NEW_SIZE));
            assertTrue(e.getMessage().contains("injected EIO before " + failing), e.getMessage());
            String state = dataPlacedBefore(failing) ? "the new checkpoint is in place" : "the previous checkpoint at "
                    + f + " is intact";
            assertTrue(e.getMessage().contains(state), "the failure says what it left: " + e.getMessage());
        }
        FileStorage.stepHook(null);
        if (dataPlacedBefore(failing)) {
            assertNew(f);
        } else {
            assertOld(f);
        }
        assertEquals(List.of(), hidden(dir), "no temporary or lock file is left");
    }

    @ParameterizedTest
    @EnumSource(value = CommitStep.class, names = {"DATA_FSYNC", "SIDECAR_RENAME", "SIDECAR_DIR_FSYNC", "DATA_RENAME"})
    void aFirstSaveThatFailsLeavesNothing(CommitStep failing) throws Exception {
        Path f = dir.resolve("fresh.bin");
        FileStorage.stepHook((step, target) -> {
            if (step == failing) {
                throw new IOException("injected EIO before " + step);
            }
        });
        var e = assertThrows(CheckpointException.class, () -> ckpt(NEW_SEED).save(f.toString(), NEW_SIZE));
        assertTrue(e.getMessage().contains("nothing was left at " + f), e.getMessage());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(), s.toList(), "no data, manifest, temporary or lock file");
        }
    }

    // ---- a process stopped between two system calls, or signalled during a step --------------

    /** Runs the CLI in a child JVM with the probe's step hook. */
    private static Process probe(String step, String action, Path marker, String... cli) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dprobe.step=" + step, "-Dprobe.action=" + action, "-Dprobe.marker=" + marker,
                "-cp", System.getProperty("java.class.path"), CommitProbe.class.getName()));
        cmd.addAll(List.of(cli));
        return start(cmd);
    }

    /** Starts a child whose stderr goes to a file (a pipe would close on SIGTERM's destroy()). */
    private static Process start(List<String> cmd) throws IOException {
        Path err = Files.createTempFile("dgen4j-probe", ".err");
        err.toFile().deleteOnExit();
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile()).start();
        STDERR.put(p, err);
        return p;
    }

    private static final java.util.Map<Process, Path> STDERR = new java.util.concurrent.ConcurrentHashMap<>();

    private static String[] saveNew(Path f) {
        return new String[] {"save", f.toString(), "--size", Long.toString(NEW_SIZE), "--seed", Long.toString(NEW_SEED),
                "--compress", "2", "--chunk", "1MiB", "--json"};
    }

    private static String finish(Process p) throws Exception {
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the child JVM did not finish within 120 s");
        }
        Path err = STDERR.remove(p);
        String text = Files.readString(err, StandardCharsets.UTF_8);
        Files.delete(err);
        return text;
    }

    @ParameterizedTest
    @EnumSource(CommitStep.class)
    void aProcessStoppedBeforeAnyStepLeavesTheOldOrTheNewCheckpoint(CommitStep step) throws Exception {
        Path f = dir.resolve("crash.bin");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        Process p = probe(step.name(), "halt", dir.resolve("unused"), saveNew(f));
        String err = finish(p);
        assertEquals(97, p.exitValue(), "the probe halts at " + step + ": " + err);
        if (dataPlacedBefore(step)) {
            assertNew(f);
        } else {
            assertOld(f);
        }
        // The load above removed what the dead save left: no temporary or lock file remains.
        assertEquals(List.of(), hidden(dir));
    }

    @ParameterizedTest
    @EnumSource(CommitStep.class)
    void aSigtermDuringAnyStepLeavesTheOldOrTheNewCheckpoint(CommitStep step) throws Exception {
        Path f = dir.resolve("signal.bin");
        Path marker = dir.resolve("marker");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        Process p = probe(step.name(), "block", marker, saveNew(f));
        for (int i = 0; i < 1200 && !Files.exists(marker); i++) {
            assertTrue(p.isAlive(), "the child ended before step " + step);
            Thread.sleep(50);
        }
        assertTrue(Files.exists(marker), "the child reached step " + step);
        p.destroy(); // SIGTERM
        String err = finish(p);
        Files.deleteIfExists(marker);
        if (dataPlacedBefore(step)) {
            assertNew(f);
        } else {
            assertNotEquals(0, p.exitValue(), "a save signalled before its data was in place failed: " + err);
            assertTrue(err.contains("interrupted"), err);
            assertOld(f);
        }
        assertEquals(List.of(), hidden(dir));
    }

    @Test
    void aFirstSaveStoppedBeforeItsDataIsInPlaceLeavesNoCheckpoint() throws Exception {
        Path f = dir.resolve("first.bin");
        Process p = probe(CommitStep.DATA_RENAME.name(), "halt", dir.resolve("unused"), saveNew(f));
        finish(p);
        assertEquals(97, p.exitValue());
        assertTrue(Files.exists(FileStorage.sidecarPath(f)), "the pending sidecar was in place");
        var e = assertThrows(CheckpointException.class, () -> ckpt(0).load(f.toString(), true));
        assertTrue(e.getMessage().contains("does not exist") && e.getMessage().contains("interrupted"), e.getMessage());
        // The next save of the target succeeds over what the dead one left.
        ckpt(NEW_SEED).save(f.toString(), NEW_SIZE);
        assertNew(f);
        assertEquals(List.of(), hidden(dir));
    }

    // ---- leftovers ----------------------------------------------------------------------------

    @Test
    void theNextSaveAndLoadRemoveWhatAKilledSaveLeftAndSaySo() throws Exception {
        Path f = dir.resolve("left.bin");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        Process p = probe(CommitStep.SIDECAR_RENAME.name(), "halt", dir.resolve("unused"), saveNew(f));
        finish(p);
        List<String> left = hidden(dir);
        assertEquals(3, left.size(), "the data and sidecar temporaries and the lock file: " + left);
        assertTrue(left.stream().anyMatch(n -> n.startsWith(".left.bin.dgen4j-" + p.pid() + "-")), left.toString());
        // The CLI's load removes them and says so on stderr.
        Process load = probe("NONE", "halt", dir.resolve("unused"), "load", f.toString(), "--verify");
        String err = finish(load);
        assertEquals(0, load.exitValue(), err);
        assertTrue(err.contains("removed") && err.contains(".left.bin.dgen4j-" + p.pid()), err);
        assertEquals(List.of(), hidden(dir));
        // And a save does the same.
        Process again = probe(CommitStep.DATA_FSYNC.name(), "halt", dir.resolve("unused"), saveNew(f));
        finish(again);
        assertEquals(2, hidden(dir).size(), "the data temporary and the lock file: " + hidden(dir));
        ckpt(NEW_SEED).save(f.toString(), NEW_SIZE);
        assertEquals(List.of(), hidden(dir));
        assertNew(f);
    }

    // ---- one writer per target ---------------------------------------------------------------

    @Test
    void aSecondProcessSavingTheSameTargetFailsAtOnceNamingTheFirst() throws Exception {
        Path f = dir.resolve("busy.bin");
        Path marker = dir.resolve("marker");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        Process first = probe(CommitStep.DATA_FSYNC.name(), "block", marker, saveNew(f));
        for (int i = 0; i < 1200 && !Files.exists(marker); i++) {
            Thread.sleep(50);
        }
        assertTrue(Files.exists(marker), "the first save reached its commit");
        long t0 = System.nanoTime();
        var e = assertThrows(TargetBusyException.class, () -> ckpt(33).save(f.toString(), 1_000_000));
        assertTrue((System.nanoTime() - t0) < TimeUnit.SECONDS.toNanos(10), "it fails at once, it does not wait");
        assertEquals(first.pid(), e.ownerPid().orElseThrow());
        assertTrue(e.getMessage().contains("is being written by another save (pid " + first.pid() + ")"), e.getMessage());
        Files.delete(marker);
        String err = finish(first);
        assertEquals(0, first.exitValue(), err);
        assertNew(f);
        assertEquals(List.of(), hidden(dir));
    }

    @Test
    void aSecondThreadSavingTheSameTargetFailsAtOnce() throws Exception {
        Path f = dir.resolve("threads.bin");
        CountDownLatch inCommit = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FileStorage.stepHook((step, target) -> {
            if (step == CommitStep.DATA_FSYNC && target.getFileName().toString().equals("threads.bin")) {
                inCommit.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        CompletableFuture<SaveResult> first = CompletableFuture.supplyAsync(() -> {
            try {
                return ckpt(NEW_SEED).save(f.toString(), NEW_SIZE);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        assertTrue(inCommit.await(60, TimeUnit.SECONDS));
        var e = assertThrows(TargetBusyException.class, () -> ckpt(OLD_SEED).save(f.toString(), OLD_SIZE));
        assertTrue(e.getMessage().contains("this process"), e.getMessage());
        release.countDown();
        first.get(60, TimeUnit.SECONDS);
        assertNew(f);
    }

    // ---- real failing system calls (strace -e inject) ----------------------------------------

    /** Runs the CLI save under strace with one injected failure; returns its stderr. */
    private String straceSave(Path f, String inject) throws Exception {
        Process which = new ProcessBuilder("sh", "-c", "command -v strace").start();
        if (which.waitFor() != 0) {
            fail("this test injects failing system calls with strace, which is not installed: apt-get install strace "
                    + "(.ci/run does)");
        }
        List<String> cmd = new ArrayList<>(List.of("strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync,rename",
                "-e", "inject=" + inject,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), CommitProbe.class.getName()));
        cmd.addAll(List.of(saveNew(f)));
        Process p = start(cmd);
        String err = finish(p);
        assertNotEquals(0, p.exitValue(), "the save must fail under " + inject + ": " + err);
        return err;
    }

    @Test
    void aRealEioFromTheDataFsyncKeepsThePreviousCheckpoint() throws Exception {
        Path f = dir.resolve("fsync.bin");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        // The first fsync of the saving thread is the data's (docs/CHECKPOINTS.md, step 1).
        String err = straceSave(f, "fsync:error=EIO:when=1");
        assertTrue(err.contains("fsync") && err.contains("previous checkpoint at " + f + " is intact"), err);
        assertOld(f);
        assertEquals(List.of(), hidden(dir));
    }

    @Test
    void aRealEioFromTheDataRenameKeepsThePreviousCheckpoint() throws Exception {
        Path f = dir.resolve("rename.bin");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        // The second rename is the data's: the pending sidecar is in place, the old data too.
        String err = straceSave(f, "rename:error=EIO:when=2");
        assertTrue(err.contains("previous checkpoint at " + f + " is intact"), err);
        assertOld(f);
        assertEquals(List.of(), hidden(dir));
    }

    @Test
    void aRealEioFromTheLastDirectoryFsyncSaysTheNewCheckpointIsInPlace() throws Exception {
        Path f = dir.resolve("dirsync.bin");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        // fsyncs: data, pending sidecar, directory, directory after the data rename (the 4th).
        String err = straceSave(f, "fsync:error=EIO:when=4");
        assertTrue(err.contains("the new checkpoint is in place at " + f), err);
        assertNew(f);
    }

    @Test
    void theTargetCannotBeACheckpointsSidecar() throws Exception {
        Path f = dir.resolve("a.bin");
        ckpt(OLD_SEED).save(f.toString(), OLD_SIZE);
        var e = assertThrows(IllegalArgumentException.class, () -> ckpt(NEW_SEED).save(f + ".manifest.json", NEW_SIZE));
        assertTrue(e.getMessage().contains("names a checkpoint's manifest"), e.getMessage());
        assertOld(f);
        assertFalse(Files.exists(dir.resolve(".a.bin.manifest.json.dgen4j.lock")));
    }
}
