package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The whole CLI surface misused: every command × every option × malformed values, bad paths and
 * closed output, run in-process through {@link Main#run}. Each case must exit with its documented
 * code, print exactly one line on stderr starting with {@code "dgen4j: "} when it fails, and never
 * show a stack trace or an exception's class name. The out-of-process cases (closed stdout of the
 * real JVM, the C locale) are in {@link MisuseProcessTest}.
 */
class MisuseTest {
    /** Malformed values tried for every option that takes one. */
    static final List<String> VALUES = List.of("-1", "0", "-0", "99999999999999999999", "9223372036854775808",
            "abc", "1.5B", "", " ", "12 parsecs", "1e400", "NaN", "0x", "1GiBB", "-1GiB", "\u00e9\u0000");
    /** Options whose value is a path: tried with {@link #pathCases} instead (no file lands in the working directory). */
    static final Set<String> PATH_OPTIONS = Set.of("--out", "--plot", "--dir", "--sysfs-root");

    @TempDir
    static Path dir;
    static Path ckpt;
    static Path readOnly;
    static boolean mounted;
    static int cases;
    static final List<String> problems = new ArrayList<>();

    record Result(int code, String out, String err) {}

    @BeforeAll
    static void prepare() throws Exception {
        ckpt = dir.resolve("ck.bin");
        Result r = run(List.of("save", ckpt.toString(), "--size", "64KiB", "--chunk", "64KiB", "--seed", "1"));
        assertEquals(0, r.code(), r.err());
        readOnly = Files.createDirectories(dir.resolve("ro"));
        if (uid().equals("0")) {
            // root writes through permission bits: a read-only mount is read-only for root too.
            exec("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", readOnly.toString());
            mounted = true;
        } else {
            assertTrue(readOnly.toFile().setWritable(false, false));
        }
    }

    @AfterAll
    static void report() throws Exception {
        if (mounted) {
            exec("umount", readOnly.toString());
        }
        System.out.printf("MisuseTest: %d misuse cases run in-process, %d problem(s)%n", cases, problems.size());
    }

    static Result run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    /** Base arguments per command: valid and fast, so an accepted value runs the command for real. */
    static Map<String, List<String>> base() {
        Map<String, List<String>> b = new LinkedHashMap<>();
        b.put("save", List.of("TARGET", dir.resolve("ok.bin").toString(), "--size", "64KiB", "--chunk", "64KiB"));
        b.put("load", List.of("TARGET", ckpt.toString(), "--chunk", "64KiB"));
        b.put("compare", List.of("--dir", dir.toString(), "--size", "64KiB", "--chunk", "64KiB"));
        b.put("quickstart", List.of("--dir", dir.toString(), "--size", "64KiB", "--chunk", "64KiB"));
        b.put("generate", List.of("--size", "64KiB", "--chunk", "64KiB"));
        b.put("info", List.of());
        return b;
    }

    /** The base arguments (name, value pairs; TARGET for the positional) with {@code name} set to {@code value}. */
    static List<String> with(List<String> pairs, String name, String value) {
        List<String> out = new ArrayList<>(pairs);
        for (int i = 0; i < out.size(); i += 2) {
            if (out.get(i).equals(name)) {
                out.set(i + 1, value);
                return out;
            }
        }
        out.add(name);
        out.add(value);
        return out;
    }

    static List<String> flatWith(List<String> pairs, String name, String value) {
        return flat(with(pairs, name, value));
    }

    /** The command-line arguments of name, value pairs. */
    static List<String> flat(List<String> pairs) {
        return append(pairs);
    }

    /** Checks one case: the code is one of {@code codes}; a failure prints exactly one clean line. */
    static void check(String command, List<String> args, Set<Integer> codes) {
        List<String> full = new ArrayList<>();
        full.add(command);
        full.addAll(args);
        check(full, codes, run(full));
    }

