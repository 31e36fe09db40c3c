package io.dgen4j.crt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.StorageTarget;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One crt client of a process lends ranged GETs' bodies out of its direct buffer pool; the others
 * take heap arrays; both read the same bytes and sums, and closing the lender gives the pool back.
 * (Every other test class closes its transports: the first one opened here holds the pool.)
 */
class LendingClientTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Test
    void oneClientOfTheProcessLendsTheOthersTakeHeapArraysAndClosingGivesThePoolBack() throws Exception {
        S3Location where = S3Location.of(StorageTarget.parse("s3://" + S3.bucket() + "/lending.bin"));
        byte[] object = new byte[(20 << 20) + 333]; // three of the CRT's pieces, the last short
        new Random(11).nextBytes(object);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment body = arena.allocate(object.length);
            MemorySegment.copy(object, 0, body, ValueLayout.JAVA_BYTE, 0, object.length);
            CrtTransport first = CrtTransport.open(S3.settings(), 4);
            try (CrtTransport second = CrtTransport.open(S3.settings(), 4)) {
                assertTrue(first.lends(), "the process's first client holds the pool");
                assertFalse(second.lends(), "one pool per process");
                first.putObject(where, Map.of(), body).get(60, TimeUnit.SECONDS);
                CRC32C want = new CRC32C();
                want.update(object, 5, object.length - 5);
                for (CrtTransport t : new CrtTransport[] {first, second}) {
                    MemorySegment dst = arena.allocate(object.length - 5);
                    CRC32C sum = new CRC32C();
                    assertEquals(object.length - 5, t.getRange(where, 5, dst, null, sum).get(60, TimeUnit.SECONDS));
                    assertEquals(want.getValue(), sum.getValue(), "lends " + t.lends());
                    assertEquals(java.nio.ByteBuffer.wrap(object, 5, object.length - 5), dst.asByteBuffer(),
                            "lends " + t.lends());
                }
            } finally {
                first.close();
            }
            try (CrtTransport third = CrtTransport.open(S3.settings(), 4)) {
                assertTrue(third.lends(), "the pool, given back by the first client's close, is taken again");
            }
        }
    }
}
