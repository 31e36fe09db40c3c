package io.dgen4j.s3;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The HTTP/1.1 wire as {@link FaultProxy} reads it: message heads kept byte for byte (signatures
 * cover them), bodies framed by Content-Length, chunked transfer coding or the connection's close,
 * and the chunk grammar also used by the {@code aws-chunked} content coding, so a byte of a body's
 * data can be found (and flipped) at its offset without changing its framing.
 */
final class Http1 {
    /** The longest message head read (S3 heads are a few KiB). */
    static final int MAX_HEAD = 64 << 10;

    private Http1() {
    }

    /** Where a run of a body's data lies, at which offset of the decoded data it starts. */
    @FunctionalInterface
    interface DataSink {
        /** {@code n} bytes of data at {@code b[off]}, the first at {@code dataOffset}; they may be changed in place. */
        void data(byte[] b, int off, int n, long dataOffset);

        /** A sink that ignores the data. */
        DataSink NONE = (b, off, n, dataOffset) -> { };
    }

    /** An input with its buffer open to the relays: what follows one message stays for the next. */
    static final class Wire {
        final InputStream in;
        final byte[] buf = new byte[64 << 10];
        int pos;
        int lim;

        Wire(InputStream in) {
            this.in = in;
        }

        /** Bytes buffered, reading more when none are: -1 at the end of the stream. */
        int fill() throws IOException {
            if (pos < lim) {
                return lim - pos;
            }
            pos = 0;
            lim = 0;
            int n = in.read(buf, 0, buf.length);
            if (n < 0) {
                return -1;
            }
            lim = n;
            return n;
        }

        /**
         * The next message head, through its empty line; null when the stream ends before its first
         * byte. Empty lines before a request line are skipped (RFC 9112 2.2).
         *
         * @throws EOFException when the stream ends inside a head
         */
        Head readHead() throws IOException {
            ByteArrayOutputStream raw = new ByteArrayOutputStream(512);
            int lineLength = 0;
            while (true) {
                if (fill() < 0) {
                    if (raw.size() == 0) {
                        return null;
                    }
                    throw new EOFException("the stream ended inside a message head (" + raw.size() + " bytes)");
                }
                byte c = buf[pos++];
                if (raw.size() == 0 && (c == '\r' || c == '\n')) {
                    continue;
                }
                raw.write(c);
                if (raw.size() > MAX_HEAD) {
                    throw new IOException("a message head longer than " + MAX_HEAD + " bytes");
                }
                if (c == '\n') {
                    if (lineLength == 0) {
                        return Head.parse(raw.toByteArray());
                    }
                    lineLength = 0;
                } else if (c != '\r') {
                    lineLength++;
                }
            }
        }

        /** Reads and drops one body. */
        void discard(Framing f) throws IOException {
            relay(this, OutputStream.nullOutputStream(), f, DataSink.NONE);
        }
    }

    /** How a message's body ends. */
    record Framing(Kind kind, long length) {
        enum Kind { NONE, LENGTH, CHUNKED, UNTIL_CLOSE }

        static final Framing NONE = new Framing(Kind.NONE, 0);

        /** The framing of a request's body (a request is never delimited by the connection's close). */
        static Framing ofRequest(Head h) throws IOException {
            if (h.chunked()) {
                return new Framing(Kind.CHUNKED, -1);
            }
            long n = h.contentLength();
            return n > 0 ? new Framing(Kind.LENGTH, n) : NONE;
        }

        /** The framing of the response {@code h} to a request with {@code method}. */
        static Framing ofResponse(Head h, String method) throws IOException {
            int s = h.status();
            if ("HEAD".equals(method) || s < 200 || s == 204 || s == 304) {
                return NONE;
            }
            if (h.chunked()) {
                return new Framing(Kind.CHUNKED, -1);
            }
            long n = h.contentLength();
            if (n >= 0) {
                return n == 0 ? NONE : new Framing(Kind.LENGTH, n);
            }
            return new Framing(Kind.UNTIL_CLOSE, -1);
        }

        boolean hasBody() {
            return kind != Kind.NONE;
        }
    }

