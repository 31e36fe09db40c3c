package io.dgen4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.unit.SizeTable;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code bench s3}'s command line: each backend's defaults as its old measurement had them, usage errors. */
class S3BenchArgsTest {

    @Test
    void eachBackendKeepsItsDefaults() {
        S3Bench.Args a = S3Bench.parse(new String[0]);
        assertEquals(List.of("aws", "crt", "minio"), a.backends());
        assertEquals(512L << 20, a.size());
        assertEquals(32L << 20, a.part());
        assertEquals(4, a.inFlightOf("aws"));
        assertEquals(2, a.roundsOf("aws"));
        assertEquals(2, a.inFlightOf("crt"));
        assertEquals(4, a.roundsOf("crt"));
        assertEquals(4, a.inFlightOf("minio"));
        assertEquals(3, a.roundsOf("minio"));
        assertTrue(a.plain() && a.streaming() && !a.driver());
        S3Bench.Args e = S3Bench.parse(new String[] {"--endpoints", "--backend", "crt"});
        assertEquals(List.of("crt"), e.backends());
        assertEquals(256L << 20, e.size());
        assertEquals(8L << 20, e.part());
        assertEquals(4, e.inFlightOf("crt"));
        assertEquals(3, e.roundsOf("crt"));
        S3Bench.Args given = S3Bench.parse(new String[] {"--backend", "minio", "--size", "256MiB", "--part", "8MiB",
            "--in-flight", "3", "--rounds", "5", "--sides", "driver"});
        assertEquals(256L << 20, given.size());
        assertEquals(8L << 20, given.part());
        assertEquals(3, given.inFlightOf("minio"));
        assertEquals(5, given.roundsOf("minio"));
        assertTrue(given.driver() && given.plain());
        assertFalse(given.streaming());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--backend,s3          | --backend must be aws, crt, minio or all, got 's3'",
        "--sides,none          | --sides must be both, plain, streaming, driver or all, got 'none'",
        "--size,4MiB           | --size must be a multiple of 4KiB from 32MiB to 64GiB, got '4MiB'",
        "--part,4MiB           | --part must be a multiple of 4KiB from 5MiB to 5GiB, got '4MiB'",
        "--in-flight,0         | --in-flight must be in [1, 256], got 0",
        "--rounds              | --rounds needs a value",
        "--bucket,x            | unknown option --bucket (see --help)",
    })
    void aBadValueIsAUsageErrorNamingTheOption(String args, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> S3Bench.parse(args.strip().split(",")));
        assertEquals(message.strip(), e.getMessage());
    }

    static Stream<SizeTable.Row> rows() {
        return SizeTable.ROWS.stream();
    }

    /** {@code --size} reads the table every place that takes a size is held to (SizesAgreeTest). */
    @ParameterizedTest
    @MethodSource("rows")
    void theSizeFlagReadsTheTable(SizeTable.Row row) {
        String[] args = {"--size", row.input(), "--part", "5MiB"};
        if (row.valid() && row.bytes() >= 5L << 20 && row.bytes() % 4096 == 0 && row.bytes() <= 64L << 30) {
            assertEquals(row.bytes(), S3Bench.parse(args).size(), row.toString());
            return;
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> S3Bench.parse(args),
                row.toString());
        assertEquals(row.valid()
                ? "--size must be a multiple of 4KiB from 5MiB to 64GiB, got '" + row.input().strip() + "'"
                : "--size: " + row.refusal(), e.getMessage());
    }
}
