package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.cli.JsonRead;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The CLI's JSON writer: exact bytes for known values, escapes and numbers read back by a strict parser. */
class JsonTest {

    @Test
    void writesCompactJsonInInsertionOrder() {
        Map<String, Object> m = Json.object();
        m.put("b", 1);
        m.put("a", "x");
        m.put("n", null);
        m.put("t", true);
        m.put("l", List.of(1L, "two", List.of()));
        m.put("o", Json.object());
        assertEquals("{\"b\":1,\"a\":\"x\",\"n\":null,\"t\":true,\"l\":[1,\"two\",[]],\"o\":{}}", Json.write(m));
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertEquals("\"a\\\"b\\\\c\"", Json.write("a\"b\\c"));
        assertEquals("\"\\n\\r\\t\\b\\f\"", Json.write("\n\r\t\b\f"));
        assertEquals("\"\\u0000\\u0001\\u001F\"", Json.write("\u0000\u0001\u001f"));
        // a path with every awkward character survives a strict parser unchanged
        String path = "/tmp/we\"ird\\ dir\t\u0001/ck\u007fpt.bin";
        assertEquals(path, JsonRead.parse(Json.write(Path.of(path))));
    }

    @Test
    void writesNonAsciiAsEscapesSoOutputIsAsciiWhateverTheLocale() {
        String s = "caf\u00e9 \u00fc\u00df \u65e5\u672c \ud83d\ude00 \u2028";
        String json = Json.write(s);
        assertEquals("\"caf\\u00E9 \\u00FC\\u00DF \\u65E5\\u672C \\uD83D\\uDE00 \\u2028\"", json);
        assertTrue(json.chars().allMatch(c -> c >= 0x20 && c < 0x7f), json);
        assertEquals(s, JsonRead.parse(json));
    }

    @Test
    void keysAreEscapedToo() {
        Map<String, Object> m = Json.object();
        m.put("k\"\\\u00e9", 1);
        assertEquals("{\"k\\\"\\\\\\u00E9\":1}", Json.write(m));
        assertEquals(Map.of("k\"\\\u00e9", 1L), JsonRead.parse(Json.write(m)));
    }

    @Test
    void integersAreExact() {
        for (long v : new long[] {0, -1, 1L << 53, (1L << 53) + 1, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertEquals(Long.toString(v), Json.write(v));
            assertEquals(v, JsonRead.parse(Json.write(v)));
        }
        assertEquals("2147483647", Json.write(Integer.MAX_VALUE));
        assertEquals("-7", Json.write((short) -7));
        assertEquals("-8", Json.write((byte) -8));
        BigInteger u64 = new BigInteger("18446744073709551615");
        assertEquals("18446744073709551615", Json.write(u64));
        assertEquals(u64, JsonRead.parse(Json.write(u64)));
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
            Object back = JsonRead.parse(Json.write(d));
            assertEquals(Double.doubleToLongBits(d), Double.doubleToLongBits((Double) back), "value " + d);
        }
        assertEquals("0.1", Json.write(0.1f));
    }

    @Test
    void nonFiniteNumbersBecomeNullAndTheKeyStays() {
        Map<String, Object> m = Json.object();
        m.put("nan", Double.NaN);
        m.put("inf", Double.POSITIVE_INFINITY);
        m.put("ninf", Double.NEGATIVE_INFINITY);
        m.put("fnan", Float.NaN);
        m.put("list", List.of(Double.NaN, 1.5));
        m.put("ok", 2.0);
        String json = Json.write(m);
        assertEquals("{\"nan\":null,\"inf\":null,\"ninf\":null,\"fnan\":null,\"list\":[null,1.5],\"ok\":2.0}", json);
        assertEquals(6, JsonRead.object(json).size());
    }

    @Test
    void optionalsAndOtherObjects() {
        assertEquals("null", Json.write(Optional.empty()));
        assertEquals("\"x\"", Json.write(Optional.of("x")));
        assertEquals("5", Json.write(OptionalLong.of(5)));
        assertEquals("null", Json.write(OptionalLong.empty()));
        assertEquals("\"/a/b\"", Json.write(Path.of("/a/b")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.write(new long[] {1}));
        assertTrue(e.getMessage().contains("pass a List"), e.getMessage());
    }
}
