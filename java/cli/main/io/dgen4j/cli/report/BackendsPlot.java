package io.dgen4j.cli.report;

import io.dgen4j.cli.s3.S3Backends;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;

/** Draws {@code dgen4j backends}' bar charts: save MB/s and client CPU seconds per GiB per backend (PNG). */
public final class BackendsPlot {
    private BackendsPlot() {}

    /**
     * Draws the charts into {@code png} (rendered in memory, then written under a temporary name and
     * renamed, as {@link ComparePlot} does); returns null, or the one-line reason it was not drawn (no
     * fonts, say): the results are printed either way.
     */
    public static String draw(Path png, List<S3Backends.Run> runs) {
        byte[] image;
        try {
            image = render(runs);
        } catch (RuntimeException | Error | IOException e) {
            if (e instanceof OutOfMemoryError || e instanceof StackOverflowError) {
                throw (Error) e;
            }
            String m = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getName() : e.getMessage();
            return "cannot draw the plot " + png + ": " + m + (ComparePlot.fontsMissing(e)
                    ? " (the JDK found no fonts to draw text with: install some, e.g. apt-get install fontconfig "
                    + "fonts-dejavu-core)" : "");
        }
        try {
            ComparePlot.writeAtomically(png, image);
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    static byte[] render(List<S3Backends.Run> runs) throws IOException {
        List<String> names = new ArrayList<>();
        List<Double> mbps = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        for (S3Backends.Run r : runs) {
            if (r.ok()) {
                names.add(r.backend());
                mbps.add(r.saveMBps());
                double c = r.cpuSecondsPerGiB();
                cpu.add(Double.isFinite(c) ? c : 0);
            }
        }
        if (names.isEmpty()) {
            throw new IOException("no backend completed a save");
        }
        CategoryChart rate = new CategoryChartBuilder().width(700).height(380).title("Streaming save throughput")
                .xAxisTitle("backend").yAxisTitle("MB/s").build();
        rate.getStyler().setLegendVisible(false);
        rate.addSeries("MB/s", names, mbps);
        CategoryChart cost = new CategoryChartBuilder().width(700).height(380).title("Client CPU per GiB saved")
                .xAxisTitle("backend").yAxisTitle("CPU seconds / GiB").build();
        cost.getStyler().setLegendVisible(false);
        cost.addSeries("CPU s/GiB", names, cpu);
        List<Chart<?, ?>> charts = List.of(rate, cost);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        BitmapEncoder.saveBitmap(charts, 2, 1, bytes, BitmapEncoder.BitmapFormat.PNG);
        return bytes.toByteArray();
    }
}
