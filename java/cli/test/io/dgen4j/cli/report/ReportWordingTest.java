package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.Where;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The report lines as people read them: sizes in the unit whose value is at least 1 and below 1024
 * (a decimal size once read {@code saved 62500.00 KiB}), the exact bytes beside them, and counts
 * singular for one ({@code 1 writers}, {@code aggregate: 1 ranks} before).
 */
class ReportWordingTest {

    private static String text(Consumer<PrintWriter> report) {
        StringWriter s = new StringWriter();
        PrintWriter out = new PrintWriter(s);
        report.accept(out);
        out.flush();
        return s.toString();
    }

    private static SaveResult save(long bytes, long chunks, int buffers, int writers, int peak) {
        return new SaveResult("streaming", new Where("/x/ckpt.bin", "file", false),
                new SaveResult.Plan(bytes, 32L << 20, chunks, buffers, writers), new SaveResult.Data("native", "7"),
                new SaveResult.Times(0.1, 0.2, 0.05, 0.4), new SaveResult.Memory(peak, 64L << 20, 150L << 20),
                List.of(), List.of());
    }

    @Test
    void aDecimalSizeIsSavedInMiBWithItsExactBytesAndOneWriterIsSingular() {
        List<String> lines = text(out -> Reports.save(out, save(64_000_000L, 2, 2, 1, 2))).lines().toList();
        assertEquals("saved 61.04 MiB (64000000 bytes) to /x/ckpt.bin", lines.get(0));
        assertEquals("  pipeline      2 chunks of 32.00 MiB, 2 buffers, 1 writer in flight, peak 2 buffers in use",
                lines.get(3));
    }

    @Test
    void countsOfOneAreSingularAndOthersPlural() {
        List<String> lines = text(out -> Reports.save(out, save(32L << 20, 1, 1, 2, 1))).lines().toList();
        assertEquals("saved 32.00 MiB (33554432 bytes) to /x/ckpt.bin", lines.get(0));
        assertEquals("  pipeline      1 chunk of 32.00 MiB, 1 buffer, 2 writers in flight, peak 1 buffer in use",
                lines.get(3));
        assertEquals("1 rank", Reports.count(1, "rank"));
        assertEquals("0 ranks", Reports.count(0, "rank"));
        assertEquals("3 threads", Reports.count(3, "thread"));
    }

    @Test
    void aLoadByOneReaderSaysReader() {
        LoadResult r = new LoadResult(new Where("/x/ckpt.bin", "file", false),
                new LoadResult.Plan(1L << 30, 32L << 20, 1), new LoadResult.Verification(false, "native"),
                new LoadResult.Times(0.5, 0, 0.6), new LoadResult.Memory(2, 150L << 20), List.of());
        List<String> lines = text(out -> Reports.load(out, r)).lines().toList();
        assertEquals("loaded 1.00 GiB (1073741824 bytes) from /x/ckpt.bin", lines.get(0));
        assertEquals("  read             0.500 s     2.15 GB/s (reads in flight, 1 reader)", lines.get(2));
    }

    @Test
    void theAggregateOfOneRankSaysRank() {
        Aggregate a = new Aggregate(new long[] {1L << 30}, new double[] {1}, new boolean[] {true});
        assertEquals("aggregate: 1 rank saved 1.00 GiB (1073741824 bytes) in 1.000 s (slowest rank 0): 1.074 GB/s; "
                + "per rank min 1.074 / median 1.074 / max 1.074 GB/s", a.line("saved"));
    }
}
