package io.dgen4j.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The manifest's own JSON parser and writer: strict RFC 8259, bounded, round-tripping the sidecar. */
class JsonTextTest {

    private static Object parse(String s) throws JsonText.SyntaxException {
        return JsonText.parse(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String refused(String s) {
        return assertThrows(JsonText.SyntaxException.class, () -> parse(s), s).getMessage();
    }

    @Test
    void readsEveryKindOfValue() throws Exception {
        Object v = parse(" {\"s\":\"a\\\"b\\\\c\\/\\n\\u00e9\\t\",\"i\":-42,\"big\":18446744073709551615,\"d\":1.5e3,"
                + "\"t\":true,\"f\":false,\"n\":null,\"a\":[1,[],{}],\"o\":{\"x\":0}}\n");
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a\"b\\c/\n\u00e9\t");
        m.put("i", -42L);
        m.put("big", "18446744073709551615");
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
        assertTrue(refused("\"" + "x".repeat(4097) + "\"").contains("longer than 4096"));
        assertTrue(assertThrows(JsonText.SyntaxException.class,
                () -> JsonText.parse(new byte[] {'"', (byte) 0xff, '"'})).getMessage().contains("not UTF-8"));
    }

    @Test
    void sidecarRoundTripsThroughItsOwnWriter() throws Exception {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("dgen4j", "checkpoint");
        meta.put("size", 1000003L);
        meta.put("ratio", 1.25);
        meta.put("odd", "quote \" backslash \\ newline \n tab \t bell \u0007");
        meta.put("flag", true);
        Sidecar.Entry cur = new Sidecar.Entry(meta, OptionalLong.of(77), 1000003);
        Sidecar.Entry prev = new Sidecar.Entry(Map.of("dgen4j", "checkpoint", "size", 5L), OptionalLong.of(12), 5);
        byte[] json = Sidecar.write(cur, true, Optional.of(prev));
        Sidecar.Doc doc = Sidecar.parse(json, "test");
        assertEquals(meta, doc.current().metadata());
        assertEquals(OptionalLong.of(77), doc.current().inode());
        assertTrue(doc.pending());
        assertEquals(OptionalLong.of(12), doc.previous().orElseThrow().inode());
        assertEquals(5, doc.previous().orElseThrow().size());
        String text = new String(json, StandardCharsets.UTF_8);
        assertTrue(text.startsWith("{\"dgen4j\":\"checkpoint\",\"size\":1000003,\"ratio\":1.25,"), text);
        assertTrue(text.contains("\\u0007"), text);
        assertThrows(IllegalArgumentException.class, () -> Sidecar.write(new Sidecar.Entry(
                Map.of("x", Double.NaN), OptionalLong.empty(), -1), false, Optional.empty()));
    }
}
