package io.dgen4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bench}'s text summary, with made-up results: the baselines named for what they are
 * ({@code MemorySegment.fill} was once called the memory-bandwidth limit while the native core's
 * non-temporal stores ran 3x faster), the machine, and every missed goal marked as missed.
 */
class BenchMainSummaryTest {
    private static final long GIB = 1L << 30;

    private static List<BenchMain.Case> cases(double nativeGbps, double verifyGbps) {
        return List.of(new BenchMain.Case("native", GIB, 1, nativeGbps),
                new BenchMain.Case("native-verify", GIB, 1, verifyGbps),
                new BenchMain.Case("twin-vector", GIB, 1, 20.0),
                new BenchMain.Case("memset", GIB, 1, 10.0));
    }

    private static String line(String summary, String start) {
        return summary.lines().filter(l -> l.trim().startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting '" + start + "' in:\n" + summary));
    }

    @Test
    void theBaselinesAreNamedForWhatTheyAreAndTheMachineIsPrinted() {
        String s = BenchMain.summary(cases(30.0, 29.0), null, "Some CPU 9000, 2 of 2 online CPUs usable");
        assertTrue(s.contains("machine: Some CPU 9000, 2 of 2 online CPUs usable\n"), s);
        assertTrue(line(s, "fill ").contains("MemorySegment.fill"), s);
        assertTrue(line(s, "native ").contains("non-temporal stores"), s);
        assertFalse(s.contains("the memory-bandwidth limit"), s);
        assertTrue(line(s, "fill ").contains("not the memory's bandwidth limit"), s);
        // the table's column says fill, not memset; the ratio names it the same way
        assertTrue(line(s, "size").matches(".*native +native-verify +twin-vector +fill$"), line(s, "size"));
        assertTrue(line(s, "native / fill").contains("3.00"), s);
    }

    @Test
    void goalsMetSayOkAndTheClosingLineSaysAllMet() {
        String s = BenchMain.summary(cases(30.0, 29.0), null, null);
        assertTrue(line(s, "native-verify / native").endsWith("[>= 0.90]  ok"), s);
        assertTrue(line(s, "twin-vector / native").endsWith("[>= 0.50]  ok"), s);
        assertEquals("goals: all met", s.lines().reduce((a, b) -> b).orElseThrow());
        assertFalse(s.contains("machine:"), s);
    }

    @Test
    void aMissedGoalIsMarkedMissedAndCounted() {
        // verify at 0.50 of native (goal >= 0.90), native at 0.80 of fill (goal >= 0.90)
        String s = BenchMain.summary(cases(8.0, 4.0), null, null);
        assertTrue(line(s, "native-verify / native").endsWith("0.50     [>= 0.90]  MISSED"), s);
        assertTrue(line(s, "native / fill").endsWith("0.80     [>= 0.90]  MISSED"), s);
        assertTrue(line(s, "twin-vector / native").endsWith("[>= 0.50]  ok"), s);
        assertEquals("goals: 2 MISSED (marked above)", s.lines().reduce((a, b) -> b).orElseThrow());
    }

    @Test
    void verdictsReadTheGoal() {
        assertEquals("ok", BenchMain.verdict(0.9, ">= 0.90"));
        assertEquals(BenchMain.MISSED, BenchMain.verdict(0.899, ">= 0.90"));
        assertEquals("ok", BenchMain.verdict(9.5, "<= 10"));
        assertEquals(BenchMain.MISSED, BenchMain.verdict(10.5, "<= 10"));
        assertEquals("", BenchMain.verdict(1.0, "-"));
    }

    @Test
    void theMachineLineNamesTheCpuModelFromProcCpuinfo() throws IOException {
        String model = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        String m = BenchMain.machine();
        assertTrue(m.startsWith(model + ", "), m);
        assertTrue(m.matches(".*, \\d+ of \\d+ online CPUs usable, kernel .*; features .+"), m);
    }
}
