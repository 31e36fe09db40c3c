package io.dgen4j.unit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The one size grammar: the table of inputs, the refusals, and formats that parse back to the same value. */
class ByteSizeTest {
    static Stream<SizeTable.Row> rows() {
        return SizeTable.ROWS.stream();
    }

    @ParameterizedTest
    @MethodSource("rows")
    void everyRowOfTheTableReadsAsItSays(SizeTable.Row row) {
        if (row.valid()) {
            assertEquals(row.bytes(), ByteSize.parse(row.input()).bytes(), row.input());
            assertEquals(row.bytes(), ByteSize.parseBytes(row.input()), row.input());
        } else {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(row.input()));
            assertEquals(row.refusal(), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line");
        }
    }

    @Test
    void theTableCoversEveryUnitInBothCases() {
        for (String unit : new String[] {"B", "K", "Ki", "KiB", "KB", "M", "Mi", "MiB", "MB", "G", "Gi", "GiB", "GB",
                "T", "Ti", "TiB", "TB", "P", "Pi", "PiB", "PB", "E", "Ei", "EiB", "EB"}) {
            long expected = unitBytes(unit);
            assertEquals(expected, ByteSize.parseBytes("1" + unit), unit);
            assertEquals(expected, ByteSize.parseBytes("1" + unit.toLowerCase(java.util.Locale.ROOT)), unit);
            assertEquals(expected, ByteSize.parseBytes("1" + unit.toUpperCase(java.util.Locale.ROOT)), unit);
            assertEquals(expected, ByteSize.parseBytes(" 1 \t" + unit + " "), unit);
        }
    }

    private static long unitBytes(String unit) {
        int power = "BKMGTPE".indexOf(unit.charAt(0));
        return unit.length() == 2 && unit.endsWith("B") ? pow10(3 * power) : 1L << (10 * power);
    }

    private static long pow10(int n) {
        long v = 1;
        for (int i = 0; i < n; i++) {
            v *= 10;
        }
        return v;
    }

    @Test
    void theBoundaryAt2To63IsExact() {
        assertEquals(Long.MAX_VALUE, ByteSize.parseBytes("9223372036854775807"));
        assertEquals((8L << 60) - (1L << 50), ByteSize.parseBytes("8191PiB"));
        assertEquals(Long.MAX_VALUE - 807 + 7, ByteSize.parseBytes("9223372036854775.007KB"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("9223372036854775.808KB"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("8192PiB"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("9.223372036854775808EB"));
        assertEquals(9_223_372_036_854_775_000L, ByteSize.parseBytes("9.223372036854775EB"));
        // leading zeros do not count towards the digits that are refused early
        assertEquals(1, ByteSize.parseBytes("0".repeat(100) + "1"));
        assertEquals(1, ByteSize.parseBytes("0.000000001GB"));
    }

    @Test
    void aLongInputIsQuotedShortInTheMessage() {
        String junk = "x".repeat(10_000);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(junk));
        assertEquals("'" + "x".repeat(64) + "...' is not a size (examples: " + ByteSize.EXAMPLES + ")", e.getMessage());
        String fraction = "1." + "0".repeat(100) + "1KiB";
        assertEquals("'" + fraction.substring(0, 64) + "...' is not a whole number of bytes",
                assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(fraction)).getMessage());
        IllegalArgumentException nul = assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(null));
        assertEquals("'' is not a size (examples: " + ByteSize.EXAMPLES + ")", nul.getMessage());
    }

