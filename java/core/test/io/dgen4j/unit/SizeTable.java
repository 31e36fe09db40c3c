package io.dgen4j.unit;

import java.util.List;

/**
 * The inputs every place that takes a size is tried with, and what {@link ByteSize#parse} makes of
 * each: a number of bytes or the exact one-line refusal. {@code ByteSizeTest} checks the grammar
 * against it; the CLI's and the benchmarks' agreement tests check every option, variable and key
 * against the same rows.
 */
public final class SizeTable {
    private SizeTable() {}

    /** One input: {@code bytes} when it is a size, else {@code refusal}, {@link ByteSize#parse}'s message. */
    public record Row(String input, Long bytes, String refusal) {
        /** Whether the input names a size. */
        public boolean valid() {
            return bytes != null;
        }

        @Override
        public String toString() {
            return "'" + input + "' -> " + (valid() ? bytes : refusal);
        }
    }

    private static Row ok(String input, long bytes) {
        return new Row(input, bytes, null);
    }

    private static Row no(String input, String refusal) {
        return new Row(input, null, refusal);
    }

    private static Row notASize(String input) {
        return no(input, "'" + input + "' is not a size (examples: " + ByteSize.EXAMPLES + ")");
    }

    private static Row tooLarge(String input) {
        return no(input, "'" + input + "' is too large: sizes must be below 2^63 bytes (8 EiB)");
    }

    private static Row unknownUnit(String input, String unit) {
        return no(input, "unknown size unit '" + unit + "' in '" + input + "' (use " + ByteSize.UNITS + ")");
    }

    /** The table. */
    public static final List<Row> ROWS = List.of(
            ok("0", 0),
            ok("4096", 4096),
            ok(" 4096 ", 4096),
            ok("4096B", 4096),
            ok("4096 b", 4096),
            ok("007KiB", 7 << 10),
            ok("64KiB", 64 << 10),
            ok("64kib", 64 << 10),
            ok("64K", 64 << 10),
            ok("64Ki", 64 << 10),
            ok("8192K", 8 << 20),
            ok("5MiB", 5 << 20),
            ok("8MiB", 8 << 20),
            ok("8M", 8 << 20),
            ok("8 MiB", 8 << 20),
            // decimal units are powers of 1000 everywhere: --part-size 8MB and DGEN4J_S3_PART_SIZE=8MB agree
            ok("8MB", 8_000_000),
            ok("8mb", 8_000_000),
            ok("32MiB", 32 << 20),
            ok("1.5KiB", 1536),
            ok("1.50KiB", 1536),
            ok("0.5KiB", 512),
            ok("0.001KB", 1),
            ok("10.25MiB", 10_747_904),
            ok("1.5GiB", 1536L << 20),
            ok("1.5GB", 1_500_000_000L),
            ok("5GiB", 5L << 30),
            ok("10GB", 10_000_000_000L),
            ok("1TiB", 1L << 40),
            ok("1TB", 1_000_000_000_000L),
            ok("3 PiB", 3L << 50),
            ok("1PB", 1_000_000_000_000_000L),
            ok("7EiB", 7L << 60),
            ok("9EB", 9_000_000_000_000_000_000L),
            ok("9223372036854775807", Long.MAX_VALUE),
            ok("9223372036854775807B", Long.MAX_VALUE),
            notASize(""),
            notASize("   "),
            notASize("abc"),
            notASize("-1"),
            notASize("-4KiB"),
            notASize("+1"),
            notASize("1e3"),
            notASize("1,024"),
            notASize("1_024"),
            notASize("0x10"),
            notASize("1.KiB"),
            notASize(".5KiB"),
            notASize("1 2"),
            notASize("1 MiB 2"),
            notASize("\u0663"),
            no("1\u0000", "'1?' is not a size (examples: " + ByteSize.EXAMPLES + ")"),
            no("1.3B", "'1.3B' is not a whole number of bytes (1.3)"),
            no("0.1", "'0.1' is not a whole number of bytes (0.1)"),
            no("1.1MiB", "'1.1MiB' is not a whole number of bytes (1153433.6)"),
            no("1.0001KB", "'1.0001KB' is not a whole number of bytes (1000.1)"),
            unknownUnit("12 parsecs", "parsecs"),
            unknownUnit("1GiBB", "GiBB"),
            notASize("NaN"),
            unknownUnit("1KiBs", "KiBs"),
            notASize("1Kb2"),
            unknownUnit("8Mbit", "Mbit"),
            unknownUnit("1ZiB", "ZiB"),
            tooLarge("9223372036854775808"),
            tooLarge("8EiB"),
            tooLarge("10EB"),
            tooLarge("99999999999G"),
            tooLarge("1000000000000000000000000000000"),
            tooLarge("8388608TiB"));
}
