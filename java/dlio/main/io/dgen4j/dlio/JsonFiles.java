package io.dgen4j.dlio;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** JSON of maps, lists, strings, numbers and booleans with jackson-core, indented by 4 as DLIO's files are. */
public final class JsonFiles {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private JsonFiles() {}

    /** Writes {@code value} to {@code file} (replaced); returns {@code file}. */
    static Path write(Path file, Object value) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            w.write(toJson(value));
            w.write('\n');
        }
        return file;
    }

    /** {@code value} as indented JSON. */
    public static String toJson(Object value) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            DefaultPrettyPrinter pp = new DefaultPrettyPrinter()
                    .withObjectIndenter(new DefaultIndenter("    ", "\n"))
                    .withArrayIndenter(new DefaultIndenter("    ", "\n"))
                    // "key": value, as Python's json.dump writes it
                    .withSeparators(Separators.createDefaultInstance()
                            .withObjectFieldValueSpacing(Separators.Spacing.AFTER));
            g.setPrettyPrinter(pp);
            value(g, value);
        } catch (IOException e) {
            throw new IllegalStateException("JSON to a string cannot fail", e);
        }
        return out.toString();
    }

    private static void value(JsonGenerator g, Object v) throws IOException {
        switch (v) {
            case null -> g.writeNull();
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeFieldName(String.valueOf(e.getKey()));
                    value(g, e.getValue());
                }
                g.writeEndObject();
            }
            case List<?> l -> {
                g.writeStartArray();
                for (Object o : l) {
                    value(g, o);
                }
                g.writeEndArray();
            }
            case String s -> g.writeString(s);
            case Boolean b -> g.writeBoolean(b);
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            case Double d -> {
                if (d.isNaN() || d.isInfinite()) {
                    g.writeNull();
                } else {
                    g.writeNumber(d);
                }
            }
            case Number n -> g.writeNumber(n.doubleValue());
            default -> g.writeString(String.valueOf(v));
        }
    }
}
