package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.dlio.DlioConfigException;
import io.dgen4j.dlio.DlioConfigReader;
import io.dgen4j.s3.internal.PartPlan;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.unit.SizeTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Every place that takes a size reads the same table of inputs alike: the CLI's options (through
 * picocli, as a command line gives them), {@value S3Settings#PART_SIZE_VAR} and the DLIO key
 * {@code checkpoint.streaming.chunk_size}: the same number of bytes, or the same refusal behind the
 * place's own prefix. Where a place has limits of its own (S3's part sizes, whole 4 KiB chunks), a
 * size outside them is refused by that limit, never by the grammar. The benchmarks' {@code --sizes}
 * is held to the same table by {@code BenchSizesAgreeTest}.
 */
class SizesAgreeTest {
    private static final String MINIMAL = "model:\n  name: m\n  type: transformer\n  num_layers: 4\n";

    @TempDir
    static Path dir;

    static Stream<SizeTable.Row> rows() {
        return SizeTable.ROWS.stream();
    }

    @ParameterizedTest
    @MethodSource("rows")
    void theCliOptionsReadTheTable(SizeTable.Row row) {
        for (String option : List.of("--part-size", "--size", "--chunk")) {
            CommandLine cl = Main.commandLine(System.getenv());
            String[] args = option.equals("--size") ? new String[] {"save", "s3://b/k", option + "=" + row.input()}
                    : new String[] {"save", "s3://b/k", "--size", "1MiB", option + "=" + row.input()};
            if (row.valid()) {
                CommandLine.ParseResult pr = cl.parseArgs(args);
                assertEquals(row.bytes(), pr.subcommand().matchedOptionValue(option, null), option + " " + row);
            } else {
                CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                        () -> cl.parseArgs(args), option + " " + row);
                assertEquals("Invalid value for option '" + option + "': " + row.refusal(), e.getMessage());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("rows")
    void theS3PartSizeVariableReadsTheTable(SizeTable.Row row) {
        Map<String, String> env = Map.of("HOME", dir.toString(), S3Settings.PART_SIZE_VAR, row.input());
        if (row.input().isBlank()) {
            // a blank variable is an unset one, as every variable is
            assertTrue(S3Settings.fromEnvironment(env, dir).partSize().isEmpty(), row.toString());
            return;
        }
        if (row.valid() && row.bytes() == 0) {
            // 0: the chunk size, as the builder takes it
            assertTrue(S3Settings.fromEnvironment(env, dir).partSize().isEmpty(), row.toString());
            return;
        }
        if (row.valid() && row.bytes() >= PartPlan.MIN_PART_SIZE && row.bytes() <= PartPlan.MAX_PART_SIZE) {
            assertEquals(row.bytes(), S3Settings.fromEnvironment(env, dir).partSize().orElseThrow(), row.toString());
            return;
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> S3Settings.fromEnvironment(env, dir), row.toString());
        if (row.valid()) {
            assertEquals(S3Settings.PART_SIZE_VAR + "=" + row.input().strip() + ": part size must be between 5242880 "
                    + "(5 MiB) and 5368709120 (5 GiB) bytes, or 0 for the chunk size; got " + row.bytes(), e.getMessage());
        } else {
            assertEquals(S3Settings.PART_SIZE_VAR + ": " + row.refusal(), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("rows")
    void theDlioChunkSizeKeyReadsTheTable(SizeTable.Row row) {
        String key = "checkpoint.streaming.chunk_size";
        // a YAML string, as `chunk_size: "8MiB"` gives it; a bare integer is a YAML integer, read as its digits
        List<String> override = List.of("++workload." + key + "=" + yamlString(row.input()));
        if (row.valid() && row.bytes() > 0 && row.bytes() % 4096 == 0 && row.bytes() <= 1L << 31) {
            assertEquals(row.bytes(), DlioConfigReader.parse(MINIMAL, "t.yaml", override).streaming().chunkSize(),
                    row.toString());
            if (row.input().matches("\\d+")) {
                assertEquals(row.bytes(), DlioConfigReader.parse(MINIMAL, "t.yaml",
                        List.of("++workload." + key + "=" + row.input())).streaming().chunkSize(), row.toString());
            }
            return;
        }
        DlioConfigException e = assertThrows(DlioConfigException.class,
                () -> DlioConfigReader.parse(MINIMAL, "t.yaml", override), row.toString());
        assertEquals(key, e.key());
        if (row.valid()) {
            assertEquals(key + ": must be a positive multiple of 4096 bytes up to 2 GiB, got " + row.bytes(),
                    e.getMessage());
        } else {
            assertEquals(key + ": " + row.refusal(), e.getMessage());
        }
    }

    /** {@code s} as a double-quoted YAML scalar, control characters escaped. */
    private static String yamlString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    @Test
    void eightMegabytesAreEightMillionBytesInTheOptionAndTheVariable() {
        // they were 8,000,000 and 8,388,608 before there was one grammar
        CommandLine.ParseResult pr = Main.commandLine(System.getenv()).parseArgs("save", "s3://b/k", "--size", "1MiB",
                "--part-size", "8MB");
        assertEquals(8_000_000L, (Long) pr.subcommand().matchedOptionValue("--part-size", null));
        assertEquals(8_000_000L, S3Settings.fromEnvironment(Map.of("HOME", dir.toString(), S3Settings.PART_SIZE_VAR,
                "8MB"), dir).partSize().orElseThrow());
    }
}
