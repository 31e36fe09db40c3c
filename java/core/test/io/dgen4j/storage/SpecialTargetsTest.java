package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Targets that are not regular files: a character device (a twin of {@code /dev/null} made with
 * mknod, so the real one is never at stake), a FIFO, a socket, a directory and a symbolic link. A
 * save, a load and a delete refuse each at once, naming it, and leave it as it was.
 */
class SpecialTargetsTest {
    @TempDir
    Path dir;

    @Test
    void aDeviceNodeIsRefusedAndStaysADevice() throws Exception {
        requireRoot();
        Path dev = dir.resolve("null");
        run("mknod", dev.toString(), "c", "1", "3");
        assertRefused(dev, "is a character device, not a regular file");
        assertEquals("a character device", ConfigFiles.kind(dev, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aFifoIsRefusedWithoutBlocking() throws Exception {
        Path fifo = dir.resolve("fifo");
        run("mkfifo", fifo.toString());
        assertRefused(fifo, "is a FIFO (named pipe), not a regular file");
        assertEquals("a FIFO (named pipe)", ConfigFiles.kind(fifo, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aSocketAndADirectoryAreRefused() throws Exception {
        Path sock = dir.resolve("sock");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(sock));
            assertRefused(sock, "is a socket, not a regular file");
        }
        Path sub = Files.createDirectory(dir.resolve("sub"));
        assertRefused(sub, "is a directory, not a regular file");
        assertTrue(Files.isDirectory(sub));
    }

    @Test
    void aSaveOrDeleteRefusesASymbolicLinkAndWhatItPointsToIsUntouched() throws Exception {
        Path real = dir.resolve("real.bin");
        Files.writeString(real, "previous");
        Path link = Files.createSymbolicLink(dir.resolve("link.bin"), real.getFileName());
        assertRefused(link, "is a symbolic link (to real.bin): a save or delete does not follow links", "save",
                "delete");
        assertTrue(Files.isSymbolicLink(link));
        assertEquals("previous", Files.readString(real));
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.bin"), Path.of("nowhere"));
        var e = assertThrows(IllegalArgumentException.class, () -> save(dangling));
        assertTrue(e.getMessage().contains("is a symbolic link (to nowhere)"), e.getMessage());
        assertTrue(Files.isSymbolicLink(dangling));
    }

    @Test
    void aLoadFollowsASymbolicLinkToTheFileAndItsManifest() throws Exception {
        Path real = dir.resolve("ckpt-100.bin");
        try (Arena arena = Arena.ofConfined();
             StorageWriter w = FileStorage.openWriter(real, FileOptions.defaults().withDirect(FileOptions.Direct.OFF),
                     4096, Map.of("k", "v"))) {
            MemorySegment data = arena.allocate(4096, 4096);
            data.fill((byte) 7);
            w.write(0, data);
            w.commit();
        }
        Path latest = Files.createSymbolicLink(dir.resolve("latest.bin"), real.getFileName());
        Path chain = Files.createSymbolicLink(dir.resolve("chain.bin"), latest.getFileName());
        for (Path name : List.of(latest, chain)) {
            try (Arena arena = Arena.ofConfined();
                 StorageReader r = FileStorage.openReader(name, FileOptions.defaults())) {
                assertEquals(4096, r.size());
                assertEquals("v", r.metadata().get("k"), "the manifest beside the file the link names");
                MemorySegment got = arena.allocate(4096, 4096);
                r.read(0, got);
                assertEquals(7, got.get(ValueLayout.JAVA_BYTE, 4095));
            }
        }
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.bin"), Path.of("nowhere"));
        var e = assertThrows(NoSuchFileException.class, () -> FileStorage.openReader(dangling, FileOptions.defaults()));
        assertTrue(e.getMessage().contains("a symbolic link to nowhere, which does not exist"), e.getMessage());
        Path toFifo = dir.resolve("fifo");
        run("mkfifo", toFifo.toString());
        Path linkToFifo = Files.createSymbolicLink(dir.resolve("to-fifo.bin"), toFifo.getFileName());
        var f = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(IllegalArgumentException.class,
                () -> FileStorage.openReader(linkToFifo, FileOptions.defaults()).close()));
        assertTrue(f.getMessage().startsWith(toFifo + " is a FIFO (named pipe)"), f.getMessage());
    }

    @Test
    void somethingPutUnderTheNameDuringTheSaveIsNotReplacedByItsCommit() throws Exception {
        Path target = dir.resolve("late.bin");
        try (Arena arena = Arena.ofConfined()) {
            StorageWriter w = FileStorage.openWriter(target, FileOptions.defaults().withDirect(FileOptions.Direct.OFF),
                    4096, Map.of("k", "v"));
            w.write(0, arena.allocate(4096, 4096));
            run("mkfifo", target.toString());
            var e = assertThrows(IllegalArgumentException.class, w::commit);
            assertTrue(e.getMessage().contains("is a FIFO (named pipe)"), e.getMessage());
        }
        assertEquals("a FIFO (named pipe)", ConfigFiles.kind(target, LinkOption.NOFOLLOW_LINKS));
        assertEquals(List.of("late.bin"), names(), "the temporary file and the pending manifest are removed");
    }

    @Test
    void aManifestThatIsAFifoFailsTheLoadInsteadOfBlockingIt() throws Exception {
        Path target = dir.resolve("ck.bin");
        Files.write(target, new byte[4096]);
        run("mkfifo", Sidecar.of(target).toString());
        var e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(IOException.class,
                () -> FileStorage.openReader(target, FileOptions.defaults()).close()));
        assertTrue(e.getMessage().contains("is in the way of the checkpoint's manifest: it is a FIFO (named pipe)"),
                e.getMessage());
    }

    /** Save, load and delete of {@code target} each fail at once with {@code part}; the target keeps its kind. */
    private void assertRefused(Path target, String part) throws IOException {
        assertRefused(target, part, "save", "load", "delete");
    }

    /** Each of {@code ops} of {@code target} fails at once with {@code part}; the target keeps its kind. */
    private void assertRefused(Path target, String part, String... ops) throws IOException {
        String kind = ConfigFiles.kind(target, LinkOption.NOFOLLOW_LINKS);
        for (String op : ops) {
            var e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThrows(
                    IllegalArgumentException.class, () -> {
                        switch (op) {
                            case "save" -> save(target);
                            case "load" -> FileStorage.openReader(target, FileOptions.defaults()).close();
                            default -> FileStorage.delete(target);
                        }
                    }), op);
            assertTrue(e.getMessage().startsWith(target.toAbsolutePath().toString()), op + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(part), op + ": " + e.getMessage());
            assertEquals(kind, ConfigFiles.kind(target, LinkOption.NOFOLLOW_LINKS), op + " changed the target");
        }
        assertTrue(names().stream().noneMatch(n -> n.contains(".dgen4j-") || n.endsWith(".lock")
                || n.endsWith(Sidecar.SUFFIX)), "nothing left beside it: " + names());
    }

    private static void save(Path target) throws IOException {
        try (StorageWriter w = FileStorage.openWriter(target, FileOptions.defaults(), 4096, Map.of())) {
            w.abort();
        }
    }

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static void requireRoot() throws IOException, InterruptedException {
        String uid = run("id", "-u").strip();
        if (!uid.equals("0")) {
            throw new AssertionError("this test makes a device node with mknod and must run as root, as CI does; "
                    + "current uid is " + uid);
        }
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
