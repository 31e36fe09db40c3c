package io.dgen4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.dgen4j.cli.JsonRead;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code bench --json}'s writer, with made-up results: one valid JSON array, exact bytes, no NaN. */
class BenchMainJsonTest {

    @Test
    void casesBecomeOneArrayOneObjectPerLine() {
        List<BenchMain.Case> cases = List.of(new BenchMain.Case("native", 1L << 30, 2, 12.34567),
                new BenchMain.Case("we\"ird\\name\u00e9", Long.MAX_VALUE, 1, Double.NaN),
                new BenchMain.Case("memset", 65536, 1, Double.POSITIVE_INFINITY));
        String json = BenchMain.json(cases);
        assertEquals("[\n  {\"name\":\"native\",\"bytes\":1073741824,\"threads\":2,\"gbps\":12.346},\n"
                + "  {\"name\":\"we\\\"ird\\\\name\\u00E9\",\"bytes\":9223372036854775807,\"threads\":1,\"gbps\":null},\n"
                + "  {\"name\":\"memset\",\"bytes\":65536,\"threads\":1,\"gbps\":null}\n]", json);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> back = (List<Map<String, Object>>) JsonRead.parse(json);
        assertEquals(3, back.size());
        assertEquals("we\"ird\\name\u00e9", back.get(1).get("name"));
        assertEquals(Long.MAX_VALUE, back.get(1).get("bytes"));
        assertEquals(12.346, back.get(0).get("gbps"));
        assertNull(back.get(2).get("gbps"));
        assertEquals("[]", BenchMain.json(List.of()));
    }
}
