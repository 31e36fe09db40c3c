package io.dgen4j.cli.report;

import io.dgen4j.checkpoint.ProcessMemory;
import io.dgen4j.checkpoint.SaveResult;
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
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Draws resident memory and write throughput over time for the old and new methods (PNG). */
public final class ComparePlot {
    private ComparePlot() {}

    /**
     * Draws the two charts into {@code png}, replacing it only once the image is complete: it is
     * rendered in memory first (without fonts the JDK fails there, with a {@code java.lang.Error}),
     * then written under a temporary name in the same directory and renamed into place. On failure
     * nothing is left behind.
     *
     * @throws IOException with a one-line reason when the plot could not be drawn or written
     */
    public static void write(Path png, SaveResult streaming, SaveResult old) throws IOException {
        byte[] image;
        try {
            image = render(streaming, old);
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

    /** The PNG bytes of the two charts, one above the other. */
    static byte[] render(SaveResult streaming, SaveResult old) throws IOException {
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
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        BitmapEncoder.saveBitmap(charts, 2, 1, bytes, BitmapEncoder.BitmapFormat.PNG);
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
