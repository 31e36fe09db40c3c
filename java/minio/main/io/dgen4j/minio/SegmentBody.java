package io.dgen4j.minio;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A part body that MinIO reads straight from the caller's segment. MinIO's builders take a file, a
 * {@code byte[]} or its own {@link io.minio.ByteBuffer}, whose request body streams
 * {@link #inputStream()} into OkHttp's sink for {@link #length()} bytes: this subclass answers both
 * from the segment, so a part is never copied into a part-sized heap array (OkHttp's own 8 KiB
 * buffers on the way to the socket are the one copy). Each call to {@link #inputStream()} starts
 * again at the first byte, so a request that OkHttp sends again sends the same bytes.
 *
 * <p>MinIO's calls cannot be cancelled: once {@link #cancel()}ed (the driver gave up on the part),
 * a read fails with an {@link IOException}, which fails the call, instead of reading memory the
 * caller may reuse or free (a read of freed memory is an {@link IOException} too, not an
 * {@code IllegalStateException} escaping into OkHttp's thread).
 */
final class SegmentBody extends io.minio.ByteBuffer {
    private final MemorySegment body;
    private volatile boolean cancelled;

    SegmentBody(MemorySegment body) {
        super(body.byteSize());
        this.body = body;
    }

    /** No byte is read from the segment after this. */
    void cancel() {
        cancelled = true;
    }

    private void check() throws IOException {
        if (cancelled) {
            throw new IOException("the part's upload was cancelled");
        }
    }

    @Override
    public long length() {
        return body.byteSize();
    }

    @Override
    public long size() {
        return body.byteSize();
    }

    @Override
    public InputStream inputStream() {
        return new InputStream() {
            private long at;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                java.util.Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                long left = body.byteSize() - at;
                if (left <= 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                check();
                try {
                    MemorySegment.copy(body, ValueLayout.JAVA_BYTE, at, b, off, n);
                } catch (IllegalStateException e) { // the caller's arena closed under the call
                    throw new IOException("the part's memory was freed: " + e.getMessage(), e);
                }
                at += n;
                return n;
            }

            @Override
            public long skip(long n) {
                long k = Math.max(0, Math.min(n, body.byteSize() - at));
                at += k;
                return k;
            }

            @Override
            public int available() {
                return (int) Math.min(Integer.MAX_VALUE, body.byteSize() - at);
            }
        };
    }

    /** Nothing to rewind: every {@link #inputStream()} starts at the first byte. */
    @Override
    public void reset() {
    }

    /** Read-only: MinIO writes into its own buffers, never into a body it was given. */
    @Override
    public void write(int b) {
        throw new UnsupportedOperationException("a segment body is read-only");
    }

    @Override
    public void write(byte[] b, int off, int len) {
        throw new UnsupportedOperationException("a segment body is read-only");
    }

    @Override
    public void close() {
    }
}