    /**
     * Copies one body framed by {@code f} from {@code in} to {@code out} unchanged but for what
     * {@code sink} changes in its data runs, leaving what follows it in {@code in}; returns the bytes
     * copied.
     *
     * @throws EOFException when the stream ends before the body does
     */
    static long relay(Wire in, OutputStream out, Framing f, DataSink sink) throws IOException {
        long copied = 0;
        switch (f.kind()) {
            case NONE -> {
            }
            case LENGTH -> {
                long left = f.length();
                while (left > 0) {
                    int avail = in.fill();
                    if (avail < 0) {
                        throw new EOFException("the body ended after " + copied + " of " + f.length() + " bytes");
                    }
                    int k = (int) Math.min(left, avail);
                    sink.data(in.buf, in.pos, k, copied);
                    out.write(in.buf, in.pos, k);
                    in.pos += k;
                    left -= k;
                    copied += k;
                }
            }
            case CHUNKED -> {
                ChunkScanner chunks = new ChunkScanner();
                while (!chunks.done()) {
                    if (in.fill() < 0) {
                        throw new EOFException("the chunked body ended after " + copied + " bytes, before its last chunk");
                    }
                    int k = chunks.scan(in.buf, in.pos, in.lim - in.pos, sink);
                    out.write(in.buf, in.pos, k);
                    in.pos += k;
                    copied += k;
                }
            }
            case UNTIL_CLOSE -> {
                while (in.fill() > 0) {
                    int k = in.lim - in.pos;
                    sink.data(in.buf, in.pos, k, copied);
                    out.write(in.buf, in.pos, k);
                    in.pos += k;
                    copied += k;
                }
            }
        }
        return copied;
    }

    /**
     * The chunk grammar of RFC 9112 7.1 (size line with extensions, data, CRLF; a last chunk of size
     * 0, trailer lines, an empty line), read as it streams by: the transfer coding and the
     * {@code aws-chunked} content coding (whose extensions carry chunk signatures and whose trailers
     * carry checksums) alike.
     */
    static final class ChunkScanner {
        private enum State { SIZE, EXT, SIZE_LF, DATA, DATA_CR, DATA_LF, TRAILER_START, TRAILER_LINE, FINAL_LF, DONE }

        private State state = State.SIZE;
        private long size;
        private int digits;
        private long remaining;
        private long dataOffset;

        boolean done() {
            return state == State.DONE;
        }

        /**
         * Reads {@code b[off, off+len)}, giving {@code sink} the runs of chunk data, and returns how
         * many bytes belong to this body (fewer than {@code len} when it ends inside them).
         *
         * @throws IOException when the bytes break the grammar
         */
        int scan(byte[] b, int off, int len, DataSink sink) throws IOException {
            int i = 0;
            while (i < len && state != State.DONE) {
                if (state == State.DATA) {
                    int run = (int) Math.min(remaining, len - i);
                    sink.data(b, off + i, run, dataOffset);
                    dataOffset += run;
                    remaining -= run;
                    i += run;
                    if (remaining == 0) {
                        state = State.DATA_CR;
                    }
                    continue;
                }
                byte c = b[off + i++];
                switch (state) {
                    case SIZE -> {
                        int d = Character.digit(c, 16);
                        if (d >= 0) {
                            if (++digits > 15) {
                                throw new IOException("a chunk size of more than 15 hex digits");
                            }
                            size = size * 16 + d;
                        } else if (digits > 0 && (c == ';' || c == ' ' || c == '\t')) {
                            state = State.EXT;
                        } else if (digits > 0 && c == '\r') {
                            state = State.SIZE_LF;
                        } else if (digits > 0 && c == '\n') {
                            endSizeLine();
                        } else {
                            throw new IOException("a chunk size line starting with byte " + (c & 0xff));
                        }
                    }
                    case EXT -> {
                        if (c == '\r') {
                            state = State.SIZE_LF;
                        } else if (c == '\n') {
                            endSizeLine();
                        }
                    }
                    case SIZE_LF -> {
                        expect(c, '\n');
                        endSizeLine();
                    }
                    case DATA_CR -> {
                        if (c == '\n') {
                            nextChunk();
                        } else {
                            expect(c, '\r');
                            state = State.DATA_LF;
                        }
                    }
                    case DATA_LF -> {
                        expect(c, '\n');
                        nextChunk();
                    }
                    case TRAILER_START -> {
                        if (c == '\r') {
                            state = State.FINAL_LF;
                        } else if (c == '\n') {
                            state = State.DONE;
                        } else {
                            state = State.TRAILER_LINE;
                        }
                    }
                    case TRAILER_LINE -> {
                        if (c == '\n') {
                            state = State.TRAILER_START;
                        }
                    }
                    case FINAL_LF -> {
                        expect(c, '\n');
                        state = State.DONE;
                    }
                    default -> throw new IllegalStateException(state.toString());
                }
            }
            return i;
        }

