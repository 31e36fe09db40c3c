package io.dgen4j.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/** The sink of the crt backend's ranged GETs, driven as the SDK drives it, without a client. */
class RangeSinkTest {
    private static final Random RANDOM = new Random(42);

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    /** A publisher that hands each buffer to its subscriber as soon as it asks, then completes. */
    private static SdkPublisher<ByteBuffer> publisher(List<ByteBuffer> pieces) {
        return SdkPublisher.adapt((Subscriber<? super ByteBuffer> s) -> s.onSubscribe(new Subscription() {
            private int next;
            private boolean done;

            @Override
            public void request(long n) {
                while (n-- > 0 && next < pieces.size() && !done) {
                    s.onNext(pieces.get(next++));
                }
                if (next == pieces.size() && !done) {
                    done = true;
                    s.onComplete();
                }
            }

            @Override
            public void cancel() {
                done = true;
            }
        }));
    }

    private static long crc(byte[]... parts) {
        CRC32C c = new CRC32C();
        for (byte[] p : parts) {
            c.update(p);
        }
        return c.getValue();
    }

    @Test
    void piecesAreCopiedAndSummedInOrderAndARetryStartsBothOver() {
        byte[] first = bytes(300 << 10);
        byte[] a = bytes((3 << 20) + 5);
        byte[] b = bytes(1000);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment dst = arena.allocate(a.length + b.length);
            CRC32C sum = new CRC32C();
            RangeSink sink = new RangeSink(dst, sum, "test range", null, e -> new IllegalStateException(e));
            GetObjectResponse response = GetObjectResponse.builder().build();

            CompletableFuture<Long> abandoned = sink.prepare();
            sink.onResponse(response);
            // a piece that is a view at an offset of a larger array: only its remaining bytes count
            byte[] framed = new byte[first.length + 64];
            System.arraycopy(first, 0, framed, 32, first.length);
            sink.onStream(publisher(List.of(ByteBuffer.wrap(framed, 32, first.length))));
            assertEquals(first.length, abandoned.join());
            assertEquals(crc(first), sum.getValue());

            // the client's retry: the body from the segment's start again
            CompletableFuture<Long> retry = sink.prepare();
            sink.onResponse(response);
            sink.onStream(publisher(List.of(ByteBuffer.wrap(a), ByteBuffer.wrap(b))));
            assertEquals(a.length + b.length, retry.join());
            assertEquals(crc(a, b), sum.getValue(), "the sum of the retry's bytes only");
            byte[] back = dst.toArray(ValueLayout.JAVA_BYTE);
            assertEquals(ByteBuffer.wrap(a), ByteBuffer.wrap(back, 0, a.length));
            assertEquals(ByteBuffer.wrap(b), ByteBuffer.wrap(back, a.length, b.length));
        }
    }

    @Test
    void aClosedSinkNeitherCopiesNorSums() {
        byte[] a = bytes(4096);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment dst = arena.allocate(a.length);
            CRC32C sum = new CRC32C();
            RangeSink sink = new RangeSink(dst, sum, "test range", null, e -> new IllegalStateException(e));
            sink.prepare();
            sink.onResponse(GetObjectResponse.builder().build());
            sink.close();
            sink.onStream(publisher(List.of(ByteBuffer.wrap(a))));
            assertEquals(crc(), sum.getValue(), "nothing summed");
            for (long i = 0; i < a.length; i++) {
                assertEquals(0, dst.get(ValueLayout.JAVA_BYTE, i));
            }
        }
    }

    @Test
    void withoutASumThePiecesAreCopied() {
        byte[] a = bytes((1 << 20) + 1);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment dst = arena.allocate(a.length);
            RangeSink sink = new RangeSink(dst, null, "test range", null, e -> new IllegalStateException(e));
            CompletableFuture<Long> f = sink.prepare();
            sink.onResponse(GetObjectResponse.builder().build());
            sink.onStream(publisher(List.of(ByteBuffer.wrap(a))));
            assertEquals(a.length, f.join());
            assertTrue(ByteBuffer.wrap(a).equals(dst.asByteBuffer()));
        }
    }
}
