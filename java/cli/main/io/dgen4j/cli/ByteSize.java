package io.dgen4j.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses sizes such as {@code 1GiB}, {@code 256MiB}, {@code 32M}, {@code 1.5G}, {@code 4096}, {@code 10GB}. */
final class ByteSize implements CommandLine.ITypeConverter<Long> {
    private static final Pattern P = Pattern.compile("^\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)\\s*$");

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    static long parse(String value) {
        Matcher m = P.matcher(value == null ? "" : value);
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a size (examples: 4096, 64KiB, 32MiB, 1GiB, 10GB)");
        }
        double number = Double.parseDouble(m.group(1));
        double unit = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "", "b" -> 1;
            case "k", "ki", "kib" -> 1L << 10;
            case "m", "mi", "mib" -> 1L << 20;
            case "g", "gi", "gib" -> 1L << 30;
            case "t", "ti", "tib" -> 1L << 40;
            case "kb" -> 1e3;
            case "mb" -> 1e6;
            case "gb" -> 1e9;
            case "tb" -> 1e12;
            default -> throw new CommandLine.TypeConversionException(
                    "unknown size unit '" + m.group(2) + "' in '" + value + "' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
        };
        double bytes = number * unit;
        if (bytes != Math.rint(bytes) || bytes > Long.MAX_VALUE) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a whole number of bytes below 2^63");
        }
        return (long) bytes;
    }

    /** Formats bytes for people: {@code 1.00 GiB}. */
    static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int i = 0;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return i == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.2f %s", v, units[i]);
    }
}