    static void check(List<String> full, Set<Integer> codes, Result r) {
        cases++;
        String what = "dgen4j " + String.join(" ", full.stream().map(a -> "'" + a + "'").toList());
        String all = r.out() + r.err();
        if (all.contains("Exception") || all.contains("\tat ") || all.contains("Error:") || all.contains("Caused by")) {
            problems.add(what + ": trace or exception name in the output: " + all);
        }
        if (!codes.contains(r.code())) {
            problems.add(what + ": exit " + r.code() + ", expected one of " + codes + "; stderr: " + r.err());
        }
        if (r.code() != 0) {
            String[] lines = r.err().split("\n", -1);
            if (lines.length != 2 || !lines[1].isEmpty() || !lines[0].startsWith("dgen4j: ")) {
                problems.add(what + ": stderr is not exactly one 'dgen4j: ' line: " + r.err());
            }
        }
    }

    @Test
    void everyOptionOfEveryCommandWithMalformedValues() throws IOException {
        CommandSpec root = Main.commandLine(System.getenv()).getCommandSpec();
        Map<String, List<String>> bases = base();
        for (Map.Entry<String, List<String>> e : bases.entrySet()) {
            String command = e.getKey();
            CommandSpec spec = root.subcommands().get(command).getCommandSpec();
            for (OptionSpec o : spec.options()) {
                String name = o.longestName();
                if (o.usageHelp() || o.versionHelp()) {
                    continue;
                }
                if (o.arity().max() == 0) {
                    // A flag given a value: --json=abc.
                    check(command, append(e.getValue(), name + "=abc"), Set.of(2));
                    continue;
                }
                if (PATH_OPTIONS.contains(name)) {
                    pathCases(command, e.getValue(), name);
                    continue;
                }
                for (String v : VALUES) {
                    // Accepted values run the command (0); the rest are bad arguments (2).
                    check(command, flatWith(e.getValue(), name, v), Set.of(0, 2));
                }
                check(command, append(e.getValue(), name), Set.of(2)); // value missing
            }
            if (!spec.positionalParameters().isEmpty()) {
                pathCases(command, e.getValue(), "TARGET");
            }
            check(command, append(e.getValue(), "--no-such-option"), Set.of(2));
            check(command, append(e.getValue(), "extra"), Set.of(2));
            Result help = run(List.of(command, "--help"));
            check(List.of(command, "--help"), Set.of(0), help);
            assertTrue(help.out().contains("Usage: dgen4j " + command), help.out());
        }
        for (List<String> args : List.<List<String>>of(List.of(), List.of("--nope"), List.of("nope"), List.of("help", "nope"),
                List.of("save"), List.of("load"), List.of("generate"), List.of("@" + dir), List.of("@/nonexistent"))) {
            check(args, Set.of(2), run(args));
        }
        for (List<String> args : List.of(List.of("--help"), List.of("-V"), List.of("help"), List.of("help", "save"),
                List.of("-V", "extra"))) { // help and version options win over the rest, as in picocli
            check(args, Set.of(0), run(args));
        }
        // No @argument-files: '@' starts a path like any other character (a relative one here, whose directory is missing).
        check("save", List.of("@" + dir.resolve("x.bin"), "--size", "64KiB"), Set.of(3));
        // Combinations no single option shows.
        check("save", flatWith(bases.get("save"), "--compress", "146.3"), Set.of(2));
        check("save", flat(with(with(bases.get("save"), "--dedup", "2"), "--generator", "jdk-random")), Set.of(2));
        check("save", flat(with(with(bases.get("save"), "--buffers", "2"), "--writers", "2")), Set.of(2));
        check("save", flat(with(with(bases.get("save"), "--buffers", "1024"), "--chunk", "2GiB")), Set.of(2));
        check("save", append(with(bases.get("save"), "--size", "8EiB"), "--old-method"), Set.of(2));
        check("load", flat(with(with(bases.get("load"), "--readers", "256"), "--chunk", "2GiB")), Set.of(2));
        check("load", flatWith(bases.get("load"), "--writers", "2"), Set.of(2));
        check("load", flatWith(bases.get("load"), "--dedup", "2"), Set.of(2));
        check("compare", flatWith(bases.get("compare"), "--size", "8EiB"), Set.of(2));
        check("quickstart", flatWith(bases.get("quickstart"), "--size", "8EiB"), Set.of(2));
        check("generate", flatWith(bases.get("generate"), "--chunk", "3GiB"), Set.of(2));
        check("generate", flatWith(bases.get("generate"), "--compress", "1000"), Set.of(2));
        check("generate", flatWith(bases.get("generate"), "--numa-node", "4000"), Set.of(2));
        check("info", flatWith(List.of(), "--numa-node", "4000"), Set.of(2));
        assertClean();
    }

