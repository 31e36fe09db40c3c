package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./dgen4j} launcher's rebuild decision, run for real in a copy of the repository's
 * sources: its {@code build} is a stub that logs its arguments and writes an empty jar, and its JDK
 * a fake whose {@code java} prints the command it was given, so each case takes a fraction of a
 * second instead of a Maven build. The build's output reaches stderr without ANSI codes.
 */
class LauncherTest {
    /** Where the sources were before any case touched them. */
    private static final FileTime OLD = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);

    @TempDir
    Path home;

    private Path log;

    /** Everything that goes into the CLI jar: the modules' code, resources and POMs, and the crate. */
    private static List<Path> inputs(Path root) throws IOException {
        List<Path> inputs = new ArrayList<>(List.of(Path.of("pom.xml"), Path.of("native/Cargo.toml"),
                Path.of("native/Cargo.lock"), Path.of("native/cargo.sh"), Path.of("native/src")));
        try (Stream<Path> modules = Files.list(root.resolve("java"))) {
            for (Path m : modules.filter(m -> Files.isRegularFile(m.resolve("pom.xml"))).sorted().toList()) {
                for (String part : List.of("pom.xml", "main", "resources")) {
                    if (Files.exists(m.resolve(part))) {
                        inputs.add(root.relativize(m.resolve(part)));
                    }
                }
            }
        }
        return inputs;
    }

    /** Copies the launcher, find-jdk.sh and every input into {@link #home}, dated an hour ago. */
    private List<Path> copyTree() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        List<Path> files = new ArrayList<>();
        for (Path input : inputs(root)) {
            try (Stream<Path> walk = Files.walk(root.resolve(input))) {
                for (Path f : walk.filter(Files::isRegularFile).toList()) {
                    files.add(root.relativize(f));
                }
            }
        }
        files.add(Path.of("scripts/find-jdk.sh"));
        for (Path f : files) {
            Path to = home.resolve(f);
            Files.createDirectories(to.getParent());
            Files.copy(root.resolve(f), to);
            Files.setLastModifiedTime(to, OLD);
        }
        Files.copy(root.resolve("dgen4j"), home.resolve("dgen4j"));
        log = home.resolve("build.log");
        script(home.resolve("build"), """
                #!/usr/bin/env bash
                here="$(cd "$(dirname "$0")" && pwd)"
                echo "$*" >>"$here/build.log"
                printf '\033[0m\033[1mcompiled\033[0m\n'   # as Maven 3.8 writes even in batch mode
                case " $* " in *" clean "*) rm -rf "$here/java/cli/target" ;; esac
                mkdir -p "$here/java/cli/target"
                : >"$here/java/cli/target/dgen4j-cli-0-all.jar"
                """);
        Path jdk = home.resolve("jdk");
        Files.createDirectories(jdk.resolve("bin"));
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25\"\n");
        script(jdk.resolve("bin/java"), "#!/usr/bin/env bash\necho \"java $*\"\n");
        script(jdk.resolve("bin/javac"), "#!/usr/bin/env bash\n");
        return files;
    }

    private static void script(Path p, String text) throws IOException {
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** Runs {@code ./dgen4j --version} in the copy; returns the build's arguments, or "" when it did not build. */
    private String launch() throws IOException, InterruptedException {
        Files.deleteIfExists(log);
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("dgen4j").toString(), "--version")
                .directory(home.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", home.resolve("jdk").toString());
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the launcher hung");
        }
        assertEquals(0, p.exitValue(), out);
        assertTrue(!out.contains("\u001b"), "no ANSI codes when stderr is not a terminal: " + out);
        assertEquals(Files.exists(log), out.contains("\ncompiled\n"), out);
        // the launcher always ends in running the jar it found or built, with the arguments given
        assertTrue(out.strip().endsWith("-jar " + home.resolve("java/cli/target/dgen4j-cli-0-all.jar") + " --version"),
                out);
        return Files.exists(log) ? Files.readString(log).strip() : "";
    }

    private Path jar() {
        return home.resolve("java/cli/target/dgen4j-cli-0-all.jar");
    }

    @Test
    void rebuildsWhenAnyInputOfTheJarIsNewerAndOnlyThen() throws Exception {
        List<Path> files = copyTree();
        assertTrue(launch().contains("clean package"), "no jar yet: a build from a clean target");
        assertEquals("", launch(), "nothing changed: no build");

        // one file of each kind in each module, and each file of the crate: newer than the jar -> rebuild
        List<Path> cases = new ArrayList<>();
        for (Path input : inputs(home)) {
            files.stream().filter(f -> f.startsWith(input)).sorted().findFirst().ifPresent(cases::add);
        }
        assertTrue(cases.stream().anyMatch(c -> c.startsWith("java/dlio/main")), cases.toString());
        assertTrue(cases.stream().anyMatch(c -> c.startsWith("java/s3/resources")), cases.toString());
        assertTrue(cases.size() >= 20, cases.toString());
        for (Path c : cases) {
            Files.setLastModifiedTime(jar(), FileTime.fromMillis(OLD.toMillis() + 10_000));
            Files.setLastModifiedTime(home.resolve(c), FileTime.fromMillis(OLD.toMillis() + 20_000));
            String built = launch();
            assertTrue(built.endsWith(" package") && !built.contains("clean"), c + " is newer than the jar: " + built);
            Files.setLastModifiedTime(home.resolve(c), OLD);
            assertEquals("", launch(), c + ": built once, then nothing changed");
        }

        // a file added or removed (a service registration, say): a rebuild from a clean target
        Path added = home.resolve("java/s3/resources/META-INF/services/added.Service");
        Files.createDirectories(added.getParent());
        Files.writeString(added, "x\n");
        Files.setLastModifiedTime(added, OLD);
        assertTrue(launch().contains("clean package"), "a file was added");
        assertEquals("", launch());
        Files.delete(added);
        assertTrue(launch().contains("clean package"), "a file was removed");
        assertEquals("", launch());

        // test code and docs are not in the jar: no rebuild
        Path test = home.resolve("java/core/test/io/dgen4j/New.java");
        Files.createDirectories(test.getParent());
        Files.writeString(test, "class New {}\n");
        Files.writeString(home.resolve("README.md"), "new\n");
        assertEquals("", launch());
    }

    @Test
    void decidesFastWhenNothingChanged() throws Exception {
        copyTree();
        launch();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            assertEquals("", launch());
            best = Math.min(best, System.nanoTime() - t0);
        }
        // two walks of ~500 files and a JDK probe: ~0.1 s alone; a second leaves room for busy CPUs
        assertTrue(best < 1_000_000_000L, "the launcher took " + best / 1_000_000 + " ms with nothing to build");
    }
}
