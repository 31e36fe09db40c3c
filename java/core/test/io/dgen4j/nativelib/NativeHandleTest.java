package io.dgen4j.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.ffi.dgen4j_h;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one native-handle base: calls under a read lock, one free after the calls in progress, the one error mapping. */
class NativeHandleTest {
    private static final MemorySegment POINTER = MemorySegment.ofAddress(0x1000);

    @Test
    void aCallAfterCloseIsRefusedAndTheObjectIsFreedOnce() {
        AtomicInteger frees = new AtomicInteger();
        NativeHandle h = new NativeHandle(POINTER, "generator", p -> frees.incrementAndGet());
        assertEquals(POINTER.address(), (long) h.call(MemorySegment::address));
        h.close();
        h.close();
        assertEquals(1, frees.get());
        var e = assertThrows(IllegalStateException.class, () -> h.call(MemorySegment::address));
        assertEquals("generator is closed", e.getMessage());
    }

    @Test
    void closeWaitsForTheCallsInProgress() throws Exception {
        AtomicInteger frees = new AtomicInteger();
        NativeHandle h = new NativeHandle(POINTER, "file /x", p -> frees.incrementAndGet());
        CountDownLatch inCall = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Integer> call = CompletableFuture.supplyAsync(() -> h.call(p -> {
            inCall.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return frees.get();
        }));
        assertTrue(inCall.await(10, TimeUnit.SECONDS));
        CompletableFuture<Void> close = CompletableFuture.runAsync(h::close);
        Thread.sleep(200);
        assertFalse(close.isDone(), "close returned while a call was using the handle");
        assertEquals(0, frees.get());
        release.countDown();
        assertEquals(0, call.get(10, TimeUnit.SECONDS), "the object was freed under the call");
        close.get(10, TimeUnit.SECONDS);
        assertEquals(1, frees.get());
    }

    @Test
    void everyErrorCodeMapsToOneExceptionInOnePlace(@TempDir Path dir) {
        NativeLibrary.ensureLoaded();
        // a real failing call leaves its message on this thread
        Path missing = dir.resolve("missing");
        IOException io = assertThrows(IOException.class, () -> NativeFile.open(missing, NativeFile.READ, 0));
        assertTrue(io.getMessage().contains(missing.toString()), io.getMessage());
        String message = NativeCallException.lastError();
        assertEquals(io.getMessage(), message);

        var bad = assertThrows(IllegalArgumentException.class,
                () -> NativeCallException.check(dgen4j_h.DGEN4J_ERR_INVALID_ARGUMENT(), "f"));
        assertEquals(message, bad.getMessage());
        var unchecked = assertThrows(UncheckedIOException.class,
                () -> NativeCallException.check(dgen4j_h.DGEN4J_ERR_IO(), "f"));
        assertEquals(message, unchecked.getCause().getMessage());
        var checked = assertThrows(IOException.class, () -> NativeCallException.checkIo(dgen4j_h.DGEN4J_ERR_IO(), "f"));
        assertEquals(message, checked.getMessage());
        for (int code : new int[] {dgen4j_h.DGEN4J_ERR_OUT_OF_RANGE(), dgen4j_h.DGEN4J_ERR_RESOURCE(),
                dgen4j_h.DGEN4J_ERR_PANIC()}) {
            var other = assertThrows(NativeCallException.class, () -> NativeCallException.checkIo(code, "dgen4j_f"));
            assertEquals(code, other.code());
            assertEquals("dgen4j_f failed (" + NativeCallException.codeName(code) + "): " + message, other.getMessage());
        }
        NativeCallException.check(dgen4j_h.DGEN4J_OK(), "f");
    }

    @Test
    void aClosedFileRefusesIoWithItsPath(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("f");
        NativeFile f = NativeFile.open(p, NativeFile.WRITE | NativeFile.CREATE_NEW, 0);
        f.close();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4096, 4096);
            var e = assertThrows(IllegalStateException.class, () -> f.write(0, seg));
            assertEquals("file " + p + " is closed", e.getMessage());
            assertInstanceOf(IllegalStateException.class, assertThrows(RuntimeException.class, f::sync));
        }
    }
}
