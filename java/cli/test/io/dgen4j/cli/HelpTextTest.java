package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What {@code --help} prints reads as text: picocli wraps each description element on its own, so
 * an element that stops mid-sentence left a short line ({@code save --help} once had "them) or" and
 * "direct:" / "// (O_DIRECT demanded),"); a word printed across two lines ({@code http://10.0.0.} /
 * {@code {1...8}:9000}) cannot be copied. Every command is listed in {@code dgen4j --help}, {@code bench}
 * (run by the launcher) included.
 */
class HelpTextTest {

    /** Every command and subcommand with its help as printed (80 columns). */
    private static void eachCommand(BiConsumer<CommandSpec, String> check) {
        List<CommandLine> todo = new ArrayList<>(List.of(Main.commandLine(Map.of())));
        while (!todo.isEmpty()) {
            CommandLine c = todo.removeFirst();
            check.accept(c.getCommandSpec(), c.getUsageMessage(CommandLine.Help.Ansi.OFF));
            todo.addAll(c.getSubcommands().values().stream().distinct().toList());
        }
    }

    /** A description element as picocli prints it ({@code %%} is {@code %}, {@code %n} a line break). */
    private static String printed(String element) {
        return element.replace("%n", " ").replace("%%", "%");
    }

    private static List<String> descriptions(CommandSpec spec) {
        List<String> all = new ArrayList<>(Arrays.asList(spec.usageMessage().description()));
        for (ArgSpec a : spec.args()) {
            if (a.hidden()) {
                continue; // not printed
            }
            all.addAll(Arrays.asList(a.description()));
        }
        return all;
    }

    @Test
    void everyWordOfEveryDescriptionIsPrintedOnOneLine() {
        List<String> broken = new ArrayList<>();
        eachCommand((spec, help) -> {
            Set<String> words = new HashSet<>(Arrays.asList(help.split("\\s+")));
            for (String d : descriptions(spec)) {
                for (String w : printed(d).strip().split("\\s+")) {
                    if (!words.contains(w)) {
                        broken.add(spec.qualifiedName() + ": '" + w + "'");
                    }
                }
            }
        });
        assertEquals(List.of(), broken, "words wrapped across lines");
    }

    /**
     * The synopsis breaks only between options: each option's token ({@code [--endpoints=URI[,URI...]]...})
     * is printed whole on one line (picocli cut it after the comma in {@code endpoints} and {@code dlio run}),
     * and the continuation lines line up under the first option, as picocli lays them out.
     */
    @Test
    void theSynopsisBreaksOnlyBetweenOptions() {
        List<String> cut = new ArrayList<>();
        eachCommand((spec, help) -> {
            List<String> synopsis = new ArrayList<>();
            for (String line : help.lines().toList()) {
                if (!synopsis.isEmpty() && !line.startsWith(" ")) {
                    break;
                }
                if (!synopsis.isEmpty() || line.startsWith("Usage: ")) {
                    synopsis.add(line);
                }
            }
            assertTrue(!synopsis.isEmpty(), spec.qualifiedName() + " has no synopsis:\n" + help);
            String prefix = "Usage: " + spec.qualifiedName() + " ";
            assertTrue(synopsis.getFirst().startsWith(prefix), synopsis.getFirst());
            for (String line : synopsis.subList(1, synopsis.size())) {
                assertTrue(line.length() - line.stripLeading().length() <= prefix.length(),
                        spec.qualifiedName() + ": continuation not under the first option: " + line);
            }
            Set<String> tokens = new HashSet<>();
            synopsis.forEach(l -> tokens.addAll(Arrays.asList(l.strip().split("\\s+"))));
            for (ArgSpec a : spec.args()) {
                if (a.hidden() || !(a instanceof picocli.CommandLine.Model.OptionSpec o) || o.paramLabel() == null
                        || o.arity().max() == 0 || o.splitRegex().isEmpty()) {
                    continue;
                }
                // a split option: [--name=LABEL[,LABEL...]]... (or without the brackets when required)
                String split = o.splitRegexSynopsisLabel().isEmpty() ? o.splitRegex() : o.splitRegexSynopsisLabel();
                String token = o.longestName() + "=" + o.paramLabel() + "[" + split + o.paramLabel() + "...]";
                if (tokens.stream().noneMatch(t -> t.contains(token))) {
                    cut.add(spec.qualifiedName() + ": " + token + " in\n" + String.join("\n", synopsis));
                }
            }
        });
        assertEquals(List.of(), cut, "synopsis options cut across lines");
    }

    @Test
    void everyDescriptionElementIsWholeSentences() {
        List<String> cut = new ArrayList<>();
        eachCommand((spec, help) -> {
            for (String d : descriptions(spec)) {
                String s = printed(d).strip();
                if (!(s.endsWith(".") || s.endsWith("..."))) {
                    cut.add(spec.qualifiedName() + ": " + s);
                }
            }
        });
        assertEquals(List.of(), cut, "description elements that stop mid-sentence");
    }

    @Test
    void everyLineFitsEightyColumnsAndFootersAreNotWrapped() {
        eachCommand((spec, help) -> {
            help.lines().forEach(l -> assertTrue(l.length() <= 80, spec.qualifiedName() + ": " + l));
            for (String f : spec.usageMessage().footer()) {
                assertTrue(f.length() <= 80, spec.qualifiedName() + " footer: " + f);
            }
        });
    }

    @Test
    void theCommandListNamesEveryCommandBenchIncludedWithWholeFirstSentences() {
        String help = Main.commandLine(Map.of()).getUsageMessage(CommandLine.Help.Ansi.OFF);
        String list = help.substring(help.indexOf("Commands:"), help.indexOf("Exit status:"));
        for (String name : List.of("quickstart", "save", "load", "compare", "backends", "dlio", "endpoints",
                "generate", "info", "bench", "help")) {
            assertTrue(list.contains("\n  " + name + " "), name + " missing from\n" + list);
        }
        assertTrue(list.contains("bench       Run the benchmarks of java/bench through the ./dgen4j launcher"), list);
    }

    /** The default backend as the code picks it (priority order), the help and the README say the same. */
    @Test
    void helpAndReadmeNameTheDefaultS3BackendTheCodePicks() throws java.io.IOException {
        List<String> order = io.dgen4j.cli.s3.S3Backends.providers(new Environment(Map.of(), false), List.of()).stream()
                .map(io.dgen4j.storage.StorageProvider::name).toList();
        assertEquals(List.of("aws", "crt", "minio"), order);
        String help = Main.commandLine(Map.of()).getSubcommands().get("save").getUsageMessage(CommandLine.Help.Ansi.OFF)
                .replaceAll("\\s+", " ");
        assertTrue(help.contains("(default: DGEN4J_S3_BACKEND, else the first of " + String.join(", ", order)
                + " that is installed)"), help);
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of(System.getProperty("dgen4j.test.root", "."),
                "README.md")).replaceAll("\\s+", " ");
        assertTrue(readme.contains("through the `" + order.getFirst() + "` (the default, unless `--backend` or "
                + "`DGEN4J_S3_BACKEND` names another)"), "README.md names another default backend");
    }

    @Test
    void benchRunFromTheJarSaysItRunsThroughTheLauncher() {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int code = Main.run(new String[] {"bench", "--quick"}, new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(err, true), Map.of());
        assertEquals(ExitCodes.USAGE, code);
        assertEquals("", out.toString());
        assertTrue(err.toString().startsWith("dgen4j: the benchmarks run through the launcher: ./dgen4j bench ..."),
                err.toString());
        assertEquals(1, err.toString().lines().count() , err.toString());
    }
}
