package io.dgen4j.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command under Debian's Open MPI {@code mpirun} for the tests: {@code -np n}, oversubscribed
 * (CI machines have few CPUs), allowed as root (CI runs as root), shared memory between ranks and the
 * launcher's own traffic on loopback only. A machine without {@code mpirun} fails the test with what to
 * install (.ci/run installs it).
 */
public final class Mpirun {
    private Mpirun() {}

    /** What a run printed and how it ended. */
    public record Result(int code, String out, String err) {
        /** The lines of standard output. */
        public List<String> lines() {
            return out.lines().toList();
        }
    }

    /** The {@code mpirun} on the PATH (or Debian's {@code /usr/bin/mpirun}); fails the test when there is none. */
    public static Path find() {
        return find("mpirun", "mpirun (Open MPI)", "openmpi-bin");
    }

    private static Path find(String name, String what, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        Path debian = Path.of("/usr/bin", name);
        if (Files.isExecutable(debian)) {
            return debian;
        }
        throw new AssertionError(String.format("this test needs %s and finds no %s on the PATH: install Debian's %s "
                + "(apt-get install %s; .ci/run does)", what, name, debianPackage, debianPackage));
    }

    /**
     * MPICH's launcher ({@code mpiexec.mpich}, Hydra) with {@code -np n}, on loopback; fails the test when
     * Debian's {@code mpich} is not installed.
     */
    public static List<String> mpichPrefix(int ranks) {
        return new ArrayList<>(List.of(find("mpiexec.mpich", "MPICH's Hydra launcher", "mpich").toString(),
                "-iface", "lo", "-np", Integer.toString(ranks)));
    }

    /** The launcher's arguments before the command: {@code mpirun ... -np n}. */
    public static List<String> prefix(int ranks, String... extra) {
        List<String> cmd = new ArrayList<>(List.of(find().toString(), "--oversubscribe", "--allow-run-as-root",
                "--mca", "btl", "self,vader", "--mca", "oob_tcp_if_include", "lo", "--mca", "btl_tcp_if_include", "lo"));
        cmd.addAll(List.of(extra));
        cmd.addAll(List.of("-np", Integer.toString(ranks)));
        return cmd;
    }

    /** A JVM running {@code mainClass} on this test's class path, with native access. */
    public static List<String> java(String mainClass, String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Runs {@code command} ({@link #prefix} included) in {@code dir} with {@code env} added, waiting at most
     * {@code timeoutSeconds}.
     */
    public static Result run(Path dir, Map<String, String> env, List<String> command, int timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        // a container without cross-memory attach (ptrace) still runs shared-memory transfers
        pb.environment().put("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
        // no launcher variables of an outer job leak into the ranks' reading of their place
        pb.environment().keySet().removeIf(k -> k.startsWith("OMPI_COMM_WORLD") || k.startsWith("PMI_")
                || k.startsWith("SLURM_") || k.startsWith("MV2_"));
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "mpirun", ".out");
        Path err = Files.createTempFile(dir, "mpirun", ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("mpirun did not finish within " + timeoutSeconds + " s: " + command
                    + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
        }
        Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        return r;
    }
}
