package io.dgen4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.dgen4j.unit.SizeTable;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code --sizes} reads the table every place that takes a size is held to (the CLI's options, the
 * S3 variable and the DLIO key: {@code SizesAgreeTest}): the same bytes, or the same refusal behind
 * {@code --sizes: }; a size outside the benchmark's own range (whole 4 KiB pages, 4 KiB to 64 GiB)
 * is refused by that range, never by the grammar.
 */
class BenchSizesAgreeTest {
    static Stream<SizeTable.Row> rows() {
        return SizeTable.ROWS.stream();
    }

    @ParameterizedTest
    @MethodSource("rows")
    void theSizesFlagReadsTheTable(SizeTable.Row row) {
        String[] args = {"--sizes", row.input()};
        if (row.input().contains(",")) {
            // ',' separates the list: '1,024' is the sizes 1 and 024, and 1 is refused by the range
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchMain.parse(args));
            assertEquals("--sizes: each size must be a multiple of 4KiB from 4KiB to 64GiB, got '1'", e.getMessage());
            return;
        }
        if (row.valid() && row.bytes() >= 4096 && row.bytes() % 4096 == 0 && row.bytes() <= BenchMain.MAX_SIZE) {
            assertEquals(List.of(Long.toString(row.bytes())), BenchMain.parse(args).sizes(), row.toString());
            return;
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BenchMain.parse(args),
                row.toString());
        assertEquals(row.valid()
                ? "--sizes: each size must be a multiple of 4KiB from 4KiB to 64GiB, got '" + row.input().strip() + "'"
                : "--sizes: " + row.refusal(), e.getMessage());
    }
}
