package io.dgen4j.minio;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the {@code minio} backend's part uploads did, over every transport of the process: bytes
 * streamed from callers' segments into MinIO's requests ({@link SegmentBody}), and the time spent
 * computing their CRC32Cs. Read by benchmarks and tests.
 */
final class PartCounters {
    private final LongAdder streamed = new LongAdder();
    private final LongAdder crcNanos = new LongAdder();

    /** Records one part of {@code bytes} handed to MinIO and the time its CRC32C took (0 when none). */
    void part(long bytes, long crcNanos) {
        streamed.add(bytes);
        this.crcNanos.add(crcNanos);
    }

    /** Bytes of parts handed to MinIO so far, each read from its segment as the request is sent. */
    long streamedBytes() {
        return streamed.sum();
    }

    /** Time spent computing CRC32Cs, in nanoseconds. */
    long crcNanos() {
        return crcNanos.sum();
    }
}
