package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code docs/CLI.md} holds what {@code --help} prints for every command and subcommand ({@link CliDoc}). */
class CliDocTest {
    private static final Path PAGE = Path.of(System.getProperty("dgen4j.test.root", "."), "docs", "CLI.md");

    @Test
    void docsCliMdIsWhatHelpPrintsForEveryCommand() throws IOException {
        assertTrue(Files.isRegularFile(PAGE), "missing " + PAGE.toAbsolutePath());
        String current = Files.readString(PAGE, StandardCharsets.UTF_8);
        String expected = CliDoc.document(current);
        if (!expected.equals(current)) {
            fail("docs/CLI.md differs from what --help prints: " + firstDifference(current, expected)
                    + "; regenerate it with scripts/cli-doc.sh (and commit it)");
        }
    }

    @Test
    void theReferenceCoversEveryCommandAndSubcommandOfMain() {
        List<List<String>> commands = CliDoc.commands();
        assertEquals(List.of(), commands.get(0));
        for (List<String> expected : List.of(List.of("quickstart"), List.of("save"), List.of("load"),
                List.of("compare"), List.of("backends"), List.of("dlio"), List.of("dlio", "plan"),
                List.of("dlio", "run"), List.of("endpoints"), List.of("generate"), List.of("info"), List.of("bench"),
                List.of("help"))) {
            assertTrue(commands.contains(expected), expected + " missing from " + commands);
        }
        String reference = CliDoc.reference();
        for (List<String> path : commands) {
            String help = CliDoc.help(path);
            assertTrue(help.contains("Usage: " + CliDoc.title(path) + " "), help);
            assertTrue(reference.contains("\n## `" + CliDoc.title(path) + "`\n\n```text\n" + help + "```\n"),
                    CliDoc.title(path));
        }
    }

    @Test
    void aPageWithoutTheMarkerIsRefusedAndTheTextAboveItIsKept() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CliDoc.document("# CLI\n"));
        assertTrue(e.getMessage().contains("no line"), e.getMessage());
        String page = CliDoc.document("# CLI\n\nwritten by hand\n\n" + CliDoc.MARKER + "\nstale\n");
        assertTrue(page.startsWith("# CLI\n\nwritten by hand\n\n" + CliDoc.MARKER + "\n\n## Commands\n"), page);
        assertTrue(!page.contains("stale"), page);
    }

    /** The first line where the two texts differ, with both versions of it. */
    private static String firstDifference(String current, String expected) {
        List<String> a = current.lines().toList();
        List<String> b = expected.lines().toList();
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            String x = i < a.size() ? a.get(i) : "(end of file)";
            String y = i < b.size() ? b.get(i) : "(end of file)";
            if (!x.equals(y)) {
                return String.format("line %d is '%s', --help prints '%s'", i + 1, x, y);
            }
        }
        return "they differ at the end of the file (a final line break)";
    }
}
