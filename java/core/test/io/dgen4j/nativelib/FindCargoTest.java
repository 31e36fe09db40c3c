package io.dgen4j.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/find-cargo.sh, which native/cargo.sh and .ci/run source: which cargo the build uses and
 * what .ci/run installs, with fake {@code cargo} binaries reporting different versions (nothing is
 * installed).
 */
class FindCargoTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();

    @TempDir
    Path dir;

    /** A fake cargo at {@code where}/cargo that reports {@code version}. */
    private Path cargo(String where, String version) throws IOException {
        Path bin = Files.createDirectories(dir.resolve(where));
        Path c = bin.resolve("cargo");
        Files.writeString(c, "#!/bin/sh\necho 'cargo " + version + " (fake 2026-01-01)'\n");
        Files.setPosixFilePermissions(c, PosixFilePermissions.fromString("rwxr-xr-x"));
        return c;
    }

    /**
     * Runs {@code script} after sourcing find-cargo.sh, with PATH = {@code dir}/path:/usr/bin:/bin,
     * HOME = {@code dir}/home and the fixed places ({@code /root/.cargo}, {@code /usr/local/cargo})
     * moved under {@code dir}, so that this machine's own Rust is not seen.
     */
    private String run(String script) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "set -euo pipefail; source scripts/find-cargo.sh; "
                + "dgen4j_cargo_places=(" + dir.resolve("root/.cargo/bin/cargo") + " "
                + dir.resolve("usr/local/cargo/bin/cargo") + "); " + script).directory(ROOT.toFile());
        pb.environment().put("PATH", dir.resolve("path") + ":/usr/bin:/bin");
        pb.environment().put("HOME", dir.resolve("home").toString());
        pb.environment().remove("CARGO_HOME");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out.strip();
    }

    private String needed() {
        Matcher m = Pattern.compile("(?m)^rust-version = \"([0-9.]+)\"").matcher(read(ROOT.resolve("native/Cargo.toml")));
        assertTrue(m.find(), "native/Cargo.toml names no rust-version");
        return m.group(1);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** What .ci/run installs and which cargo cargo.sh runs, for the crate's rust-version. */
    private String[] decide() throws IOException, InterruptedException {
        String out = run("echo \"apt=[$(dgen4j_rust_packages \"$(dgen4j_rust_version)\")]\"; "
                + "dgen4j_find_cargo \"$(dgen4j_rust_version)\" || true; echo \"cargo=[$DGEN4J_CARGO]\"; "
                + "echo \"seen=[$DGEN4J_CARGO_SEEN]\"");
        return out.split("\n");
    }

    @Test
    void theCratesRustVersionIsRead() throws Exception {
        assertEquals(needed(), run("dgen4j_rust_version"));
    }

    @Test
    void versionsCompareAsNumbers() throws Exception {
        String out = run("for p in '1.96.0 1.89' '1.89.0 1.89' '1.89 1.89.0' '1.100.0 1.89' '1.88.9 1.89' "
                + "'1.9.0 1.89' '1.63.0 1.89' '2.0 1.89'; do "
                + "if dgen4j_version_ge $p; then echo \"$p yes\"; else echo \"$p no\"; fi; done");
        assertEquals("""
                1.96.0 1.89 yes
                1.89.0 1.89 yes
                1.89 1.89.0 yes
                1.100.0 1.89 yes
                1.88.9 1.89 no
                1.9.0 1.89 no
                1.63.0 1.89 no
                2.0 1.89 yes""", out);
    }

    @Test
    void noCargoAnywhereInstallsDebiansCurrentRust() throws Exception {
        String[] d = decide();
        assertEquals("apt=[cargo-web rustc-web]", d[0]);
        assertEquals("cargo=[]", d[1]);
        assertEquals("seen=[]", d[2]);
    }

    @Test
    void debiansOwnCargoIsTooOldSoCurrentRustIsInstalled() throws Exception {
        Path old = cargo("path", "1.63.0");
        String[] d = decide();
        assertEquals("apt=[cargo-web rustc-web]", d[0]);
        assertEquals("cargo=[]", d[1]);
        assertEquals("seen=[" + old + " 1.63.0]", d[2], "the message names what was found and its version");
    }

    @Test
    void aCargoOfTheCratesVersionOnPathIsUsedAndNothingInstalled() throws Exception {
        Path ok = cargo("path", needed());
        String[] d = decide();
        assertEquals("apt=[]", d[0]);
        assertEquals("cargo=[" + ok + "]", d[1]);
    }

    @Test
    void anOldCargoOnPathIsPassedOverForRustupsNewerOne() throws Exception {
        cargo("path", "1.63.0");
        Path rustup = cargo("home/.cargo/bin", "1.96.0");
        String[] d = decide();
        assertEquals("apt=[]", d[0]);
        assertEquals("cargo=[" + rustup + "]", d[1]);
    }

    @Test
    void rustupsCargoOutsidePathAndHomeIsFound() throws Exception {
        Path docker = cargo("usr/local/cargo/bin", "1.95.0");
        assertEquals("cargo=[" + docker + "]", decide()[1]);
    }
}
