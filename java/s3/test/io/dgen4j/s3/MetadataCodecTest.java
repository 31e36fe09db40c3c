package io.dgen4j.s3;

import io.dgen4j.s3.internal.MetadataCodec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetadataCodecTest {
    @Test
    void scalarsRoundTripWithTheirTypesInCompactAscii() throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("dgen4j", "checkpoint");
        m.put("size", 17L);
        m.put("seed", "18446744073709551615");
        m.put("dedup", 2.0);
        m.put("compress", 1.5);
        m.put("ok", true);
        m.put("name", "grüße ✓");
        String json = MetadataCodec.encode(m);
        assertTrue(json.chars().allMatch(c -> c >= 0x20 && c < 0x7f), json);
        assertEquals("{\"dgen4j\":\"checkpoint\",\"size\":17,\"seed\":\"18446744073709551615\",\"dedup\":2.0,"
                + "\"compress\":1.5,\"ok\":true,\"name\":\"gr\\u00FC\\u00DFe \\u2713\"}", json);
        Map<String, Object> back = MetadataCodec.decode(Map.of("Dgen4j-Manifest", json), "s3://b/k");
        assertEquals(m, back);
        assertEquals(Double.class, back.get("dedup").getClass());
        assertEquals(Long.class, back.get("size").getClass());
        assertEquals(7L, MetadataCodec.decode(Map.of(MetadataCodec.KEY, MetadataCodec.encode(Map.of("i", 7))),
                "x").get("i"));
    }

    @Test
    void noEntryIsNoMetadata() throws IOException {
        assertEquals(Map.of(), MetadataCodec.decode(Map.of("other", "1"), "s3://b/k"));
    }

    @Test
    void anInvalidEntryIsAnIoExceptionNamingTheObject() {
        for (String bad : new String[] {"{", "[1]", "{\"a\":[1]}", "{\"a\":1} x", "{\"a\":1,\"a\":2}",
                "{\"a\":123456789012345678901234567890}"}) {
            IOException e = assertThrows(IOException.class,
                    () -> MetadataCodec.decode(Map.of(MetadataCodec.KEY, bad), "s3://bkt/key.bin"), bad);
            assertTrue(e.getMessage().contains("the dgen4j-manifest metadata of s3://bkt/key.bin"), e.getMessage());
        }
    }

    @Test
    void refusesNonScalarsAndMoreThanS3Takes() {
        assertThrows(IllegalArgumentException.class, () -> MetadataCodec.encode(Map.of("a", Double.NaN)));
        assertThrows(IllegalArgumentException.class, () -> MetadataCodec.encode(Map.of("a", new int[1])));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MetadataCodec.encode(Map.of("a", "x".repeat(2100))));
        assertTrue(e.getMessage().contains("S3 allows 2048"), e.getMessage());
    }
}
