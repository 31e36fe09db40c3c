package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.ProcessMemory;
import io.dgen4j.checkpoint.SaveResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.gen.SystemInfo;
import io.dgen4j.storage.StorageTarget;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

/** What the two plots say: titles with the run and the machine, axes that say what they show, spread bars. */
class PlotsTest {
    @TempDir
    Path dir;

    private static final PlotTitles TITLES = new PlotTitles("8.00 MiB to http://127.0.0.1:9 (local s3proxy)",
            "Some CPU, 2 CPUs");

    @Test
    void titlesNameTheSizeTheTargetItsKindAndTheMachine() {
        PlotTitles t = PlotTitles.of(8L << 20, dir.toString(), PlotTitles.fileSystem(dir), new Environment(Map.of(), false));
        assertTrue(t.run().startsWith("8.00 MiB to " + dir + " ("), t.run());
        assertTrue(t.run().endsWith(" filesystem)") && !t.run().contains("unknown"), t.run());
        assertTrue(t.machine().startsWith(SystemInfo.cpuModel() + ", "), t.machine());
        assertTrue(t.machine().matches(".*, \\d+ CPUs?"), t.machine());
    }

    @Test
    void backendsPlotDrawsMinMaxBarsOnlyOverMoreThanOneRound() throws IOException {
        BackendsPlot.Bar spread = new BackendsPlot.Bar("aws", Spread.of(50, 100, 75));
        BackendsPlot.Bar one = new BackendsPlot.Bar("aws", Spread.of(75));
        BufferedImage rounds = draw(spread);
        BufferedImage single = draw(one);
        assertEquals(2 * BackendsPlot.PANEL_WIDTH, rounds.getWidth());
        assertEquals(BackendsPlot.HEADER + 2 * BackendsPlot.PANEL_HEIGHT, rounds.getHeight());
        // the first panel's first bar: the blue bar up to the median, the black min-max line above it to 100
        BackendsPlot.Panel p = new BackendsPlot.Panel("t", "y", List.of(spread, OTHER));
        int[] a = BackendsPlot.area(0, BackendsPlot.HEADER);
        int cx = BackendsPlot.barCentre(a[0], a[2], 0, 2);
        double top = BackendsPlot.top(p);
        int median = a[3] - (int) Math.round((a[3] - a[1]) * 75 / top);
        int max = a[3] - (int) Math.round((a[3] - a[1]) * 100 / top);
        int between = (median + max) / 2;
        assertEquals(BackendsPlot.BAR.getRGB(), rounds.getRGB(cx, (median + a[3]) / 2), "the bar");
        assertTrue(dark(rounds.getRGB(cx, between)), "a min-max line from the median up to the max");
        assertTrue(dark(rounds.getRGB(cx - 5, max)), "a cap at the max");
        assertEquals(Color.WHITE.getRGB(), single.getRGB(cx, between), "one round: no min-max line");
        assertEquals(BackendsPlot.BAR.getRGB(), single.getRGB(cx, (median + a[3]) / 2), "the bar");
    }

    /** The second bar of every panel: the same axis (0 to 200) in both images. */
    private static final BackendsPlot.Bar OTHER = new BackendsPlot.Bar("crt", Spread.of(60, 100, 80));

    private static BufferedImage draw(BackendsPlot.Bar bar) throws IOException {
        List<BackendsPlot.Panel> panels = new ArrayList<>();
        for (String name : List.of("Save throughput", "Load throughput", "CPU", "RSS")) {
            panels.add(new BackendsPlot.Panel(name, "MB/s", List.of(bar, OTHER)));
        }
        return ImageIO.read(new ByteArrayInputStream(BackendsPlot.render(panels, TITLES)));
    }

    private static boolean dark(int rgb) {
        Color c = new Color(rgb);
        return c.getRed() < 90 && c.getGreen() < 90 && c.getBlue() < 90;
    }

    @Test
    void comparePlotSamplesEvery10msAndLabelsInstantaneousAndCumulativeThroughput() throws IOException {
        StreamingCheckpoint ckpt = StreamingCheckpoint.builder().chunkSize(1 << 20).buffers(3).writersInFlight(2).build();
        SaveResult streaming = ckpt.save(StorageTarget.parse(dir.resolve("new.bin").toString()), 96L << 20);
        SaveResult old = ckpt.savePreallocated(StorageTarget.parse(dir.resolve("old.bin").toString()), 96L << 20);
        List<Double> gaps = new ArrayList<>();
        List<ProcessMemory.Sample> s = streaming.samples();
        for (int i = 1; i < s.size(); i++) {
            gaps.add(s.get(i).seconds() - s.get(i - 1).seconds());
        }
        gaps.sort(null);
        assertFalse(gaps.isEmpty(), "samples: " + s);
        assertTrue(gaps.get(gaps.size() / 2) < 0.05, "sampled every 10 ms (median gap under 50 ms): " + gaps);

        List<XYChart> charts = ComparePlot.charts(streaming, old, TITLES);
        assertEquals(2, charts.size());
        XYChart memory = charts.get(0);
        XYChart rate = charts.get(1);
        assertTrue(memory.getTitle().contains(TITLES.run()), memory.getTitle());
        assertTrue(rate.getTitle().contains(TITLES.machine()), rate.getTitle());
        assertTrue(rate.getTitle().contains("instantaneous (per chunk)") && rate.getTitle().contains("cumulative"),
                rate.getTitle());
        assertTrue(memory.getXAxisTitle().contains("every 10 ms"), memory.getXAxisTitle());
        assertTrue(memory.getYAxisTitle().contains("instantaneous"), memory.getYAxisTitle());
        assertTrue(rate.getYAxisTitle().startsWith("MB/s"), rate.getYAxisTitle());
        assertEquals(List.of("old: preallocate", "new: streaming"), List.copyOf(memory.getSeriesMap().keySet()));
        for (String name : List.of("old: preallocate", "new: streaming")) {
            assertTrue(rate.getSeriesMap().containsKey(name + ", cumulative"), rate.getSeriesMap().keySet().toString());
            assertTrue(rate.getSeriesMap().containsKey(name + ", instantaneous"),
                    "96 chunks: more than one per sample " + rate.getSeriesMap().keySet());
        }
        double[] cumulative = rate.getSeriesMap().get("new: streaming, cumulative").getYData();
        assertTrue(cumulative[cumulative.length - 1] > 0, "every byte written by the last sample");
        byte[] png = ComparePlot.render(charts);
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(png));
        assertEquals(1000, img.getWidth());
        assertEquals(800, img.getHeight());
    }
}
