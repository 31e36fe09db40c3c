package io.dgen4j.cli.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The CLI's machine output: one JSON value written by jackson-core's {@link JsonGenerator} from
 * maps, collections, strings, numbers and booleans.
 *
 * <p>Integral numbers are written exactly (a {@code long} keeps all 64 bits); doubles are written
 * with Java's shortest round-trip form, and a non-finite double (NaN, infinity), which JSON cannot
 * express, is written as {@code null}: the key stays, so a consumer sees the same fields every
 * run. Strings are escaped as JSON demands, and every non-ASCII character is written as a
 * {@code \\uXXXX} escape, so the output is plain ASCII and survives any {@code stdout} encoding
 * (a POSIX locale prints {@code ?} for characters it cannot encode).
 */
public final class Json {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .build();

    private Json() {}

    /** An empty object whose keys keep their insertion order. */
    public static Map<String, Object> object() {
        return new LinkedHashMap<>();
    }

    /** {@code value} as one line of JSON (no trailing newline). */
    public static String write(Object value) {
        StringWriter sw = new StringWriter();
        write(value, sw);
        return sw.toString();
    }

    /**
     * {@code value} as one line of JSON (no trailing newline) written to {@code out} as it is produced,
     * without holding the whole text: for outputs as large as a plan of many ranks. {@code out} is
     * flushed, not closed; a {@link java.io.PrintWriter} keeps its own error state (checkError).
     */
    public static void write(Object value, java.io.Writer out) {
        try (JsonGenerator g = FACTORY.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)) {
            value(g, value);
        } catch (IOException e) {
            // a StringWriter or PrintWriter does not throw; the generator only throws for misuse, a bug here
            throw new UncheckedIOException("writing JSON failed: " + e.getMessage(), e);
        }
    }

    private static void value(JsonGenerator g, Object v) throws IOException {
        switch (v) {
            case null -> g.writeNull();
            case String s -> g.writeString(s);
            case Boolean b -> g.writeBoolean(b);
            case Double d -> number(g, d);
            case Float f -> {
                if (Float.isFinite(f)) {
                    g.writeNumber(f.floatValue()); // 0.1f prints 0.1, not its double expansion
                } else {
                    g.writeNull();
                }
            }
            case Long l -> g.writeNumber(l);
            case Integer i -> g.writeNumber(i);
            case Short s -> g.writeNumber(s);
            case Byte b -> g.writeNumber(b);
            case BigInteger b -> g.writeNumber(b);
            case BigDecimal b -> g.writeNumber(b);
            case Number n -> number(g, n.doubleValue());
            case Character c -> g.writeString(c.toString());
            case Optional<?> o -> value(g, o.orElse(null));
            case OptionalLong o -> value(g, o.isPresent() ? o.getAsLong() : null);
            case OptionalInt o -> value(g, o.isPresent() ? o.getAsInt() : null);
            case OptionalDouble o -> value(g, o.isPresent() ? o.getAsDouble() : null);
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeFieldName(String.valueOf(e.getKey()));
                    value(g, e.getValue());
                }
                g.writeEndObject();
            }
            case Collection<?> c -> {
                g.writeStartArray();
                for (Object o : c) {
                    value(g, o);
                }
                g.writeEndArray();
            }
            default -> {
                if (v.getClass().isArray()) {
                    throw new IllegalArgumentException("JSON of an array (" + v.getClass().getSimpleName()
                            + "): pass a List");
                }
                g.writeString(v.toString()); // paths, URIs, enums and the like print as their text
            }
        }
    }

    private static void number(JsonGenerator g, double d) throws IOException {
        if (Double.isFinite(d)) {
            g.writeNumber(d);
        } else {
            g.writeNull();
        }
    }
}
