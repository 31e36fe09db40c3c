package io.dgen4j.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The manifest's JSON reader: strict RFC 8259, bounded. */
class JsonReaderTest {

    private static Object parse(String s) throws JsonReader.SyntaxException {
        return JsonReader.parse(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String refused(String s) {
        return assertThrows(JsonReader.SyntaxException.class, () -> parse(s), s).getMessage();
    }

    @Test
    void readsEveryKindOfValue() throws Exception {
        Object v = parse(" {\"s\":\"a\\\"b\\\\c\\/\\n\\u00e9\\t\",\"i\":-42,\"big\":18446744073709551615,\"d\":1.5e3,"
                + "\"t\":true,\"f\":false,\"n\":null,\"a\":[1,[],{}],\"o\":{\"x\":0}}\n");
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a\"b\\c/\n\u00e9\t");
        m.put("i", -42L);
        m.put("big", new java.math.BigInteger("18446744073709551615"));
        m.put("d", 1500.0);
        m.put("t", true);
        m.put("f", false);
        m.put("n", null);
        m.put("a", List.of(1L, List.of(), Map.of()));
        m.put("o", Map.of("x", 0L));
        assertEquals(m, v);
        assertEquals(List.of("a", "b", "c"), List.copyOf(((Map<?, ?>) parse("{\"a\":1,\"b\":2,\"c\":3}")).keySet()),
                "keys keep their order");
        assertEquals(Long.MAX_VALUE, parse(Long.toString(Long.MAX_VALUE)));
        assertEquals(Long.MIN_VALUE, parse(Long.toString(Long.MIN_VALUE)));
    }

    @Test
    void refusesWhatIsNotJson() {
        assertTrue(refused("{\"a\":1,\"a\":2}").contains("Duplicate field 'a'"));
        assertTrue(refused("{\"a\":1} {}").contains("text follows the object"));
        assertTrue(refused("{\"a\":1").contains("not closed"));
        assertTrue(refused("{\"a\":01}").contains("leading zero"));
        assertTrue(refused("{\"a\":1.}").contains("bad number"));
        assertTrue(refused("{\"a\":-}").contains("bad number"));
        assertTrue(refused("{\"a\":\"x\ny\"}").contains("control character"));
        assertTrue(refused("{\"a\":\"\\x\"}").contains("bad escape"));
        assertTrue(refused("{\"a\":tru}").contains("unexpected token"));
        assertTrue(refused("{a:1}").contains("expected a field name"));
        assertTrue(refused("{\"a\" 1}").contains("expected ':'"));
        assertTrue(refused("[1 2]").contains("expected ',' or ']'"));
        assertTrue(refused("").contains("end of input"));
        assertTrue(refused("[".repeat(17) + "]".repeat(17)).contains("nesting deeper than 16"));
        assertTrue(refused("\"" + "x".repeat(JsonReader.MAX_STRING + 1) + "\"").contains("longer than " + JsonReader.MAX_STRING));
        assertTrue(assertThrows(JsonReader.SyntaxException.class,
                () -> JsonReader.parse(new byte[] {'"', (byte) 0xff, '"'})).getMessage().contains("not UTF-8"));
    }
}
