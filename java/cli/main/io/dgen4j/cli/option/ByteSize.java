package io.dgen4j.cli.option;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Exact byte sizes: {@code 4096}, {@code 64KiB}, {@code 32M}, {@code 1.5GiB}, {@code 10GB}. The
 * number is read as an exact decimal, so a size is accepted only when it is a whole number of
 * bytes below 2^63; {@link #format} prints only what {@link #parse} reads back to the same value.
 */
public final class ByteSize implements CommandLine.ITypeConverter<Long> {
    private static final Pattern P = Pattern.compile("^\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)\\s*$");
    private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    /** Binary units as {@link #format} prints them, index i meaning 1024^i. */
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    private static final String EXAMPLES = "examples: 4096, 64KiB, 32MiB, 1.5GiB, 10GB";

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    /** The exact number of bytes {@code value} names. */
    public static long parse(String value) {
        Matcher m = P.matcher(value == null ? "" : value);
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a size (" + EXAMPLES + ")");
        }
        BigDecimal unit = unit(m.group(2));
        if (unit == null) {
            throw new CommandLine.TypeConversionException("unknown size unit '" + m.group(2) + "' in '" + value
                    + "' (use B, KiB, MiB, GiB, TiB, PiB, EiB, KB, MB, GB, TB, PB, EB or K, M, G, T, P, E = KiB...)");
        }
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(unit);
        if (bytes.signum() != 0 && bytes.stripTrailingZeros().scale() > 0) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a whole number of bytes (" + bytes.stripTrailingZeros().toPlainString() + ")");
        }
        if (bytes.compareTo(MAX) > 0) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is too large: sizes must be below 2^63 bytes (8 EiB)");
        }
        return bytes.longValueExact();
    }

    private static BigDecimal unit(String u) {
        long binary = switch (u.toLowerCase(Locale.ROOT)) {
            case "", "b" -> 1;
            case "k", "ki", "kib" -> 1L << 10;
            case "m", "mi", "mib" -> 1L << 20;
            case "g", "gi", "gib" -> 1L << 30;
            case "t", "ti", "tib" -> 1L << 40;
            case "p", "pi", "pib" -> 1L << 50;
            case "e", "ei", "eib" -> 1L << 60;
            default -> 0;
        };
        if (binary != 0) {
            return BigDecimal.valueOf(binary);
        }
        int decimalExponent = switch (u.toLowerCase(Locale.ROOT)) {
            case "kb" -> 3;
            case "mb" -> 6;
            case "gb" -> 9;
            case "tb" -> 12;
            case "pb" -> 15;
            case "eb" -> 18;
            default -> -1;
        };
        return decimalExponent < 0 ? null : BigDecimal.TEN.pow(decimalExponent);
    }

    /**
     * Formats bytes for people, exactly: the largest binary unit in which the value is at least 1
     * and has at most two decimals ({@code 1.00 GiB}, {@code 1.50 GiB}, {@code 976.56 KiB} is not
     * exact so {@code 1000000 B}); {@link #parse} reads every output back to the same value.
     */
    public static String format(long bytes) {
        if (bytes < 0) {
            return bytes + " B";
        }
        BigInteger hundredths = BigInteger.valueOf(bytes).multiply(BigInteger.valueOf(100));
        for (int i = UNITS.length - 1; i > 0; i--) {
            BigInteger unit = BigInteger.ONE.shiftLeft(10 * i);
            if (bytes >= unit.longValue() && hundredths.mod(unit).signum() == 0) {
                BigDecimal v = new BigDecimal(hundredths.divide(unit), 2);
                return v.toPlainString() + " " + UNITS[i];
            }
        }
        return bytes + " B";
    }
}
