package io.dgen4j.cli.report;

import io.dgen4j.checkpoint.ProcessMemory;
import io.dgen4j.checkpoint.SaveResult;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Draws resident memory and write throughput over time for the old and new methods (PNG), titled with the run and machine. */
public final class ComparePlot {
    private ComparePlot() {}

    static final Color OLD = new Color(0x4C78A8);
    static final Color NEW = new Color(0xF58518);

    /**
     * Draws the two charts into {@code png}, replacing it only once the image is complete: it is
     * rendered in memory first (without fonts the JDK fails there, with a {@code java.lang.Error}),
     * then written under a temporary name in the same directory and renamed into place. On failure
     * nothing is left behind.
     *
     * @throws IOException with a one-line reason when the plot could not be drawn or written
     */
    public static void write(Path png, SaveResult streaming, SaveResult old, PlotTitles title) throws IOException {
        byte[] image;
        try {
            image = render(charts(streaming, old, title));
        } catch (RuntimeException | Error e) {
            // AWT without fonts throws java.lang.Error("Probable fatal error: No physical fonts found.")
            // or a LinkageError (no libfontmanager/libfreetype); the VM's own failures stay fatal.
            if (e instanceof OutOfMemoryError || e instanceof StackOverflowError) {
                throw e;
            }
            throw new IOException("cannot draw the plot " + png + ": " + reason(e) + (fontsMissing(e)
                    ? " (the JDK found no fonts to draw text with: install some, e.g. apt-get install fontconfig "
                    + "fonts-dejavu-core)" : ""), e);
        }
        writeAtomically(png, image);
    }

    /**
     * The two charts, one above the other: resident memory, and write throughput both instantaneous
     * (solid) and cumulative (dashed). The saves sample RSS and the bytes written every 10 ms; the
     * bytes written grow a chunk at a time, so the instantaneous rate is taken per chunk: the bytes
     * between two samples where they grew, over the time between them.
     */
    static List<XYChart> charts(SaveResult streaming, SaveResult old, PlotTitles title) {
        XYChart memory = new XYChartBuilder().width(1000).height(400).title("Resident memory of the process, "
                + title.run()).xAxisTitle("seconds since the save started (sampled every 10 ms)")
                .yAxisTitle("RSS (MiB), instantaneous").build();
        XYChart rate = new XYChartBuilder().width(1000).height(400).title("Write throughput on " + title.machine()
                + ": solid instantaneous (per chunk), dashed cumulative").xAxisTitle("seconds since the save started")
                .yAxisTitle("MB/s (10^6 bytes/s)").build();
        for (SaveResult r : List.of(old, streaming)) {
            boolean isNew = r.method().equals("streaming");
            String name = isNew ? "new: streaming" : "old: preallocate";
            Color colour = isNew ? NEW : OLD;
            List<ProcessMemory.Sample> s = r.samples();
            if (s.size() < 2) {
                continue;
            }
            List<Double> t = new ArrayList<>();
            List<Double> rss = new ArrayList<>();
            for (ProcessMemory.Sample x : s) {
                t.add(x.seconds());
                rss.add(x.rssBytes() / 1048576.0);
            }
            XYSeries m = memory.addSeries(name, t, rss);
            m.setMarker(SeriesMarkers.NONE);
            m.setLineColor(colour);
            List<Double> ti = new ArrayList<>();
            List<Double> instant = new ArrayList<>();
            List<Double> tc = new ArrayList<>();
            List<Double> cumulative = new ArrayList<>();
            ProcessMemory.Sample grew = null;
            ProcessMemory.Sample before = s.getFirst();
            for (ProcessMemory.Sample x : s) {
                if (x.bytesDone() > before.bytesDone()) {
                    if (grew != null && x.seconds() > grew.seconds()) {
                        ti.add(x.seconds());
                        instant.add((x.bytesDone() - grew.bytesDone()) / (x.seconds() - grew.seconds()) / 1e6);
                    }
                    grew = x;
                }
                before = x;
                if (x.seconds() > 0) {
                    tc.add(x.seconds());
                    cumulative.add(x.bytesDone() / x.seconds() / 1e6);
                }
            }
            if (!ti.isEmpty()) {
                XYSeries i = rate.addSeries(name + ", instantaneous", ti, instant);
                i.setMarker(SeriesMarkers.CIRCLE); // one chunk after the first is one point
                i.setMarkerColor(colour);
                i.setLineColor(colour);
            }
            if (!tc.isEmpty()) {
                XYSeries c = rate.addSeries(name + ", cumulative", tc, cumulative);
                c.setMarker(SeriesMarkers.NONE);
                c.setLineStyle(SeriesLines.DASH_DASH);
                c.setLineColor(colour);
            }
        }
        return List.of(memory, rate);
    }

    /** The PNG bytes of the charts, one above the other. */
    static byte[] render(List<XYChart> charts) throws IOException {
        List<Chart<?, ?>> all = new ArrayList<>(charts);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        BitmapEncoder.saveBitmap(all, all.size(), 1, bytes, BitmapEncoder.BitmapFormat.PNG);
        return bytes.toByteArray();
    }

    /** Writes {@code bytes} to a temporary sibling of {@code file}, then renames it over {@code file}. */
    static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path abs = file.toAbsolutePath();
        Path dir = abs.getParent();
        Path tmp = dir.resolve("." + abs.getFileName() + "." + Long.toHexString(System.nanoTime()) + ".tmp");
        boolean done = false;
        try {
            Files.write(tmp, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            try {
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
            }
            done = true;
        } catch (NoSuchFileException e) {
            throw new IOException("cannot write the plot " + file + ": directory " + dir + " does not exist", e);
        } catch (IOException e) {
            throw new IOException("cannot write the plot " + file + ": " + reason(e), e);
        } finally {
            if (!done) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /** Whether the failure came from the JDK's font machinery (no fonts, or no font libraries). */
    static boolean fontsMissing(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("font")) {
                return true;
            }
            for (StackTraceElement f : t.getStackTrace()) {
                if (f.getClassName().startsWith("sun.font.")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String reason(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getName() : m;
    }
}
