package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file reader reads one file: the checkpoint it opened, whole, when a save replaces it during
 * the load; a write into that very file fails the read as "changed during the load".
 */
class FileReaderSameFileTest {
    private static final int SIZE = 1 << 20;

    @TempDir
    Path dir;

    private static byte[] bytes(int seed) {
        byte[] b = new byte[SIZE];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ((i + seed) * 0x9E3779B1 >>> 24);
        }
        return b;
    }

    private static void save(Path target, byte[] data) throws IOException {
        try (Arena a = Arena.ofShared();
             StorageWriter w = FileStorage.openWriter(target, FileOptions.defaults(), data.length, Map.of("k", "v"))) {
            MemorySegment s = a.allocate(data.length, 4096);
            MemorySegment.copy(data, 0, s, ValueLayout.JAVA_BYTE, 0, data.length);
            w.write(0, s);
            w.commit();
        }
    }

    private static byte[] readHalf(StorageReader r, Arena a, long offset) throws IOException {
        MemorySegment s = a.allocate(SIZE / 2, 4096);
        assertEquals(SIZE / 2, r.read(offset, s));
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void aLoadReadsTheCheckpointItOpenedWholeWhenASaveReplacesIt() throws IOException {
        Path target = dir.resolve("ckpt.bin");
        byte[] old = bytes(1);
        save(target, old);
        try (Arena a = Arena.ofShared(); StorageReader r = FileStorage.openReader(target, FileOptions.defaults())) {
            byte[] first = readHalf(r, a, 0);
            save(target, bytes(2)); // renamed over the file being read
            byte[] second = readHalf(r, a, SIZE / 2);
            byte[] all = new byte[SIZE];
            System.arraycopy(first, 0, all, 0, SIZE / 2);
            System.arraycopy(second, 0, all, SIZE / 2, SIZE / 2);
            assertArrayEquals(old, all, "the old checkpoint, unmixed");
        }
        try (Arena a = Arena.ofShared(); StorageReader r = FileStorage.openReader(target, FileOptions.defaults())) {
            assertArrayEquals(java.util.Arrays.copyOf(bytes(2), SIZE / 2), readHalf(r, a, 0),
                    "a new load reads the new one");
        }
    }

    @Test
    void aWriteIntoTheFileBeingReadFailsTheLoadAsChanged() throws IOException {
        Path target = dir.resolve("inplace.bin");
        save(target, bytes(3));
        try (Arena a = Arena.ofShared(); StorageReader r = FileStorage.openReader(target, FileOptions.defaults())) {
            readHalf(r, a, 0);
            try (FileChannel ch = FileChannel.open(target, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), SIZE / 2);
            }
            // a clock too coarse to see the write must not hide it
            Files.setLastModifiedTime(target, FileTime.fromMillis(Files.getLastModifiedTime(target).toMillis() + 2000));
            IOException e = assertThrows(IOException.class, () -> readHalf(r, a, SIZE / 2));
            assertTrue(e.getMessage().startsWith(target + " changed during the load: it was written in place while "
                    + "being read"), e.getMessage());
        }
    }
}