    /** Bad paths for a path-valued option or the TARGET parameter. */
    static void pathCases(String command, List<String> base, String name) throws IOException {
        boolean isDir = name.equals("--dir") || name.equals("--sysfs-root");
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Map<String, Set<Integer>> paths = new LinkedHashMap<>();
        paths.put(dir.resolve("missing/x.bin").toString(), Set.of(3));
        paths.put(readOnly.resolve("x.bin").toString(), Set.of(3));
        if (isDir) {
            paths.put(file.toString(), Set.of(3));          // a file where a directory is expected
            paths.put(readOnly.toString(), Set.of(3));
        } else {
            // a directory where a file is expected: a checkpoint target that is not a regular file is a usage error
            paths.put(dir.toString(), name.equals("TARGET") ? Set.of(2) : Set.of(3));
            paths.put(dir.resolve("x.bin") + "/", Set.of(2)); // trailing slash
            paths.put(dir.resolve("n".repeat(256)).toString(), Set.of(2));
            paths.put(dir.resolve("n".repeat(240)).toString(), name.equals("TARGET") ? Set.of(2, 3) : Set.of(0, 3));
            paths.put("file://otherhost" + dir.resolve("x.bin"), name.equals("TARGET") ? Set.of(2) : Set.of(0, 2, 3));
            paths.put("", Set.of(2));
        }
        for (Map.Entry<String, Set<Integer>> p : paths.entrySet()) {
            if (name.equals("--sysfs-root")) { // a hidden test option: any clean outcome
                check(command, flatWith(base, name, p.getKey()), Set.of(0, 2, 3));
            } else {
                check(command, flatWith(base, name, p.getKey()), p.getValue());
            }
        }
        Files.deleteIfExists(file);
    }

    /** Output that cannot be written: every command that succeeds exits 3 with one line on stderr. */
    @Test
    void closedStandardOutput() {
        OutputStream closed = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Bad file descriptor");
            }
        };
        for (List<String> args : List.of(List.of("info"), List.of("info", "--json"), List.of("--help"), List.of("-V"),
                List.of("help", "save"), List.of("generate", "--size", "64KiB"),
                List.of("generate", "--size", "64KiB", "--json"),
                List.of("save", dir.resolve("c.bin").toString(), "--size", "64KiB", "--chunk", "64KiB"),
                List.of("load", ckpt.toString(), "--verify", "--chunk", "64KiB"))) {
            StringWriter err = new StringWriter();
            int code = Main.run(args.toArray(String[]::new),
                    new PrintWriter(new java.io.PrintStream(closed, true, StandardCharsets.UTF_8), true),
                    new PrintWriter(err, true));
            check(args, Set.of(3), new Result(code, "", err.toString()));
            if (code == 3) {
                assertEquals("dgen4j: cannot write to standard output (closed, or the reader went away)\n",
                        err.toString(), String.join(" ", args));
            }
        }
        assertClean();
    }

    static List<String> append(List<String> base, String... more) {
        List<String> args = new ArrayList<>();
        for (int i = 0; i < base.size(); i += 2) {
            if (!base.get(i).equals("TARGET")) {
                args.add(base.get(i));
            }
            args.add(base.get(i + 1));
        }
        args.addAll(List.of(more));
        return args;
    }

    static void assertClean() {
        if (!problems.isEmpty()) {
            fail(problems.size() + " misuse case(s) not clean:\n" + String.join("\n", problems));
        }
    }

    static String uid() throws IOException, InterruptedException {
        return exec("id", "-u").trim();
    }

    static String exec(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
