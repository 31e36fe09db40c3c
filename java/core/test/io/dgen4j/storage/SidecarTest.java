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

/** The manifest sidecar's JSON: exact bytes, round-tripping through the reader, refusals. */
class SidecarTest {

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

    /** The bytes the sidecar's own writer wrote before it used {@link io.dgen4j.json.JsonWriter}. */
    @Test
    void writesTheBytesItAlwaysWrote() {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("dgen4j", "checkpoint");
        meta.put("formatVersion", 1L);
        meta.put("size", 1000003L);
        meta.put("seed", "18446744073709551615");
        meta.put("blockSize", 4096L);
        meta.put("dedup", 1.0);
        meta.put("compress", 2.5);
        meta.put("generator", "native");
        meta.put("chunkSize", 33554432L);
        meta.put("tiny", 1e-7);
        meta.put("int", 7);
        meta.put("caf\u00e9 \ud83d\ude00", "\u00fc\u65e5 \"q\" \\ \n\r\t\u007f /");
        meta.put("flag", false);
        Sidecar.Entry cur = new Sidecar.Entry(meta, OptionalLong.of(77), 1000003);
        String fields = "{\"dgen4j\":\"checkpoint\",\"formatVersion\":1,\"size\":1000003,\"seed\":\"18446744073709551615\","
                + "\"blockSize\":4096,\"dedup\":1.0,\"compress\":2.5,\"generator\":\"native\",\"chunkSize\":33554432,"
                + "\"tiny\":1.0E-7,\"int\":7,\"caf\u00e9 \ud83d\ude00\":\"\u00fc\u65e5 \\\"q\\\" \\\\ \\n\\r\\t\u007f /\","
                + "\"flag\":false,\"file\":{\"inode\":77,\"size\":1000003}";
        assertEquals(fields + ",\"pending\":true,\"previous\":{\"dgen4j\":\"checkpoint\",\"file\":{\"inode\":12,\"size\":5}}}\n",
                new String(Sidecar.write(cur, true, Optional.of(new Sidecar.Entry(Map.of("dgen4j", "checkpoint"),
                        OptionalLong.of(12), 5))), StandardCharsets.UTF_8));
        assertEquals(fields + "}\n", new String(Sidecar.write(cur, false, Optional.empty()), StandardCharsets.UTF_8));
        assertEquals("{\"size\":5}\n", new String(Sidecar.write(new Sidecar.Entry(Map.of("size", 5L), OptionalLong.empty(),
                -1), false, Optional.empty()), StandardCharsets.UTF_8));
        assertEquals("{\"file\":{\"inode\":3,\"size\":9}}\n", new String(Sidecar.write(new Sidecar.Entry(Map.of(),
                OptionalLong.of(3), 9), false, Optional.empty()), StandardCharsets.UTF_8));
        // the old writer's one malformed case: no fields before "pending" gave "{,"
        assertEquals("{\"pending\":true,\"previous\":{\"size\":5}}\n", new String(Sidecar.write(new Sidecar.Entry(
                Map.of(), OptionalLong.empty(), -1), true, Optional.of(new Sidecar.Entry(Map.of("size", 5L),
                OptionalLong.empty(), -1))), StandardCharsets.UTF_8));
    }

    @Test
    void refusesMetadataItCannotWriteOrReadBack() {
        for (String key : new String[] {"file", "pending", "previous"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sidecar.write(
                    new Sidecar.Entry(Map.of(key, 1L), OptionalLong.empty(), -1), false, Optional.empty()));
            assertEquals("metadata key " + key + " is the manifest's own", e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sidecar.write(
                new Sidecar.Entry(Map.of("x", List.of()), OptionalLong.empty(), -1), false, Optional.empty()));
        assertTrue(e.getMessage().startsWith("metadata value of x must be a String, Long, Integer, Double or Boolean"),
                e.getMessage());
    }
}
