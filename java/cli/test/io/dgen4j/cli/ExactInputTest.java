package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.checkpoint.CheckpointException;
import io.dgen4j.cli.option.ByteSizeConverter;
import io.dgen4j.cli.report.Reports;
import io.dgen4j.unit.ByteSize;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Sizes are exact, what the formatter prints parses back, and every failure class has its code and one line. */
class ExactInputTest {
    @Test
    void sizesAreExactIntegers() {
        assertEquals(1536L << 20, ByteSizeConverter.parse("1.5GiB"));
        assertEquals(512, ByteSizeConverter.parse("0.5KiB"));
        assertEquals(1_500_000_000L, ByteSizeConverter.parse("1.5GB"));
        assertEquals(Long.MAX_VALUE, ByteSizeConverter.parse("9223372036854775807"));
        assertEquals(7L << 60, ByteSizeConverter.parse("7EiB"));
        assertEquals(3L << 50, ByteSizeConverter.parse("3 PiB"));
        assertEquals(0, ByteSizeConverter.parse("0"));
        // 1.1 MiB is 1153433.6 bytes: not a whole number, refused rather than rounded.
        for (String bad : new String[] {"1.1MiB", "1.5B", "0.1", "9223372036854775808", "8EiB", "10EB", "1e3",
                "-1", "", "1 2", "1.GiB", ".5GiB", "1,024MiB", "12 parsecs", "0x10"}) {
            assertThrows(CommandLine.TypeConversionException.class, () -> ByteSizeConverter.parse(bad), bad);
        }
        var e = assertThrows(CommandLine.TypeConversionException.class, () -> ByteSizeConverter.parse("1.1MiB"));
        assertEquals("'1.1MiB' is not a whole number of bytes (1153433.6)", e.getMessage());
        var big = assertThrows(CommandLine.TypeConversionException.class, () -> ByteSizeConverter.parse("8EiB"));
        assertEquals("'8EiB' is too large: sizes must be below 2^63 bytes (8 EiB)", big.getMessage());
    }

    @Test
    void everythingTheFormatterPrintsParsesBackToTheSameValue() {
        assertEquals("1.00 GiB", ByteSize.format(1L << 30));
        assertEquals("1.50 GiB", ByteSize.format(1536L << 20));
        assertEquals("1000000 B", ByteSize.format(1_000_000));
        assertEquals("976.50 KiB", ByteSize.format(999_936));
        assertEquals("1023 B", ByteSize.format(1023));
        assertEquals("8191.75 PiB", ByteSize.format(32767L << 48));
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
            assertEquals(v, ByteSizeConverter.parse(ByteSize.format(v)), ByteSize.format(v));
        }
        assertEquals(Long.MAX_VALUE, ByteSizeConverter.parse(ByteSize.format(Long.MAX_VALUE)));
        assertEquals(1234L << 20, ByteSizeConverter.parse(Reports.mib(1234L << 20)), "the MiB figures of reports parse too");
    }

    @Test
    void everyFailureClassHasItsCodeAndOneLine() {
        assertEquals(2, ExitCodes.of(new IllegalArgumentException("x")));
        assertEquals(3, ExitCodes.of(new NoSuchFileException("/x")));
        assertEquals(3, ExitCodes.of(new CheckpointException("save failed", 5, null)));
        assertEquals(130, ExitCodes.of(new InterruptedIOException("interrupted")));
        assertEquals(130, ExitCodes.of(new IllegalStateException("x", new InterruptedException())));
        assertEquals(3, ExitCodes.of(new IOException("GetObject timed out", new java.net.SocketTimeoutException(
                "Read timed out"))), "a socket timeout is an InterruptedIOException, but no interrupt");
        assertEquals("interrupted", Errors.describe(new InterruptedException()));
        assertEquals("HEAD failed: Unexpected status line: ??GARBAGE", Errors.describe(new IOException(
                "HEAD failed: Unexpected status line: \u0000\uFFFDGARBAGE")), "no control characters of an answer");
        assertEquals(1, ExitCodes.of(new OutOfMemoryError("Java heap space")));
        assertEquals(1, ExitCodes.of(new StackOverflowError()));
        assertEquals(1, ExitCodes.of(new NullPointerException()));
        assertEquals("no such file or directory (/x/y)", Errors.describe(new NoSuchFileException("/x/y")));
        assertEquals("permission denied (/x)", Errors.describe(new AccessDeniedException("/x")));
        assertEquals("save to /x failed: no such file or directory (/d)", Errors.describe(
                new CheckpointException("save to /x failed: /d", -1, new NoSuchFileException("/d"))));
        assertEquals("read of /x failed (at byte offset 4096)", Errors.describe(
                new CheckpointException("read of /x failed", 4096, new IOException("EIO"))));
        assertTrue(Errors.describe(new OutOfMemoryError("Java heap space")).startsWith("out of memory: the Java heap ("));
        assertEquals("internal error: stack overflow (please report it)", Errors.describe(new StackOverflowError()));
        assertEquals("cannot load a part of dgen4j: no libfoo", Errors.describe(new UnsatisfiedLinkError("no libfoo")));
        assertEquals("internal error: null pointer exception", Errors.describe(new NullPointerException()));
        assertEquals("two lines", Errors.describe(new IllegalStateException("two\n  lines")));
        // What a downcall throws reaches us wrapped by the bindings.
        AssertionError wrapped = new AssertionError("should not reach here", new IllegalArgumentException("bad segment"));
        assertEquals("bad segment", Errors.describe(wrapped));
        assertEquals(2, ExitCodes.of(wrapped));
    }
}