        private void endSizeLine() {
            if (size == 0) {
                state = State.TRAILER_START;
            } else {
                remaining = size;
                state = State.DATA;
            }
        }

        private void nextChunk() {
            size = 0;
            digits = 0;
            state = State.SIZE;
        }

        private static void expect(byte c, char want) throws IOException {
            if (c != want) {
                throw new IOException("chunked body: byte " + (c & 0xff) + " where " + (int) want + " belongs");
            }
        }
    }

    /** A request or status line with its header fields, and the bytes they came as. */
    static final class Head {
        private final byte[] raw;
        private final String startLine;
        private final Map<String, String> fields;

        private Head(byte[] raw, String startLine, Map<String, String> fields) {
            this.raw = raw;
            this.startLine = startLine;
            this.fields = fields;
        }

        static Head parse(byte[] raw) throws IOException {
            String text = new String(raw, StandardCharsets.ISO_8859_1);
            String[] lines = text.split("\r?\n");
            Map<String, String> fields = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                String line = lines[i];
                if (line.isEmpty()) {
                    continue;
                }
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    throw new IOException("a header line without a name: " + line);
                }
                String name = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).strip();
                fields.merge(name, value, (a, b) -> a + ", " + b);
            }
            return new Head(raw, lines[0], Collections.unmodifiableMap(fields));
        }

        byte[] raw() {
            return raw;
        }

        String startLine() {
            return startLine;
        }

        /** The header fields by lower-case name, repeated ones joined with ", ". */
        Map<String, String> fields() {
            return fields;
        }

        String field(String name) {
            return fields.get(name.toLowerCase(Locale.ROOT));
        }

        private boolean fieldHas(String name, String token) {
            String v = field(name);
            if (v == null) {
                return false;
            }
            for (String t : v.split(",")) {
                if (t.strip().equalsIgnoreCase(token)) {
                    return true;
                }
            }
            return false;
        }

        /** The request's method. */
        String method() {
            int sp = startLine.indexOf(' ');
            return sp < 0 ? startLine : startLine.substring(0, sp);
        }

        /** The request's target (path and query). */
        String target() {
            String[] parts = startLine.split(" ");
            return parts.length > 1 ? parts[1] : "";
        }

        /** The response's status code. */
        int status() throws IOException {
            String[] parts = startLine.split(" ");
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                throw new IOException("not an HTTP status line: " + startLine);
            }
            try {
                return Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                throw new IOException("not an HTTP status line: " + startLine, e);
            }
        }

        long contentLength() throws IOException {
            String v = field("content-length");
            if (v == null) {
                return -1;
            }
            try {
                long n = Long.parseLong(v.strip());
                if (n < 0) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IOException("a bad Content-Length: " + v, e);
            }
        }

        boolean chunked() {
            return fieldHas("transfer-encoding", "chunked");
        }

        /** Whether the body is in the {@code aws-chunked} content coding (chunk framing inside the body). */
        boolean awsChunked() {
            return fieldHas("content-encoding", "aws-chunked");
        }

        boolean expectsContinue() {
            return fieldHas("expect", "100-continue");
        }

        /** Whether the sender closes the connection after this message. */
        boolean closes() {
            return fieldHas("connection", "close") || startLine.endsWith("HTTP/1.0") || startLine.startsWith("HTTP/1.0");
        }
    }
}
