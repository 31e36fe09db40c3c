package io.dgen4j.json;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Writes one JSON value made of maps (keys in their iteration order), collections, strings,
 * numbers, booleans and {@code null}, in one of two layouts: one line, or indented by four spaces
 * with {@code "key": value} (DLIO's output files); either may escape every non-ASCII character.
 *
 * <p>Integral numbers are written exactly (a {@code long} keeps all 64 bits, {@link BigInteger} and
 * {@link BigDecimal} their {@code toString()}); a {@code double} or {@code float} is written in
 * Java's shortest round-trip form ({@link Double#toString}, so {@code 1.0E-4}), and a non-finite one,
 * which JSON cannot express, as {@code null}: the key stays, so a consumer sees the same fields every
 * run. Other numbers are written as their {@code doubleValue()}. {@code Optional*} values are their
 * content or {@code null}; other objects (paths, URIs, enums) are their {@code toString()}; Java arrays
 * are refused (pass a {@link java.util.List}).
 *
 * <p>Strings and keys are escaped as JSON demands: {@code "} and {@code \}, {@code \b \t \n \f \r},
 * other control characters as {@code \}{@code u00XX} (upper-case hex); with {@link #asciiOnly} also
 * every character from U+0080 up (each UTF-16 unit on its own), so the text survives any
 * {@code stdout} encoding (a POSIX locale prints {@code ?} for characters it cannot encode). These are
 * the bytes jackson-core's generator wrote before dgen4j had this class, with its
 * {@code ESCAPE_NON_ASCII} feature for the ASCII form and a {@code DefaultPrettyPrinter} (indenters of
 * four spaces, a space after the colon, {@code { }} and {@code [ ]} when empty) for the indented one.
 */
public final class JsonWriter {
    /** One line, text as it is: the file backend's manifest sidecar. */
    public static final JsonWriter LINE = new JsonWriter(false, false);
    /** One line, every non-ASCII character escaped: {@code --json} (CLI, bench) and the S3 manifest entry. */
    public static final JsonWriter ASCII_LINE = new JsonWriter(false, true);
    /** Indented by four spaces, text as it is: DLIO's {@code summary.json} and per-rank files. */
    public static final JsonWriter INDENTED = new JsonWriter(true, false);

    private static final String INDENT = "    ";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    /** A streamed value is handed to its {@link Writer} in pieces of about this many characters. */
    private static final int FLUSH_AT = 8192;

    private final boolean indent;
    private final boolean ascii;

    private JsonWriter(boolean indent, boolean ascii) {
        this.indent = indent;
        this.ascii = ascii;
    }

    /** This layout with every character from U+0080 up written as a {@code \}{@code uXXXX} escape. */
    public JsonWriter asciiOnly() {
        return ascii ? this : new JsonWriter(indent, true);
    }

    /** {@code value} as JSON text (no trailing newline). */
    public String write(Object value) {
        StringBuilder out = new StringBuilder();
        try {
            new Run(out, null).value(value, 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringBuilder alone never throws
        }
        return out.toString();
    }

    /**
     * Writes {@code value} (no trailing newline) to {@code out} as it is produced, a few kilobytes at a
     * time, without holding the whole text: for outputs as large as a plan of many ranks. {@code out}
     * is flushed, not closed.
     */
    public void write(Object value, Writer out) throws IOException {
        StringBuilder buffer = new StringBuilder(FLUSH_AT + 256);
        new Run(buffer, out).value(value, 0);
        out.append(buffer);
        out.flush();
    }

    /** One write: the text so far, and where it goes when it grows (null: it is the result). */
    private final class Run {
        private final StringBuilder sb;
        private final Writer sink;

        Run(StringBuilder sb, Writer sink) {
            this.sb = sb;
            this.sink = sink;
        }

        private void drain() throws IOException {
            if (sink != null && sb.length() >= FLUSH_AT) {
                sink.append(sb);
                sb.setLength(0);
            }
        }

        void value(Object v, int depth) throws IOException {
            switch (v) {
                case null -> sb.append("null");
                case String s -> string(s);
                case Boolean b -> sb.append(b.booleanValue());
                case Double d -> number(d);
                case Float f -> {
                    if (Float.isFinite(f)) {
                        sb.append(f.floatValue()); // 0.1f prints 0.1, not its double expansion
                    } else {
                        sb.append("null");
                    }
                }
                case Long l -> sb.append(l.longValue());
                case Integer i -> sb.append(i.intValue());
                case Short s -> sb.append(s.shortValue());
                case Byte b -> sb.append(b.byteValue());
                case BigInteger b -> sb.append(b);
                case BigDecimal b -> sb.append(b);
                case Number n -> number(n.doubleValue());
                case Character c -> string(c.toString());
                case Optional<?> o -> value(o.orElse(null), depth);
                case OptionalLong o -> value(o.isPresent() ? o.getAsLong() : null, depth);
                case OptionalInt o -> value(o.isPresent() ? o.getAsInt() : null, depth);
                case OptionalDouble o -> value(o.isPresent() ? o.getAsDouble() : null, depth);
                case Map<?, ?> m -> object(m, depth);
                case Collection<?> c -> array(c, depth);
                default -> {
                    if (v.getClass().isArray()) {
                        throw new IllegalArgumentException("JSON of an array (" + v.getClass().getSimpleName()
                                + "): pass a List");
                    }
                    string(v.toString()); // paths, URIs, enums and the like print as their text
                }
            }
            drain();
        }

        private void number(double d) {
            if (Double.isFinite(d)) {
                sb.append(d);
            } else {
                sb.append("null");
            }
        }

        private void object(Map<?, ?> m, int depth) throws IOException {
            if (m.isEmpty()) {
                sb.append(indent ? "{ }" : "{}");
                return;
            }
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(depth + 1);
                string(String.valueOf(e.getKey()));
                sb.append(indent ? ": " : ":");
                value(e.getValue(), depth + 1);
            }
            newline(depth);
            sb.append('}');
        }

        private void array(Collection<?> c, int depth) throws IOException {
            if (c.isEmpty()) {
                sb.append(indent ? "[ ]" : "[]");
                return;
            }
            sb.append('[');
            boolean first = true;
            for (Object o : c) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(depth + 1);
                value(o, depth + 1);
            }
            newline(depth);
            sb.append(']');
        }

        private void newline(int depth) {
            if (indent) {
                sb.append('\n');
                for (int i = 0; i < depth; i++) {
                    sb.append(INDENT);
                }
            }
        }

        private void string(String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\b' -> sb.append("\\b");
                    case '\t' -> sb.append("\\t");
                    case '\n' -> sb.append("\\n");
                    case '\f' -> sb.append("\\f");
                    case '\r' -> sb.append("\\r");
                    default -> {
                        if (c < 0x20 || ascii && c >= 0x80) {
                            sb.append("\\u").append(HEX[c >> 12]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf])
                                    .append(HEX[c & 0xf]);
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            sb.append('"');
        }
    }
}
