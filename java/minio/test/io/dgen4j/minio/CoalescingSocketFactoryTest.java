package io.dgen4j.minio;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link CoalescingSocketFactory}: every byte in order, gathered into pieces, all out at a flush. */
class CoalescingSocketFactoryTest {
    /** Records each write it is given. */
    private static final class Writes extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<Integer> sizes = new ArrayList<>();
        int flushes;

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            sizes.add(len);
        }

        @Override
        public void flush() {
            flushes++;
        }
    }

    @Test
    void smallWritesGoOutAsPiecesAndTheRestAtTheFlush() throws IOException {
        Writes w = new Writes();
        CoalescingSocketFactory.Gathering g = new CoalescingSocketFactory.Gathering(w);
        byte[] data = new byte[CoalescingSocketFactory.PIECE * 3 + 12345];
        new Random(7).nextBytes(data);
        int at = 0;
        while (at < data.length) {
            int n = Math.min(8192, data.length - at);
            g.write(data, at, n);
            at += n;
        }
        assertEquals(List.of(CoalescingSocketFactory.PIECE, CoalescingSocketFactory.PIECE,
                CoalescingSocketFactory.PIECE), w.sizes, "three full pieces before the flush");
        g.flush();
        assertEquals(12345, w.sizes.getLast(), "the rest at the flush");
        assertEquals(1, w.flushes);
        assertArrayEquals(data, w.bytes.toByteArray());
    }

    @Test
    void aLargeWriteGoesStraightThroughAfterWhatWasGathered() throws IOException {
        Writes w = new Writes();
        CoalescingSocketFactory.Gathering g = new CoalescingSocketFactory.Gathering(w);
        byte[] data = new byte[100 + CoalescingSocketFactory.PIECE + 5];
        new Random(8).nextBytes(data);
        g.write(data, 0, 100);
        g.write(data, 100, CoalescingSocketFactory.PIECE);
        g.write(data[data.length - 5]);
        g.write(data, data.length - 4, 4);
        g.flush();
        assertEquals(List.of(100, CoalescingSocketFactory.PIECE, 5), w.sizes);
        assertArrayEquals(data, w.bytes.toByteArray());
    }

    /** Over a real loopback connection: a request written in small pieces arrives whole once flushed. */
    @Test
    void aRealSocketDeliversEveryByteOnceFlushed() throws Exception {
        byte[] data = new byte[1_000_003];
        new Random(9).nextBytes(data);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> got = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    byte[] all = in.readNBytes(data.length);
                    s.getOutputStream().write(1); // the "response": sent only after every byte came
                    s.getOutputStream().flush();
                    return all;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (Socket c = new CoalescingSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                    server.getLocalPort())) {
                OutputStream out = c.getOutputStream();
                for (int at = 0; at < data.length; at += 8192) {
                    out.write(data, at, Math.min(8192, data.length - at));
                }
                out.flush();
                c.setSoTimeout(10_000);
                assertEquals(1, c.getInputStream().read(), "the reply that follows the whole request");
                assertArrayEquals(data, got.get(10, TimeUnit.SECONDS));
                assertTrue(c.isConnected());
            }
        }
    }
}
