package io.dgen4j.cli;

import io.dgen4j.checkpoint.ProcessMemory;
import io.dgen4j.checkpoint.SaveResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Draws resident memory and write throughput over time for the old and new methods (PNG). */
final class ComparePlot {
    private ComparePlot() {}

    static void write(Path png, SaveResult streaming, SaveResult old) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart memory = new XYChartBuilder().width(900).height(380).title("Resident memory of the process")
                .xAxisTitle("seconds").yAxisTitle("RSS (MiB)").build();
        XYChart rate = new XYChartBuilder().width(900).height(380).title("Write throughput")
                .xAxisTitle("seconds").yAxisTitle("MB/s").build();
        for (SaveResult r : List.of(old, streaming)) {
            String name = r.method().equals("streaming") ? "new: streaming" : "old: preallocate";
            List<ProcessMemory.Sample> s = r.samples();
            if (s.size() < 2) {
                continue;
            }
            List<Double> t = new ArrayList<>();
            List<Double> rss = new ArrayList<>();
            List<Double> mbps = new ArrayList<>();
            for (int i = 1; i < s.size(); i++) {
                ProcessMemory.Sample a = s.get(i - 1);
                ProcessMemory.Sample b = s.get(i);
                t.add(b.seconds());
                rss.add(b.rssBytes() / 1048576.0);
                double dt = b.seconds() - a.seconds();
                mbps.add(dt > 0 ? (b.bytesDone() - a.bytesDone()) / dt / 1e6 : 0);
            }
            XYSeries m = memory.addSeries(name, t, rss);
            m.setMarker(SeriesMarkers.NONE);
            XYSeries w = rate.addSeries(name, t, mbps);
            w.setMarker(SeriesMarkers.NONE);
        }
        List<Chart<?, ?>> charts = List.of(memory, rate);
        String file = png.toString();
        String base = file.toLowerCase().endsWith(".png") ? file.substring(0, file.length() - 4) : file;
        BitmapEncoder.saveBitmap(charts, 2, 1, base, BitmapEncoder.BitmapFormat.PNG);
    }
}
