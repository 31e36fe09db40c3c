package io.dgen4j.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The one JSON writer. The expected strings are what the writers it replaced (jackson-core's
 * generator: the CLI's {@code --json} with {@code ESCAPE_NON_ASCII}, DLIO's files with a
 * {@code DefaultPrettyPrinter}) wrote for the same values, captured from them before they were removed.
 */
class JsonWriterTest {

    /** Every character up to U+009F, then some of the BMP's awkward ones and a surrogate pair. */
    private static String everyAwkwardCharacter() {
        StringBuilder all = new StringBuilder();
        for (int c = 0; c < 0xa0; c++) {
            all.append((char) c);
        }
        return all.append("\u00e9\u00ff\u0100\u07ff\u0800\u2028\u2029\ufeff\uffff\ud83d\ude00").toString();
    }

    /** The values the old writers were run on, in the order of the expected strings. */
    private static List<Object> cases() {
        String all = everyAwkwardCharacter();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("all", all);
        m.put(all, "key");
        m.put("lone", "\ud800x\udc00");
        m.put("ints", List.of(0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 0L, Long.MAX_VALUE, Long.MIN_VALUE));
        m.put("doubles", List.of(0.0, -0.0, 1.0, 0.1, 1e-3, 1e-4, 1e6, 1e7, 1e21, 1e22, 123456.789, 1.0 / 3,
                Double.MIN_VALUE, Double.MAX_VALUE, -2.5e-300, 4.35, 2e-323));
        m.put("nonfinite", Arrays.asList(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, null));
        m.put("bools", List.of(true, false));
        m.put("empty", new LinkedHashMap<>());
        m.put("emptyList", List.of());
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("x", List.of(Map.of("y", List.of())));
        n.put("z", Map.of());
        m.put("nested", List.of(n, List.of(List.of(1, 2), List.of()), "s"));
        return Arrays.asList(m, "plain", 5, 2.5, null, true, List.of(), Map.of(), List.of(1), Map.of("a", 1));
    }

    private static final List<String> ASCII_LINE = List.of(
            "{\"all\":\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u007f\\u0080\\u0081\\u0082\\u0083\\u0084\\u0085\\u0086\\u0087\\u0088\\u0089\\u008A\\u008B\\u008C\\u008D\\u008E\\u008F\\u0090\\u0091\\u0092\\u0093\\u0094\\u0095\\u0096\\u0097\\u0098\\u0099\\u009A\\u009B\\u009C\\u009D\\u009E\\u009F\\u00E9\\u00FF\\u0100\\u07FF\\u0800\\u2028\\u2029\\uFEFF\\uFFFF\\uD83D\\uDE00\",\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u007f\\u0080\\u0081\\u0082\\u0083\\u0084\\u0085\\u0086\\u0087\\u0088\\u0089\\u008A\\u008B\\u008C\\u008D\\u008E\\u008F\\u0090\\u0091\\u0092\\u0093\\u0094\\u0095\\u0096\\u0097\\u0098\\u0099\\u009A\\u009B\\u009C\\u009D\\u009E\\u009F\\u00E9\\u00FF\\u0100\\u07FF\\u0800\\u2028\\u2029\\uFEFF\\uFFFF\\uD83D\\uDE00\":\"key\",\"lone\":\"\\uD800x\\uDC00\",\"ints\":[0,-1,2147483647,-2147483648,0,9223372036854775807,-9223372036854775808],\"doubles\":[0.0,-0.0,1.0,0.1,0.001,1.0E-4,1000000.0,1.0E7,1.0E21,1.0E22,123456.789,0.3333333333333333,4.9E-324,1.7976931348623157E308,-2.5E-300,4.35,2.0E-323],\"nonfinite\":[null,null,null,null],\"bools\":[true,false],\"empty\":{},\"emptyList\":[],\"nested\":[{\"x\":[{\"y\":[]}],\"z\":{}},[[1,2],[]],\"s\"]}",
            "\"plain\"",
            "5",
            "2.5",
            "null",
            "true",
            "[]",
            "{}",
            "[1]",
            "{\"a\":1}");

    private static final List<String> INDENTED = List.of(
            "{\n    \"all\": \"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u007f\u0080\u0081\u0082\u0083\u0084\u0085\u0086\u0087\u0088\u0089\u008a\u008b\u008c\u008d\u008e\u008f\u0090\u0091\u0092\u0093\u0094\u0095\u0096\u0097\u0098\u0099\u009a\u009b\u009c\u009d\u009e\u009f\u00e9\u00ff\u0100\u07ff\u0800\u2028\u2029\ufeff\uffff\ud83d\ude00\",\n    \"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u007f\u0080\u0081\u0082\u0083\u0084\u0085\u0086\u0087\u0088\u0089\u008a\u008b\u008c\u008d\u008e\u008f\u0090\u0091\u0092\u0093\u0094\u0095\u0096\u0097\u0098\u0099\u009a\u009b\u009c\u009d\u009e\u009f\u00e9\u00ff\u0100\u07ff\u0800\u2028\u2029\ufeff\uffff\ud83d\ude00\": \"key\",\n    \"lone\": \"\ud800x\udc00\",\n    \"ints\": [\n        0,\n        -1,\n        2147483647,\n        -2147483648,\n        0,\n        9223372036854775807,\n        -9223372036854775808\n    ],\n    \"doubles\": [\n        0.0,\n        -0.0,\n        1.0,\n        0.1,\n        0.001,\n        1.0E-4,\n        1000000.0,\n        1.0E7,\n        1.0E21,\n        1.0E22,\n        123456.789,\n        0.3333333333333333,\n        4.9E-324,\n        1.7976931348623157E308,\n        -2.5E-300,\n        4.35,\n        2.0E-323\n    ],\n    \"nonfinite\": [\n        null,\n        null,\n        null,\n        null\n    ],\n    \"bools\": [\n        true,\n        false\n    ],\n    \"empty\": { },\n    \"emptyList\": [ ],\n    \"nested\": [\n        {\n            \"x\": [\n                {\n                    \"y\": [ ]\n                }\n            ],\n            \"z\": { }\n        },\n        [\n            [\n                1,\n                2\n            ],\n            [ ]\n        ],\n        \"s\"\n    ]\n}",
            "\"plain\"",
            "5",
            "2.5",
            "null",
            "true",
            "[ ]",
            "{ }",
            "[\n    1\n]",
            "{\n    \"a\": 1\n}");

