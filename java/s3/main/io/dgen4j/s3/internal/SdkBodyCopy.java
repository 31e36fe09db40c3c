package io.dgen4j.s3.internal;

import io.dgen4j.s3.spi.S3Transport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import java.util.zip.Checksum;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * One ranged GET's body, as the AWS SDK hands it out ({@link ResponseInputStream}: the sync client's
 * socket, the CRT client's lent buffers), read on the calling thread {@value #READ_PIECE} bytes at a
 * time into a buffer of that thread's, which stays in cache, and copied into the caller's segment,
 * summed as it is copied when asked to. Once {@link #close()}d (the GET's future completed, a
 * cancel included) no byte lands in the segment, and a body not read to its end is aborted.
 */
public final class SdkBodyCopy {
    /** The most one read takes, and the size of each reading thread's buffer. */
    public static final int READ_PIECE = 256 << 10;

    private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[READ_PIECE]);

    private final MemorySegment dst;
    private final Checksum sum;
    private final String what;
    private ResponseInputStream<GetObjectResponse> body;
    private boolean closed;
    private boolean drained;

    /**
     * A copy into {@code dst} that feeds {@code sum} (when not null) each piece it stores; {@code what}
     * names the range in failures.
     */
    public SdkBodyCopy(MemorySegment dst, Checksum sum, String what) {
        this.dst = dst;
        this.sum = sum;
        this.what = what;
    }

    /**
     * Reads {@code in} to its end into the segment and closes it; returns the bytes stored. An answer
     * whose ETag is not {@code etag} (when not null) fails with {@code changed}'s exception before a
     * byte is stored; a body longer than the segment fails; either aborts the body.
     *
     * @throws CancellationException when closed before or during the copy
     */
    public long run(ResponseInputStream<GetObjectResponse> in, String etag, Function<String, RuntimeException> changed)
            throws IOException {
        synchronized (this) {
            if (closed) {
                in.abort();
                throw new CancellationException("the GET was cancelled");
            }
            body = in;
        }
        boolean done = false;
        try {
            String got = in.response().eTag();
            if (!S3Transport.sameETag(etag, got)) {
                throw changed.apply(got);
            }
            byte[] buf = BUFFER.get();
            long len = dst.byteSize();
            long pos = 0;
            if (sum != null) {
                sum.reset();
            }
            while (true) {
                // one byte more than is left: a body longer than the range asked for shows
                int n = in.read(buf, 0, (int) Math.min(buf.length, len - pos + 1));
                if (n < 0) {
                    break;
                }
                if (n > len - pos) {
                    throw new IOException(String.format("the server sent more than the %d bytes asked for (%s)", len,
                            what));
                }
                synchronized (this) {
                    if (closed) {
                        throw new CancellationException("the GET was cancelled");
                    }
                    MemorySegment.copy(buf, 0, dst, ValueLayout.JAVA_BYTE, pos, n);
                    if (sum != null) {
                        sum.update(buf, 0, n);
                    }
                }
                pos += n;
            }
            synchronized (this) {
                drained = true;
            }
            in.close(); // read to its end: its connection or buffers go back to their pool
            done = true;
            return pos;
        } finally {
            if (!done) {
                in.abort();
            }
        }
    }

    /** No byte lands in the segment after this; a body not read to its end is aborted. */
    public void close() {
        ResponseInputStream<GetObjectResponse> open;
        synchronized (this) {
            closed = true;
            open = drained ? null : body;
        }
        if (open != null) {
            open.abort();
        }
    }
}
