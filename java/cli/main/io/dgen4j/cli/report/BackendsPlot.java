package io.dgen4j.cli.report;

import io.dgen4j.cli.s3.S3Backends;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import javax.imageio.ImageIO;

/**
 * Draws {@code dgen4j backends}' bar charts (PNG): per backend, save MB/s, load MB/s, client CPU
 * seconds per GiB saved and peak RSS, each bar the median over the rounds with a min-max bar over
 * it when there was more than one round; the title says the size, the endpoint and the machine.
 * Drawn with Java2D: the chart library's error bars are symmetric, a min-max range is not.
 */
public final class BackendsPlot {
    private BackendsPlot() {}

    /** One bar: a backend's figure over the rounds. */
    record Bar(String backend, Spread value) {}

    /** One chart: its title, the unit of its y axis and a bar per backend. */
    record Panel(String title, String yAxis, List<Bar> bars) {}

    static final int PANEL_WIDTH = 520;
    static final int PANEL_HEIGHT = 340;
    static final int HEADER = 56;
    static final Color BAR = new Color(0x4C78A8);
    static final Color WHISKER = Color.BLACK;

    /**
     * Draws the charts into {@code png} (rendered in memory, then written under a temporary name and
     * renamed, as {@link ComparePlot} does); returns null, or the one-line reason it was not drawn (no
     * fonts, say): the results are printed either way.
     */
    public static String draw(Path png, List<S3Backends.Backend> backends, PlotTitles title) {
        byte[] image;
        try {
            image = render(panels(backends), title);
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

    /** The four charts of the backends that completed every round. */
    static List<Panel> panels(List<S3Backends.Backend> backends) throws IOException {
        List<S3Backends.Backend> ok = backends.stream().filter(S3Backends.Backend::ok).toList();
        if (ok.isEmpty()) {
            throw new IOException("no backend completed a save");
        }
        Function<Function<S3Backends.Backend, Spread>, List<Bar>> bars =
                f -> ok.stream().map(b -> new Bar(b.backend(), f.apply(b))).toList();
        return List.of(
                new Panel("Save throughput (whole save)", "MB/s (10^6 bytes/s)", bars.apply(S3Backends.Backend::saveMBps)),
                new Panel("Verified load throughput (whole load)", "MB/s (10^6 bytes/s)",
                        bars.apply(S3Backends.Backend::loadMBps)),
                new Panel("Client CPU per GiB saved", "CPU seconds / GiB", bars.apply(b -> finite(b.cpuSecondsPerGiB()))),
                new Panel("Peak resident memory during the save", "RSS (MiB)", bars.apply(b -> scaled(
                        b.peakRssBytes(), 1.0 / 1048576))));
    }

    private static Spread finite(Spread s) {
        return Double.isFinite(s.median()) ? s : new Spread(0, 0, 0, s.rounds());
    }

    private static Spread scaled(Spread s, double k) {
        return new Spread(s.median() * k, s.min() * k, s.max() * k, s.rounds());
    }

    /** The PNG bytes: the title lines above the four charts, two by two. */
    static byte[] render(List<Panel> panels, PlotTitles title) throws IOException {
        int cols = 2;
        int rows = (panels.size() + cols - 1) / cols;
        BufferedImage img = new BufferedImage(cols * PANEL_WIDTH, HEADER + rows * PANEL_HEIGHT,
                BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, img.getWidth(), img.getHeight());
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            centred(g, "S3 backends: " + title.run(), img.getWidth() / 2, 22);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            int rounds = panels.getFirst().bars().getFirst().value().rounds();
            centred(g, title.machine() + "; " + (rounds > 1 ? "bars: median of " + rounds
                    + " rounds, black lines: min-max" : "one round, no spread"), img.getWidth() / 2, 42);
            for (int i = 0; i < panels.size(); i++) {
                panel(g, panels.get(i), (i % cols) * PANEL_WIDTH, HEADER + (i / cols) * PANEL_HEIGHT);
            }
        } finally {
            g.dispose();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        if (!ImageIO.write(img, "png", bytes)) {
            throw new IOException("no PNG writer in this JDK");
        }
        return bytes.toByteArray();
    }

    /** The plot area of a panel at (x, y): left, top, right and bottom edges. */
    static int[] area(int x, int y) {
        return new int[] {x + 70, y + 30, x + PANEL_WIDTH - 20, y + PANEL_HEIGHT - 40};
    }

    /** The x of bar {@code i}'s centre of {@code n} in a plot area from {@code left} to {@code right}. */
    static int barCentre(int left, int right, int i, int n) {
        double slot = (right - left) / (double) n;
        return (int) Math.round(left + slot * (i + 0.5));
    }

    /** The highest value a panel's axis shows: the largest max, rounded up to a 1, 2 or 5 step. */
    static double top(Panel p) {
        double max = p.bars().stream().mapToDouble(b -> Math.max(b.value().max(), b.value().median()))
                .filter(Double::isFinite).max().orElse(1);
        if (max <= 0) {
            return 1;
        }
        double step = Math.pow(10, Math.floor(Math.log10(max)));
        for (double k : new double[] {1, 2, 5, 10}) {
            if (k * step >= max * 1.1) {
                return k * step;
            }
        }
        return 10 * step;
    }

    private static void panel(Graphics2D g, Panel p, int x, int y) {
        int[] a = area(x, y);
        int left = a[0];
        int topY = a[1];
        int right = a[2];
        int bottom = a[3];
        double top = top(p);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        centred(g, p.title(), (left + right) / 2, y + 18);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        FontMetrics fm = g.getFontMetrics();
        for (int t = 0; t <= 4; t++) {
            int ty = bottom - (int) Math.round((bottom - topY) * t / 4.0);
            g.setColor(new Color(0xDDDDDD));
            g.drawLine(left, ty, right, ty);
            g.setColor(Color.BLACK);
            String label = number(top * t / 4);
            g.drawString(label, left - 6 - fm.stringWidth(label), ty + fm.getAscent() / 2);
        }
        g.drawLine(left, topY, left, bottom);
        g.drawLine(left, bottom, right, bottom);
        Graphics2D v = (Graphics2D) g.create();
        v.rotate(-Math.PI / 2);
        v.drawString(p.yAxis(), -(topY + bottom) / 2 - fm.stringWidth(p.yAxis()) / 2, x + 14);
        v.dispose();
        int n = p.bars().size();
        int half = (int) Math.min(40, (right - left) / (double) n * 0.3);
        for (int i = 0; i < n; i++) {
            Bar b = p.bars().get(i);
            int cx = barCentre(left, right, i, n);
            int h = (int) Math.round((bottom - topY) * b.value().median() / top);
            g.setColor(BAR);
            g.fillRect(cx - half, bottom - h, 2 * half, h);
            g.setColor(Color.BLACK);
            centred(g, b.backend(), cx, bottom + 16);
            int labelY = bottom - h - 4;
            if (b.value().rounds() > 1) {
                int hi = bottom - (int) Math.round((bottom - topY) * b.value().max() / top);
                int lo = bottom - (int) Math.round((bottom - topY) * b.value().min() / top);
                g.setColor(WHISKER);
                g.setStroke(new BasicStroke(2));
                g.drawLine(cx, lo, cx, hi);
                g.drawLine(cx - half / 2, hi, cx + half / 2, hi);
                g.drawLine(cx - half / 2, lo, cx + half / 2, lo);
                g.setStroke(new BasicStroke(1));
                labelY = Math.min(labelY, hi - 4);
            }
            centred(g, number(b.value().median()), cx + half + fm.stringWidth(number(b.value().median())) / 2 + 3,
                    Math.max(topY + fm.getAscent(), labelY + fm.getAscent()));
        }
    }

    private static String number(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : v >= 10 ? String.format(Locale.ROOT, "%.1f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    private static void centred(Graphics2D g, String s, int cx, int baseline) {
        g.drawString(s, cx - g.getFontMetrics().stringWidth(s) / 2, baseline);
    }
}
