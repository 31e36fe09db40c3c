package io.dgen4j.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Segments a native file must not touch: another thread's confined segment, a read-only destination. */
class NativeFileMisuseTest {
    @Test
    void confinedSegmentsFromAnotherThreadAndReadOnlyDestinationsAreRefused(@TempDir Path dir) throws Exception {
        try (Arena arena = Arena.ofConfined();
             NativeFile f = NativeFile.open(dir.resolve("f"), NativeFile.WRITE | NativeFile.CREATE_NEW, 0)) {
            MemorySegment seg = arena.allocate(4096, 4096);
            f.write(0, seg);
            for (var op : java.util.List.<CompletableFuture<?>>of(
                    CompletableFuture.runAsync(() -> uncheck(() -> f.write(0, seg))),
                    CompletableFuture.runAsync(() -> uncheck(() -> f.read(0, seg))))) {
                ExecutionException e = assertThrows(ExecutionException.class, op::get);
                assertInstanceOf(WrongThreadException.class, e.getCause());
            }
        }
        try (Arena arena = Arena.ofConfined(); NativeFile f = NativeFile.open(dir.resolve("f"), NativeFile.READ, 0)) {
            MemorySegment ro = arena.allocate(4096, 4096).asReadOnly();
            var e = assertThrows(IllegalArgumentException.class, () -> f.read(0, ro));
            assertEquals("cannot read " + dir.resolve("f") + " into a read-only segment", e.getMessage());
        }
    }

    interface IoAction {
        void run() throws Exception;
    }

    static void uncheck(IoAction a) {
        try {
            a.run();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
