package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** save, load, compare and quickstart through the command line, in-process. */
class CheckpointCliTest {
    @TempDir
    Path dir;

    @Test
    void saveThenVerifiedLoadThenCorruptionIsReported() throws Exception {
        Path f = dir.resolve("ck.bin");
        CliTest.Result s = CliTest.run("save", f.toString(), "--size", "5MiB", "--chunk", "1MiB", "--seed", "3",
                "--compress", "2", "--json");
        assertEquals(0, s.code(), s.err());
        assertTrue(s.out().startsWith("{\"method\":\"streaming\""), s.out());
        assertTrue(s.out().contains("\"seed\":\"3\""), s.out());
        assertTrue(s.out().contains("\"directIo\":true"), s.out());
        assertEquals(5L << 20, Files.size(f));

        CliTest.Result l = CliTest.run("load", f.toString(), "--verify", "--chunk", "1MiB");
        assertEquals(0, l.code(), l.err());
        assertTrue(l.out().contains("every byte verified"), l.out());

        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.seek(3_000_000);
            int b = raf.read();
            raf.seek(3_000_000);
            raf.write(b ^ 1);
        }
        CliTest.Result bad = CliTest.run("load", f.toString(), "--verify", "--chunk", "1MiB");
        assertEquals(4, bad.code());
        assertTrue(bad.err().contains("first mismatch at byte offset 3000000"), bad.err());
    }

    @Test
    void compareMeasuresBothMethodsAndDrawsThePlot() throws Exception {
        Path png = dir.resolve("compare.png");
        CliTest.Result c = CliTest.run("compare", "--dir", dir.toString(), "--size", "24MiB", "--chunk", "4MiB",
                "--plot", png.toString());
        assertEquals(0, c.code(), c.err());
        assertTrue(c.out().contains("old (prealloc)"), c.out());
        assertTrue(c.out().contains("memory reduction: "), c.out());
        assertTrue(Files.size(png) > 10_000, "plot written");
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(1, s.count(), "only the plot is left");
        }
    }

    @Test
    void compareRoundsReportMediansRangesAndTies() throws Exception {
        CliTest.Result text = CliTest.run("compare", "--dir", dir.toString(), "--size", "16MiB", "--chunk", "4MiB",
                "--rounds", "2", "--no-progress");
        assertEquals(0, text.code(), text.err());
        // every figure: median (min-max)
        assertTrue(java.util.regex.Pattern.compile("(?m)^total s +(\\d+\\.\\d{3}) \\((\\d+\\.\\d{3})-(\\d+\\.\\d{3})\\) "
                + "+\\d+\\.\\d{3} \\(\\d+\\.\\d{3}-\\d+\\.\\d{3}\\)$").matcher(text.out()).find(), text.out());
        assertTrue(text.out().contains("2 rounds, interleaved (new, old, new, old, ...): each figure is the median "
                + "(min-max)"), text.out());
        assertTrue(text.out().contains("(tie): the two methods' ranges overlap"), text.out());
        CliTest.Result json = CliTest.run("compare", "--dir", dir.toString(), "--size", "16MiB", "--chunk", "4MiB",
                "--rounds", "2", "--no-progress", "--json");
        assertEquals(0, json.code(), json.err());
        Map<String, Object> m = JsonRead.object(json.out());
        assertEquals(2L, ((Number) m.get("rounds")).longValue());
        for (String method : List.of("streaming", "preallocated")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> one = (Map<String, Object>) m.get(method);
            @SuppressWarnings("unchecked")
            Map<String, Object> spread = (Map<String, Object>) ((Map<String, Object>) m.get(method + "Spread"))
                    .get("totalSeconds");
            double median = ((Number) spread.get("median")).doubleValue();
            double min = ((Number) spread.get("min")).doubleValue();
            double max = ((Number) spread.get("max")).doubleValue();
            assertTrue(min <= median && median <= max && min > 0, spread.toString());
            assertEquals((min + max) / 2, median, 1e-9, "the median of two rounds");
            assertEquals(median, ((Number) one.get("totalSeconds")).doubleValue(), 1e-9, "the old key holds the median");
            assertEquals(16L << 20, ((Number) one.get("totalBytes")).longValue());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> ties = (Map<String, Object>) m.get("ties");
        assertTrue(ties.get("ioGBps") instanceof Boolean && ties.get("totalGBps") instanceof Boolean, json.out());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count(), "no checkpoint of any round is left");
        }
        CliTest.Result zero = CliTest.run("compare", "--dir", dir.toString(), "--rounds", "0");
        assertEquals(2, zero.code(), zero.err());
        assertTrue(zero.err().contains("--rounds must be 1 to 1000, not 0"), zero.err());
    }

    @Test
    void quickstartRunsTheMainJob() {
        CliTest.Result q = CliTest.run("quickstart", "--dir", dir.toString(), "--size", "16MiB", "--chunk", "4MiB");
        assertEquals(0, q.code(), q.err());
        assertTrue(q.out().contains("1. streaming save"), q.out());
        assertTrue(q.out().contains("2. verified load"), q.out());
        assertTrue(q.out().contains("3. old vs new"), q.out());
        assertFalse(dir.toFile().list().length > 0, "quickstart left files in " + dir);
    }

    @Test
    void badInputGetsOneClearLine() {
        CliTest.Result chunk = CliTest.run("save", dir.resolve("x").toString(), "--size", "1MiB", "--chunk", "1000");
        assertEquals(2, chunk.code());
        assertTrue(chunk.err().contains("chunk size must be a positive multiple of 4096 bytes, got 1000"), chunk.err());
        CliTest.Result zero = CliTest.run("save", dir.resolve("x").toString(), "--size", "0");
        assertTrue(zero.err().contains("checkpoint size must be > 0 bytes"), zero.err());
        CliTest.Result scheme = CliTest.run("save", "s4://bucket/x", "--size", "1MiB");
        assertTrue(scheme.err().contains("no storage backend for 's4://'"), scheme.err());
        CliTest.Result gen = CliTest.run("save", dir.resolve("x").toString(), "--size", "1MiB", "--generator", "numpy");
        assertTrue(gen.err().contains("'numpy' is not a generator"), gen.err());
    }
}
