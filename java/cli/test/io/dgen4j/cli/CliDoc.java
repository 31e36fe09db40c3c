package io.dgen4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine;

/**
 * The reference part of {@code docs/CLI.md}: what {@code dgen4j [COMMAND...] --help} prints for the
 * top command and every command and subcommand below it, run in process ({@link Main#run}) with an
 * empty environment, so that the page does not depend on who generates it. The page keeps what is
 * written above its {@link #MARKER} line and replaces everything below it.
 *
 * <p>{@code scripts/cli-doc.sh} runs {@link #main} to regenerate the page; {@code CliDocTest} fails
 * when the page differs from what {@code --help} prints now.
 */
final class CliDoc {
    /** The line below which {@code docs/CLI.md} is generated. */
    static final String MARKER = "<!-- Generated from --help by scripts/cli-doc.sh (CliDocTest checks it): "
            + "edit the commands' annotations, not the text below. -->";

    private CliDoc() {}

    /**
     * Every command's words after {@code dgen4j}, depth first in the order {@code --help} lists them:
     * {@code []}, {@code [quickstart]}, ..., {@code [dlio]}, {@code [dlio, plan]}, ... Hidden commands
     * are left out; a command with aliases is listed once, by its name.
     */
    static List<List<String>> commands() {
        List<List<String>> all = new ArrayList<>();
        walk(Main.commandLine(System.getenv()), List.of(), all);
        return all;
    }

    private static void walk(CommandLine command, List<String> path, List<List<String>> all) {
        all.add(path);
        Set<CommandLine> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (CommandLine sub : command.getSubcommands().values()) {
            if (sub.getCommandSpec().usageMessage().hidden() || !seen.add(sub)) {
                continue;
            }
            List<String> next = new ArrayList<>(path);
            next.add(sub.getCommandName());
            walk(sub, List.copyOf(next), all);
        }
    }

    /**
     * What {@code dgen4j <path> --help} prints on standard output, trailing spaces of each line removed.
     *
     * @throws IllegalStateException when the help exits non-zero or writes to standard error
     */
    static String help(List<String> path) {
        List<String> args = new ArrayList<>(path);
        args.add("--help");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true),
                Map.of());
        if (code != 0 || !err.toString().isEmpty()) {
            throw new IllegalStateException(String.format("'%s' exited %d: %s", title(path), code, err));
        }
        return out.toString().lines().map(String::stripTrailing).collect(Collectors.joining("\n", "", "\n"));
    }

    /** {@code dgen4j} and the command's words. */
    static String title(List<String> path) {
        return path.isEmpty() ? "dgen4j" : "dgen4j " + String.join(" ", path);
    }

    /** The generated part: a list of the commands, then one section per command with its help. */
    static String reference() {
        List<List<String>> commands = commands();
        StringBuilder s = new StringBuilder();
        s.append("## Commands\n\n");
        for (List<String> path : commands) {
            s.append("  ".repeat(Math.max(0, path.size() - 1))).append("- [`").append(title(path)).append("`](#")
                    .append(anchor(path)).append(")\n");
        }
        for (List<String> path : commands) {
            s.append("\n## `").append(title(path)).append("`\n\n```text\n").append(help(path)).append("```\n");
        }
        return s.toString();
    }

    /** GitHub's anchor of a section titled {@code `dgen4j save`}: lower case, spaces as hyphens, backquotes dropped. */
    private static String anchor(List<String> path) {
        return title(path).replace(' ', '-');
    }

    /**
     * The page {@code current} should be: its text down to and including the {@link #MARKER} line, then
     * {@link #reference()}.
     *
     * @throws IllegalArgumentException when {@code current} has no marker line
     */
    static String document(String current) {
        int at = current.indexOf(MARKER);
        if (at < 0) {
            throw new IllegalArgumentException("docs/CLI.md has no line '" + MARKER + "' above its generated part");
        }
        return current.substring(0, at + MARKER.length()) + "\n\n" + reference();
    }

    /** Regenerates the page at {@code args[0]} (default {@code docs/CLI.md}) in place. */
    public static void main(String[] args) throws IOException {
        Path page = Path.of(args.length > 0 ? args[0] : "docs/CLI.md");
        String current = Files.readString(page, StandardCharsets.UTF_8);
        String next = document(current);
        if (next.equals(current)) {
            System.out.println(page + " is up to date");
        } else {
            Files.writeString(page, next, StandardCharsets.UTF_8);
            System.out.println(page + " regenerated (" + commands().size() + " commands)");
        }
    }
}
