package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.Where;
import io.dgen4j.cli.JsonRead;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.storage.EndpointStatistics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-endpoint table of save and load, and the endpoints in their JSON. */
class EndpointReportTest {
    private static final EndpointStatistics A = new EndpointStatistics("http://10.0.0.1:9000", 40, 200L << 20, 0, 0,
            3.25, 11.5, 0, "up", "");
    private static final EndpointStatistics B = new EndpointStatistics("http://gateway-b.example:9000", 12, 50L << 20,
            3, 1, 4.0, 250.125, 2, "down", "UploadPart of s3://b/k at http://gateway-b.example:9000: connection refused");

    private static SaveResult save(List<EndpointStatistics> endpoints) {
        return new SaveResult("streaming", new Where("aws s3://b/k at http://10.0.0.1:9000", "aws", false),
                new SaveResult.Plan(250L << 20, 5L << 20, 50, 4, 2), new SaveResult.Data("native", "7"),
                new SaveResult.Times(0.1, 1.0, 0.2, 1.3), new SaveResult.Memory(3, 20L << 20, 100L << 20), List.of(),
                endpoints);
    }

    private static LoadResult load(List<EndpointStatistics> endpoints) {
        return new LoadResult(new Where("aws s3://b/k", "aws", false), new LoadResult.Plan(250L << 20, 5L << 20, 2),
                new LoadResult.Verification(true, "native"), new LoadResult.Times(1.0, 0.5, 1.2),
                new LoadResult.Memory(3, 100L << 20), endpoints);
    }

    private static String text(java.util.function.Consumer<PrintWriter> report) {
        StringWriter s = new StringWriter();
        PrintWriter out = new PrintWriter(s);
        report.accept(out);
        out.flush();
        return s.toString();
    }

    @Test
    void aSaveOverSeveralEndpointsPrintsOneRowEach() {
        List<String> lines = text(out -> Reports.save(out, save(List.of(A, B)))).lines().toList();
        int at = lines.indexOf("  endpoints     2");
        assertTrue(at > 0, String.join("\n", lines));
        assertEquals(List.of("endpoint", "requests", "MiB", "errors", "p50", "ms", "p99", "ms", "down", "state", "last",
                "failure"), List.of(lines.get(at + 1).strip().split("\\s+")));
        assertEquals(List.of("http://10.0.0.1:9000", "40", "200.0", "0", "3.25", "11.50", "0", "up", "-"),
                List.of(lines.get(at + 2).strip().split("\\s+")));
        assertEquals("    http://gateway-b.example:9000        12       50.0       3      4.00    250.13     2 down     "
                + "UploadPart of s3://b/k at http://gateway-b.example:9000: connection refused", lines.get(at + 3));
        // the columns line up: every row as wide up to the state column
        assertEquals(lines.get(at + 1).indexOf("state"), lines.get(at + 2).indexOf("up"));
        assertEquals(lines.get(at + 1).indexOf("state"), lines.get(at + 3).indexOf("down"));
        assertTrue(lines.get(at + 4).startsWith("    down: times marked down"));
    }

    @Test
    void aLoadOverSeveralEndpointsPrintsTheTableToo() {
        String out = text(o -> Reports.load(o, load(List.of(A, B))));
        assertTrue(out.contains("  endpoints     2\n"), out);
        assertTrue(out.contains("    http://10.0.0.1:9000 "), out);
    }

    @Test
    void oneEndpointOrNonePrintsNoTable() {
        assertFalse(text(out -> Reports.save(out, save(List.of(A)))).contains("endpoint"));
        assertFalse(text(out -> Reports.save(out, save(List.of()))).contains("endpoint"));
        assertFalse(text(out -> Reports.load(out, load(List.of(A)))).contains("endpoint"));
    }

    @Test
    void theJsonCarriesEveryEndpoint() {
        Map<String, Object> m = JsonRead.object(JsonWriter.ASCII_LINE.write(save(List.of(A, B)).toMap()));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> list = (List<Map<String, Object>>) m.get("endpoints");
        assertEquals(2, list.size());
        assertEquals("http://gateway-b.example:9000", list.get(1).get("endpoint"));
        assertEquals(2L, ((Number) list.get(1).get("markedDown")).longValue());
        assertEquals(250.125, ((Number) list.get(1).get("p99Millis")).doubleValue());
        assertEquals("down", list.get(1).get("state"));
        Map<String, Object> l = JsonRead.object(JsonWriter.ASCII_LINE.write(load(List.of(A, B)).toMap()));
        assertEquals(2, ((List<?>) l.get("endpoints")).size());
    }
}
