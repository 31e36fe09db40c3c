package io.dgen4j.cli.report;

import io.dgen4j.cli.Environment;
import io.dgen4j.gen.SystemInfo;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a plot's title says was measured where.
 *
 * @param run     the size, the target and its kind: {@code 1.00 GiB to /mnt/d (ext4)}
 * @param machine the CPU model and the CPUs this process may use: {@code Intel(R) Xeon(R) ..., 2 CPUs}
 */
public record PlotTitles(String run, String machine) {
    /** The titles of a run of {@code size} bytes to {@code target}, of {@code kind}, on this machine. */
    public static PlotTitles of(long size, String target, String kind, Environment env) {
        return new PlotTitles(ByteSize.approx(size) + " to " + target + " (" + kind + ")", SystemInfo.cpuModel() + ", "
                + Reports.count(SystemInfo.current(env.variables()).usableCpus(), "CPU"));
    }

    /** The type of the filesystem {@code dir} is on ({@code ext4}, {@code tmpfs}, ...), or {@code unknown filesystem}. */
    public static String fileSystem(Path dir) {
        try {
            return Files.getFileStore(dir).type() + " filesystem";
        } catch (IOException e) {
            return "unknown filesystem";
        }
    }
}