    @Test
    void negativeSizesCannotBeMade() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSize.ofBytes(-1));
        assertEquals("a size is at least 0 bytes, got -1", e.getMessage());
        assertThrows(ArithmeticException.class, () -> ByteSize.ofGiB(1L << 40));
        assertEquals(3L << 30, ByteSize.ofGiB(3).bytes());
        assertEquals(3L << 20, ByteSize.ofMiB(3).bytes());
        assertEquals(3L << 10, ByteSize.ofKiB(3).bytes());
        assertTrue(ByteSize.ofKiB(1).compareTo(ByteSize.ofBytes(1023)) > 0);
        assertEquals(ByteSize.ofMiB(32), ByteSize.parse("32MiB"));
    }

    @Test
    void theShortestExactFormIsTheOneOptionsTake() {
        assertEquals("0B", ByteSize.ofBytes(0).toString());
        assertEquals("1023B", ByteSize.ofBytes(1023).toString());
        assertEquals("1KiB", ByteSize.ofBytes(1024).toString());
        assertEquals("32MiB", ByteSize.ofMiB(32).toString());
        assertEquals("1.5GiB", ByteSize.ofMiB(1536).toString());
        assertEquals("10.25MiB", ByteSize.ofBytes(10_747_904).toString());
        assertEquals("1000000B", ByteSize.ofBytes(1_000_000).toString());
        assertEquals("976.5KiB", ByteSize.ofBytes(999_936).toString());
        assertEquals("7EiB", ByteSize.ofBytes(7L << 60).toString());
        assertEquals("8191.75PiB", ByteSize.ofBytes(32767L << 48).toString());
        assertEquals(Long.toString(Long.MAX_VALUE) + "B", ByteSize.ofBytes(Long.MAX_VALUE).toString());
    }

    @Test
    void theReportFormIsExactWithTwoDecimals() {
        assertEquals("1.00 GiB", ByteSize.format(1L << 30));
        assertEquals("1.50 GiB", ByteSize.format(1536L << 20));
        assertEquals("1000000 B", ByteSize.format(1_000_000));
        assertEquals("976.50 KiB", ByteSize.format(999_936));
        assertEquals("1023 B", ByteSize.format(1023));
        assertEquals("0 B", ByteSize.format(0));
        assertEquals("-5 B", ByteSize.format(-5));
        assertEquals("8191.75 PiB", ByteSize.format(32767L << 48));
    }

    @Test
    void everyExactFormParsesBackToTheSameValue() {
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 100_000; i++) {
            long v = switch (i % 4) {
                case 0 -> r.nextLong(0, Long.MAX_VALUE);
                case 1 -> r.nextLong(0, 1L << 40) << r.nextInt(0, 23);
                case 2 -> (long) r.nextInt(0, 1 << 20) * (1L << (10 * r.nextInt(0, 6))) / 100 * 100;
                default -> r.nextLong(0, 1 << 20);
            };
            if (v < 0) {
                continue;
            }
            assertEquals(v, ByteSize.parseBytes(ByteSize.format(v)), ByteSize.format(v));
            ByteSize s = ByteSize.ofBytes(v);
            assertEquals(s, ByteSize.parse(s.toString()), s.toString());
        }
        assertEquals(Long.MAX_VALUE, ByteSize.parseBytes(ByteSize.format(Long.MAX_VALUE)));
        for (SizeTable.Row row : SizeTable.ROWS) {
            if (row.valid()) {
                ByteSize s = ByteSize.ofBytes(row.bytes());
                assertEquals(s, ByteSize.parse(s.toString()), row.input());
            }
        }
    }

    @Test
    void approximateFormsRoundAsTheySay() {
        assertEquals("0 B", ByteSize.approx(0));
        assertEquals("1023 B", ByteSize.approx(1023));
        assertEquals("1.00 KiB", ByteSize.approx(1024));
        assertEquals("8.00 MiB", ByteSize.approx(8L << 20));
        assertEquals("5.59 GiB", ByteSize.approx(6_000_000_000L));
        assertEquals("1.50 GiB", ByteSize.approx(3L << 29));
        assertEquals("1.00 KiB", ByteSize.approx(1029), "1.0049 KiB to the nearest");
        assertEquals("1.01 KiB", ByteSize.approx(1030), "1.0059 KiB to the nearest");
        assertEquals("8.00 EiB", ByteSize.approx(Long.MAX_VALUE));

        assertEquals("12 B", ByteSize.roundedUp(12));
        assertEquals("1.5 KiB", ByteSize.roundedUp(1536));
        assertEquals("5 GiB", ByteSize.roundedUp(5L << 30));
        assertEquals("48.83 TiB", ByteSize.roundedUp(10_000 * (5L << 30)));
        assertEquals("1.01 KiB", ByteSize.roundedUp(1025), "never below the real value");
        assertEquals("10 MiB", ByteSize.roundedUp(10L << 20));
        assertEquals("8 EiB", ByteSize.roundedUp(Long.MAX_VALUE));
    }
}
