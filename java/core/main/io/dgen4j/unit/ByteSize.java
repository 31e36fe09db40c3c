package io.dgen4j.unit;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A whole number of bytes, read and written with the one grammar of every option, variable and
 * configuration key of dgen4j.
 *
 * <p>The grammar: a decimal number, optional blanks, then a unit (case does not matter):
 * none or {@code B} for bytes; {@code KiB}, {@code MiB}, {@code GiB}, {@code TiB}, {@code PiB},
 * {@code EiB} for powers of 1024 (also written {@code K}…{@code E} or {@code Ki}…{@code Ei});
 * {@code KB}, {@code MB}, {@code GB}, {@code TB}, {@code PB}, {@code EB} for powers of 1000. So
 * {@code 8MB} is 8,000,000 bytes and {@code 8MiB} (or {@code 8M}) is 8,388,608. A fraction is
 * read exactly and accepted only when it names whole bytes ({@code 1.5KiB} is 1536; {@code 1.3B}
 * and {@code 1.1MiB} are refused, never rounded); signs, exponents, separators and sizes of 2^63
 * bytes or more are refused. Every refusal is an {@link IllegalArgumentException} with a one-line
 * message that quotes the input; callers put the option, variable or key in front of it.
 *
 * <p>{@link #toString()} writes the shortest exact form ({@code 32MiB}, {@code 1.5GiB},
 * {@code 1000000B}) and {@link #format(long)} the exact form for reports ({@code 32.00 MiB}); both
 * parse back to the same value. {@link #approx(long)} and {@link #roundedUp(long)} are for people
 * only: measured amounts and limits.
 *
 * @param bytes the number of bytes, at least 0
 */
public record ByteSize(long bytes) implements Comparable<ByteSize> {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)[ \\t]*([a-zA-Z]*)");
    /** Binary units as the formats write them, index i meaning 1024^i. */
    private static final String[] BINARY = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    /** Inputs are quoted up to this many characters in messages. */
    private static final int SHOWN = 64;
    /** Sizes as help texts and messages give them for examples. */
    public static final String EXAMPLES = "4096, 64KiB, 32MiB, 1.5GiB, 10GB";
    /** The units the grammar reads, as messages list them. */
    public static final String UNITS = "B, KiB, MiB, GiB, TiB, PiB, EiB (= K...E), KB, MB, GB, TB, PB, EB (powers of 1000)";

    /**
     * A size of {@code bytes}.
     *
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public ByteSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("a size is at least 0 bytes, got " + bytes);
        }
    }

    /** A size of {@code bytes} bytes. */
    public static ByteSize ofBytes(long bytes) {
        return new ByteSize(bytes);
    }

    /** A size of {@code n} KiB; {@link ArithmeticException} past 2^63 bytes. */
    public static ByteSize ofKiB(long n) {
        return new ByteSize(Math.multiplyExact(n, 1L << 10));
    }

    /** A size of {@code n} MiB; {@link ArithmeticException} past 2^63 bytes. */
    public static ByteSize ofMiB(long n) {
        return new ByteSize(Math.multiplyExact(n, 1L << 20));
    }

    /** A size of {@code n} GiB; {@link ArithmeticException} past 2^63 bytes. */
    public static ByteSize ofGiB(long n) {
        return new ByteSize(Math.multiplyExact(n, 1L << 30));
    }

    /**
     * The size {@code text} names (see the class comment for the grammar).
     *
     * @throws IllegalArgumentException with a one-line message quoting {@code text} when it names
     *     no size, a fraction of a byte, or 2^63 bytes or more
     */
    public static ByteSize parse(String text) {
        String t = text == null ? "" : text.strip();
        Matcher m = SIZE.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException(shown(text) + " is not a size (examples: " + EXAMPLES + ")");
        }
        BigDecimal unit = unit(m.group(2));
        if (unit == null) {
            throw new IllegalArgumentException("unknown size unit '" + m.group(2) + "' in " + shown(text) + " (use "
                    + UNITS + ")");
        }
        String number = m.group(1);
        int dot = number.indexOf('.');
        String whole = (dot < 0 ? number : number.substring(0, dot)).replaceFirst("^0+(?=.)", "");
        if (whole.length() > 20) {
            // past 2^63 in any unit: refused before the exact arithmetic below has to carry it
            throw tooLarge(text);
        }
        BigDecimal bytes = new BigDecimal(number).multiply(unit);
        if (bytes.signum() != 0 && bytes.stripTrailingZeros().scale() > 0) {
            String exact = bytes.stripTrailingZeros().toPlainString();
            throw new IllegalArgumentException(shown(text) + " is not a whole number of bytes"
                    + (exact.length() <= SHOWN ? " (" + exact + ")" : ""));
        }
        if (bytes.compareTo(MAX) > 0) {
            throw tooLarge(text);
        }
        return new ByteSize(bytes.longValueExact());
    }

    /** {@link #parse}'s number of bytes. */
    public static long parseBytes(String text) {
        return parse(text).bytes();
    }

    private static IllegalArgumentException tooLarge(String text) {
        return new IllegalArgumentException(shown(text) + " is too large: sizes must be below 2^63 bytes (8 EiB)");
    }

    private static BigDecimal unit(String u) {
        return switch (u.toLowerCase(Locale.ROOT)) {
            case "", "b" -> BigDecimal.ONE;
            case "k", "ki", "kib" -> binary(1);
            case "m", "mi", "mib" -> binary(2);
            case "g", "gi", "gib" -> binary(3);
            case "t", "ti", "tib" -> binary(4);
            case "p", "pi", "pib" -> binary(5);
            case "e", "ei", "eib" -> binary(6);
            case "kb" -> BigDecimal.TEN.pow(3);
            case "mb" -> BigDecimal.TEN.pow(6);
            case "gb" -> BigDecimal.TEN.pow(9);
            case "tb" -> BigDecimal.TEN.pow(12);
            case "pb" -> BigDecimal.TEN.pow(15);
            case "eb" -> BigDecimal.TEN.pow(18);
            default -> null;
        };
    }

    private static BigDecimal binary(int power) {
        return new BigDecimal(BigInteger.ONE.shiftLeft(10 * power));
    }

    /** The input in quotes, control characters as '?' and cut to {@value #SHOWN} characters, for one-line messages. */
    private static String shown(String text) {
        if (text == null) {
            return "''";
        }
        StringBuilder b = new StringBuilder(Math.min(text.length(), SHOWN) + 5).append('\'');
        text.codePoints().limit(SHOWN).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return b.append(text.codePointCount(0, text.length()) > SHOWN ? "...'" : "'").toString();
    }

    /**
     * The shortest exact form, as options take it: the largest binary unit that holds the size in
     * at most two decimals ({@code 32MiB}, {@code 1.5GiB}, {@code 10.24MiB}), else bytes
     * ({@code 1000000B}). {@link #parse} reads it back to the same size.
     */
    @Override
    public String toString() {
        int u = exactUnit(bytes);
        return inUnit(bytes, u).stripTrailingZeros().toPlainString() + BINARY[u];
    }

    /**
     * Bytes for reports, exactly: the largest binary unit in which the value is at least 1 and has
     * at most two decimals, with two decimals ({@code 1.00 GiB}, {@code 976.50 KiB}), else bytes
     * ({@code 1000000 B}); {@link #parse} reads every output back to the same value.
     */
    public static String format(long bytes) {
        int u = bytes < 0 ? 0 : exactUnit(bytes);
        return u == 0 ? bytes + " B" : inUnit(bytes, u).toPlainString() + " " + BINARY[u];
    }

    /** The largest binary unit that {@code bytes} fills and that holds it exactly in two decimals (0: bytes). */
    private static int exactUnit(long bytes) {
        BigInteger hundredths = BigInteger.valueOf(bytes).multiply(BigInteger.valueOf(100));
        for (int i = BINARY.length - 1; i > 0; i--) {
            long unit = 1L << (10 * i);
            if (bytes >= unit && hundredths.mod(BigInteger.valueOf(unit)).signum() == 0) {
                return i;
            }
        }
        return 0;
    }

    /** {@code bytes} in binary unit {@code u}, exactly, with two decimals (none for bytes). */
    private static BigDecimal inUnit(long bytes, int u) {
        return u == 0 ? BigDecimal.valueOf(bytes) : new BigDecimal(bytes).divide(binary(u)).setScale(2);
    }

    /** The largest binary unit that {@code bytes} fills at least once (0 for bytes). */
    private static int largestUnit(long bytes) {
        int u = 0;
        while (u < BINARY.length - 1 && bytes >= 1L << (10 * (u + 1))) {
            u++;
        }
        return u;
    }

    /**
     * A measured amount for people: the largest binary unit it fills, two decimals rounded to the
     * nearest ({@code 5.59 GiB}, {@code 8.00 MiB}, {@code 1023 B}). Not exact: do not parse it.
     */
    public static String approx(long bytes) {
        return inLargestUnit(bytes, RoundingMode.HALF_UP, false);
    }

    /**
     * A limit or a suggested minimum for people: the largest binary unit it fills, at most two
     * decimals rounded up, so that it is never below the real one ({@code 48.83 TiB},
     * {@code 1.5 KiB}, {@code 5 GiB}, {@code 12 B}).
     */
    public static String roundedUp(long bytes) {
        return inLargestUnit(bytes, RoundingMode.CEILING, true);
    }

    private static String inLargestUnit(long bytes, RoundingMode rounding, boolean trim) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        int u = largestUnit(bytes);
        BigDecimal v = new BigDecimal(bytes).divide(binary(u), 2, rounding);
        return (trim ? v.stripTrailingZeros().toPlainString() : v.toPlainString()) + " " + BINARY[u];
    }

    @Override
    public int compareTo(ByteSize other) {
        return Long.compare(bytes, other.bytes);
    }
}