    @Test
    void oneLineAsciiIsWhatTheCliWrote() {
        List<Object> cases = cases();
        for (int i = 0; i < cases.size(); i++) {
            assertEquals(ASCII_LINE.get(i), JsonWriter.ASCII_LINE.write(cases.get(i)), "case " + i);
        }
        String json = JsonWriter.ASCII_LINE.write(cases.get(0));
        assertTrue(json.chars().allMatch(c -> c >= 0x20 && c < 0x80), "plain ASCII without control characters");
    }

    @Test
    void indentedIsWhatDlioWrote() {
        List<Object> cases = cases();
        for (int i = 0; i < cases.size(); i++) {
            assertEquals(INDENTED.get(i), JsonWriter.INDENTED.write(cases.get(i)), "case " + i);
        }
    }

    @Test
    void otherNumbersOptionalsAndObjectsAreWhatTheCliWrote() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("short", (short) -7);
        m.put("byte", (byte) 8);
        m.put("float", 0.1f);
        m.put("fnan", Float.NaN);
        m.put("bigint", new BigInteger("18446744073709551615"));
        m.put("bigdec", new BigDecimal("1E+3"));
        m.put("bigdec2", new BigDecimal("0.0000001"));
        m.put("atomic", new AtomicLong(5));
        m.put("opt", Optional.of("x"));
        m.put("optL", OptionalLong.of(5));
        m.put("optE", OptionalInt.empty());
        m.put("optD", OptionalDouble.of(Double.NaN));
        m.put("char", 'c');
        m.put("path", Path.of("/a/b"));
        m.put("set", new LinkedHashSet<>(List.of(3, 1)));
        m.put(null, 1);
        assertEquals("{\"short\":-7,\"byte\":8,\"float\":0.1,\"fnan\":null,\"bigint\":18446744073709551615,\"bigdec\":1E+3,\"bigdec2\":1E-7,\"atomic\":5.0,\"opt\":\"x\",\"optL\":5,\"optE\":null,\"optD\":null,\"char\":\"c\",\"path\":\"/a/b\",\"set\":[3,1],\"null\":1}", JsonWriter.ASCII_LINE.write(m));
    }

    @Test
    void oneLineKeepsTextAsItIsAndAsciiOnlyEscapesIt() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("caf\u00e9", List.of("\ud83d\ude00", "\u007f\u0080", "\b\u001f"));
        assertEquals("{\"caf\u00e9\":[\"\ud83d\ude00\",\"\u007f\u0080\",\"\\b\\u001F\"]}", JsonWriter.LINE.write(m));
        assertEquals(JsonWriter.ASCII_LINE.write(m), JsonWriter.LINE.asciiOnly().write(m));
        assertEquals("{\n    \"caf\\u00E9\": [\n        \"\\uD83D\\uDE00\",\n        \"\u007f\\u0080\",\n        "
                + "\"\\b\\u001F\"\n    ]\n}", JsonWriter.INDENTED.asciiOnly().write(m));
    }

    @Test
    void aStreamedValueIsTheSameText() throws IOException {
        List<Object> big = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            big.add(Map.of("rank", i, "name", "r\u00e9" + i));
        }
        for (JsonWriter w : List.of(JsonWriter.LINE, JsonWriter.ASCII_LINE, JsonWriter.INDENTED)) {
            StringWriter out = new StringWriter();
            w.write(big, out);
            assertEquals(w.write(big), out.toString());
        }
    }

    @Test
    void javaArraysAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JsonWriter.ASCII_LINE.write(new long[] {1}));
        assertTrue(e.getMessage().contains("pass a List"), e.getMessage());
    }

    @Test
    void whatItWritesItReadsBack() throws Exception {
        List<Object> cases = cases();
        @SuppressWarnings("unchecked")
        Map<String, Object> m = new LinkedHashMap<>((Map<String, Object>) cases.get(0));
        m.remove("lone"); // unpaired surrogates are no UTF-8
        m.remove("nonfinite"); // written as null
        for (JsonWriter w : List.of(JsonWriter.LINE, JsonWriter.ASCII_LINE, JsonWriter.INDENTED)) {
            Object back = JsonReader.parse(w.write(m).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertEquals(JsonWriter.LINE.write(m), JsonWriter.LINE.write(back), "through " + w);
        }
    }
}
