package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import io.dgen4j.cli.JsonRead;
import io.dgen4j.json.JsonWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The CLI's {@code --json} (core's {@link JsonWriter#ASCII_LINE}) and DLIO's files ({@link JsonWriter#INDENTED}):
 * exact bytes for known values, escapes and numbers read back by a strict parser, and random values
 * written byte for byte as jackson-core's generator wrote them when the CLI and DLIO used it.
 */
class JsonTest {

    @Test
    void writesCompactJsonInInsertionOrder() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("b", 1);
        m.put("a", "x");
        m.put("n", null);
        m.put("t", true);
        m.put("l", List.of(1L, "two", List.of()));
        m.put("o", new LinkedHashMap<>());
        assertEquals("{\"b\":1,\"a\":\"x\",\"n\":null,\"t\":true,\"l\":[1,\"two\",[]],\"o\":{}}", JsonWriter.ASCII_LINE.write(m));
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertEquals("\"a\\\"b\\\\c\"", JsonWriter.ASCII_LINE.write("a\"b\\c"));
        assertEquals("\"\\n\\r\\t\\b\\f\"", JsonWriter.ASCII_LINE.write("\n\r\t\b\f"));
        assertEquals("\"\\u0000\\u0001\\u001F\"", JsonWriter.ASCII_LINE.write("\u0000\u0001\u001f"));
        // a path with every awkward character survives a strict parser unchanged
        String path = "/tmp/we\"ird\\ dir\t\u0001/ck\u007fpt.bin";
        assertEquals(path, JsonRead.parse(JsonWriter.ASCII_LINE.write(Path.of(path))));
    }

    @Test
    void writesNonAsciiAsEscapesSoOutputIsAsciiWhateverTheLocale() {
        String s = "caf\u00e9 \u00fc\u00df \u65e5\u672c \ud83d\ude00 \u2028";
        String json = JsonWriter.ASCII_LINE.write(s);
        assertEquals("\"caf\\u00E9 \\u00FC\\u00DF \\u65E5\\u672C \\uD83D\\uDE00 \\u2028\"", json);
        assertTrue(json.chars().allMatch(c -> c >= 0x20 && c < 0x7f), json);
        assertEquals(s, JsonRead.parse(json));
    }

    @Test
    void keysAreEscapedToo() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("k\"\\\u00e9", 1);
        assertEquals("{\"k\\\"\\\\\\u00E9\":1}", JsonWriter.ASCII_LINE.write(m));
        assertEquals(Map.of("k\"\\\u00e9", 1L), JsonRead.parse(JsonWriter.ASCII_LINE.write(m)));
    }

    @Test
    void integersAreExact() {
        for (long v : new long[] {0, -1, 1L << 53, (1L << 53) + 1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertEquals(Long.toString(v), JsonWriter.ASCII_LINE.write(v));
            assertEquals(v, JsonRead.parse(JsonWriter.ASCII_LINE.write(v)));
        }
        assertEquals("2147483647", JsonWriter.ASCII_LINE.write(Integer.MAX_VALUE));
        assertEquals("-7", JsonWriter.ASCII_LINE.write((short) -7));
        assertEquals("-8", JsonWriter.ASCII_LINE.write((byte) -8));
        BigInteger u64 = new BigInteger("18446744073709551615");
        assertEquals("18446744073709551615", JsonWriter.ASCII_LINE.write(u64));
        assertEquals(u64, JsonRead.parse(JsonWriter.ASCII_LINE.write(u64)));
    }

    @Test
    void doublesRoundTripExactly() {
        List<Double> values = new ArrayList<>(Arrays.asList(0.0, -0.0, 1.0, 0.1, 1e-9, 123456.789, 1e300, -2.5e-300,
                Double.MIN_VALUE, Double.MAX_VALUE, 1.0 / 3));
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            values.add(Double.longBitsToDouble(r.nextLong()));
        }
        for (double d : values) {
            if (!Double.isFinite(d)) {
                continue;
            }
            Object back = JsonRead.parse(JsonWriter.ASCII_LINE.write(d));
            assertEquals(Double.doubleToLongBits(d), Double.doubleToLongBits((Double) back), "value " + d);
        }
        assertEquals("0.1", JsonWriter.ASCII_LINE.write(0.1f));
    }

    @Test
    void nonFiniteNumbersBecomeNullAndTheKeyStays() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("nan", Double.NaN);
        m.put("inf", Double.POSITIVE_INFINITY);
        m.put("ninf", Double.NEGATIVE_INFINITY);
        m.put("fnan", Float.NaN);
        m.put("list", List.of(Double.NaN, 1.5));
        m.put("ok", 2.0);
        String json = JsonWriter.ASCII_LINE.write(m);
        assertEquals("{\"nan\":null,\"inf\":null,\"ninf\":null,\"fnan\":null,\"list\":[null,1.5],\"ok\":2.0}", json);
        assertEquals(6, JsonRead.object(json).size());
    }

    @Test
    void optionalsAndOtherObjects() {
        assertEquals("null", JsonWriter.ASCII_LINE.write(Optional.empty()));
        assertEquals("\"x\"", JsonWriter.ASCII_LINE.write(Optional.of("x")));
        assertEquals("5", JsonWriter.ASCII_LINE.write(OptionalLong.of(5)));
        assertEquals("null", JsonWriter.ASCII_LINE.write(OptionalLong.empty()));
        assertEquals("\"/a/b\"", JsonWriter.ASCII_LINE.write(Path.of("/a/b")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JsonWriter.ASCII_LINE.write(new long[] {1}));
        assertTrue(e.getMessage().contains("pass a List"), e.getMessage());
    }

    /** jackson-core configured as the CLI's old {@code Json} was (one line, ESCAPE_NON_ASCII). */
    private static final JsonFactory CLI_JACKSON = JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
    /** jackson-core as DLIO's old {@code JsonFiles} was (a pretty printer indenting by 4, "key": value). */
    private static final JsonFactory DLIO_JACKSON = JsonFactory.builder().build();

    private static String jackson(Object value, boolean dlio) throws IOException {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = (dlio ? DLIO_JACKSON : CLI_JACKSON).createGenerator(out)) {
            if (dlio) {
                g.setPrettyPrinter(new DefaultPrettyPrinter()
                        .withObjectIndenter(new DefaultIndenter("    ", "\n"))
                        .withArrayIndenter(new DefaultIndenter("    ", "\n"))
                        .withSeparators(Separators.createDefaultInstance()
                                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)));
            }
            jackson(g, value);
        }
        return out.toString();
    }

    /** The old writers' walk over the value types both of them wrote alike. */
    private static void jackson(JsonGenerator g, Object v) throws IOException {
        switch (v) {
            case null -> g.writeNull();
            case String s -> g.writeString(s);
            case Boolean b -> g.writeBoolean(b);
            case Double d -> {
                if (Double.isFinite(d)) {
                    g.writeNumber(d);
                } else {
                    g.writeNull();
                }
            }
            case Long l -> g.writeNumber(l);
            case Integer i -> g.writeNumber(i);
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeFieldName(String.valueOf(e.getKey()));
                    jackson(g, e.getValue());
                }
                g.writeEndObject();
            }
            case List<?> l -> {
                g.writeStartArray();
                for (Object o : l) {
                    jackson(g, o);
                }
                g.writeEndArray();
            }
            default -> throw new AssertionError(v.getClass());
        }
    }

    /** A random value of the kinds DLIO's files and the CLI's reports hold, nested up to {@code depth}. */
    private static Object random(SplittableRandom r, int depth) {
        int kind = r.nextInt(depth > 0 ? 9 : 7);
        return switch (kind) {
            case 0 -> null;
            case 1 -> r.nextBoolean();
            case 2 -> r.nextInt();
            case 3 -> r.nextLong() >> r.nextInt(64);
            case 4 -> r.nextBoolean() ? Double.longBitsToDouble(r.nextLong()) // NaN and infinities included
                    : r.nextInt(-1_000_000, 1_000_000) / Math.pow(10, r.nextInt(12));
            case 5, 6 -> randomString(r);
            case 7 -> {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    l.add(random(r, depth - 1));
                }
                yield l;
            }
            default -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    m.put(randomString(r), random(r, depth - 1));
                }
                yield m;
            }
        };
    }

    /** Printable ASCII, control characters, DEL, Latin-1, the BMP and surrogates (paired or not). */
    private static String randomString(SplittableRandom r) {
        StringBuilder sb = new StringBuilder();
        for (int i = r.nextInt(12); i > 0; i--) {
            sb.append(switch (r.nextInt(5)) {
                case 0 -> (char) r.nextInt(0x20);
                case 1 -> (char) r.nextInt(0x20, 0x80);
                case 2 -> (char) r.nextInt(0x80, 0x100);
                case 3 -> (char) r.nextInt(0xd800, 0xe000);
                default -> (char) r.nextInt(0x10000);
            });
        }
        return sb.toString();
    }

    @Test
    void randomValuesAreWrittenAsTheOldJacksonWritersWroteThem() throws IOException {
        SplittableRandom r = new SplittableRandom(18);
        for (int i = 0; i < 3000; i++) {
            Object v = random(r, 4);
            assertEquals(jackson(v, false), JsonWriter.ASCII_LINE.write(v), "--json of value " + i);
            assertEquals(jackson(v, true), JsonWriter.INDENTED.write(v), "DLIO file of value " + i);
        }
    }
}
