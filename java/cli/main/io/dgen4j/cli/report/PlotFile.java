package io.dgen4j.cli.report;

import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/** A {@code --plot} PNG: checked before the run, and its failure to draw said after the results. */
public final class PlotFile {
    private PlotFile() {}

    /** The plot's PNG can be written: its directory exists and is writable, and it is not a directory. */
    public static void check(Path plot) throws IOException {
        if (plot == null) {
            return;
        }
        // The plot library appends ".png" to a name without it.
        String name = plot.getFileName() == null ? "" : plot.getFileName().toString();
        Path png = name.toLowerCase(java.util.Locale.ROOT).endsWith(".png") ? plot : plot.resolveSibling(name + ".png");
        Path parent = png.toAbsolutePath().getParent();
        if (name.isEmpty() || Files.isDirectory(plot) || Files.isDirectory(png)) {
            throw new java.nio.file.FileSystemException(plot.toString(), null, "--plot is a directory: it must name a PNG file");
        }
        StorageTarget.checkNameLength(png, 0);
        if (parent == null || !Files.isDirectory(parent)) {
            throw new java.nio.file.NoSuchFileException(String.valueOf(parent), null, "--plot directory does not exist");
        }
        if (!Files.isWritable(parent) || (Files.exists(png) && !Files.isWritable(png))) {
            throw new java.nio.file.AccessDeniedException(png.toString(), null, "--plot file is not writable");
        }
    }

    /** One line on stderr, after the results, when the plot was asked for and not drawn. */
    public static void reportError(PrintWriter err, String plotError) {
        if (plotError != null) {
            err.println("dgen4j: " + plotError);
            err.flush();
        }
    }
}
