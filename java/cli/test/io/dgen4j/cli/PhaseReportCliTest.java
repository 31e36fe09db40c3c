package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.cli.report.Reports;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The text reports of save, load, compare and quickstart list named phases that add up to their
 * total (a 1 GiB save once left 0.2 s of its 0.692 s in no row, and the old method's rows left out
 * its allocation), and define "throughput ratio" and "overhead" where they print them.
 */
class PhaseReportCliTest {
    private static final Pattern ROW = Pattern.compile("^    (\\S.*?)\\s+(\\d+\\.\\d{3}) s +\\d+\\.\\d %  \\S.*$");
    private static final Pattern TOTAL = Pattern.compile("^  total\\s+(\\d+\\.\\d{3}) s.*$");

    @TempDir
    Path dir;

    /** The phase rows of a save or load report: label to seconds, in order; checks they add up to the total. */
    private static List<String> addUp(String out) {
        List<String> lines = out.lines().toList();
        int from = lines.indexOf("  phases        one after another, adding up to the total:");
        assertTrue(from > 0, out);
        double sum = 0;
        int rows = 0;
        List<String> labels = new java.util.ArrayList<>();
        int i = from + 1;
        for (Matcher m; (m = ROW.matcher(lines.get(i))).matches(); i++) {
            labels.add(m.group(1));
            sum += Double.parseDouble(m.group(2));
            rows++;
        }
        Matcher t = TOTAL.matcher(lines.get(i));
        assertTrue(t.matches(), "the total follows the phases: " + out);
        // each row is rounded to 1 ms: the sum may be off by half of that per row and the total's half
        assertEquals(Double.parseDouble(t.group(1)), sum, 0.0005 * (rows + 1) + 1e-9, out);
        return labels;
    }

    @Test
    void saveAndLoadReportsListPhasesThatAddUpAndTheSaveDefinesItsRatios() {
        Path f = dir.resolve("p.bin");
        CliTest.Result s = CliTest.run("save", f.toString(), "--size", "24MiB", "--chunk", "4MiB");
        assertEquals(0, s.code(), s.err());
        assertEquals(List.of("start-up", "open", "first chunk", "I/O", "gen. stall", "drain", "fsync+rename"), addUp(s.out()));
        assertTrue(s.out().contains("throughput ratio "), s.out());
        assertTrue(s.out().lines().anyMatch(l -> l.equals("  " + Reports.LEGEND)), s.out());
        assertTrue(Reports.LEGEND.contains("throughput ratio = (I/O + fsync+rename) / total")
                && Reports.LEGEND.contains("overhead = % of the total outside the slower stage"), Reports.LEGEND);

        CliTest.Result old = CliTest.run("save", f.toString(), "--size", "24MiB", "--chunk", "4MiB", "--old-method");
        assertEquals(0, old.code(), old.err());
        assertEquals(List.of("start-up", "open", "allocation", "generation", "I/O", "release", "fsync+rename"),
                addUp(old.out()));

        for (boolean verify : new boolean[] {false, true}) {
            CliTest.Result l = verify ? CliTest.run("load", f.toString(), "--verify", "--chunk", "4MiB")
                    : CliTest.run("load", f.toString(), "--chunk", "4MiB");
            assertEquals(0, l.code(), l.err());
            assertEquals(List.of("open", "start-up", "I/O", "read stall", "drain", "release"), addUp(l.out()));
        }
    }

    @Test
    void saveHelpDefinesThroughputRatioAndOverhead() {
        CliTest.Result h = CliTest.run("save", "--help");
        assertEquals(0, h.code(), h.err());
        String text = h.out().replaceAll("\\s+", " ");
        assertTrue(text.contains("phases that add up to the total"), text);
        assertTrue(text.contains("Throughput ratio = (I/O + fsync+rename) / total"), text);
        assertTrue(text.contains("overhead = % of the total outside the slower stage"), text);
    }

    @Test
    void saveJsonKeepsItsKeysAndAddsThePhases() {
        CliTest.Result s = CliTest.run("save", dir.resolve("j.bin").toString(), "--size", "8MiB", "--chunk", "4MiB",
                "--json");
        assertEquals(0, s.code(), s.err());
        Map<String, Object> m = JsonRead.object(s.out().strip());
        for (String k : List.of("ioSeconds", "closeSeconds", "totalSeconds", "throughputRatio", "pipelineOverheadPercent",
                "generationSeconds", "bottleneck")) {
            assertTrue(m.containsKey(k), k + ": " + s.out());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> phases = (Map<String, Object>) m.get("phases");
        double sum = phases.values().stream().mapToDouble(v -> ((Number) v).doubleValue()).sum();
        assertEquals(((Number) m.get("totalSeconds")).doubleValue(), sum, 0.0005 * (phases.size() + 1), s.out());
    }

    @Test
    void compareRowsAddUpToEachMethodsTotalTheOldOnesAllocationIncluded() {
        CliTest.Result c = CliTest.run("compare", "--dir", dir.toString(), "--size", "24MiB", "--chunk", "4MiB");
        assertEquals(0, c.code(), c.err());
        List<String> lines = c.out().lines().toList();
        int from = lines.indexOf(lines.stream().filter(l -> l.startsWith("size ")).findFirst().orElseThrow());
        int to = lines.indexOf(lines.stream().filter(l -> l.startsWith("total s ")).findFirst().orElseThrow());
        double[] sum = new double[2];
        List<String> labels = new java.util.ArrayList<>();
        for (String row : lines.subList(from + 1, to)) {
            String[] cells = row.trim().split("\\s+");
            labels.add(row.substring(0, row.indexOf(" s ") + 2));
            for (int k = 0; k < 2; k++) {
                String v = cells[cells.length - 2 + k];
                sum[k] += v.equals("-") ? 0 : Double.parseDouble(v);
            }
        }
        assertTrue(labels.contains("allocation s") && labels.contains("first chunk s")
                && labels.contains("fsync+rename s"), labels.toString());
        String[] total = lines.get(to).trim().split("\\s+");
        int rows = to - from - 1;
        assertEquals(Double.parseDouble(total[2]), sum[0], 0.0005 * (rows + 1), "old: " + c.out());
        assertEquals(Double.parseDouble(total[3]), sum[1], 0.0005 * (rows + 1), "new: " + c.out());
        assertTrue(c.out().contains("the phase rows add up to each total"), c.out());
    }

    @Test
    void quickstartsStepsAddUpAndSayWhyStepOneAndThreeDiffer() {
        CliTest.Result q = CliTest.run("quickstart", "--dir", dir.toString(), "--size", "16MiB", "--chunk", "4MiB",
                "--no-s3");
        assertEquals(0, q.code(), q.err());
        List<String> phaseLines = q.out().lines().filter(l -> l.startsWith("   phases: ")).toList();
        assertEquals(2, phaseLines.size(), q.out());
        for (String l : phaseLines) {
            String[] sides = l.substring("   phases: ".length(), l.length() - " s".length()).split(" = ");
            double sum = 0;
            String[] parts = sides[0].split(" \\+ ");
            for (String p : parts) {
                sum += Double.parseDouble(p.substring(p.lastIndexOf(' ') + 1));
            }
            assertEquals(Double.parseDouble(sides[1]), sum, 0.0005 * (parts.length + 1), l);
        }
        assertTrue(q.out().contains("step 1 and step 3's new save are the same save: "), q.out());
    }
}
