package io.dgen4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code bench}'s command line: defaults, and a usage error naming the option for every bad value. */
class BenchMainArgsTest {

    @Test
    void defaultsAndQuick() {
        BenchMain.Args a = BenchMain.parse(new String[0]);
        assertEquals(List.of("65536", "33554432", "1073741824"), a.sizes());
        assertEquals(List.of("1", "2"), a.threads());
        assertEquals(2, a.warmup());
        assertEquals(5, a.iterations());
        assertEquals(1, a.forks());
        assertEquals(List.of(), a.methods());
        BenchMain.Args q = BenchMain.parse(new String[] {"--quick", "--json"});
        assertEquals(List.of("1073741824"), q.sizes());
        assertEquals(1, q.warmup());
        assertEquals(1, q.iterations());
        assertTrue(q.json());
    }

    @Test
    void casesMapToTheirBenchmarkMethods() {
        BenchMain.Args a = BenchMain.parse(new String[] {"--cases", "native, native-verify,twin-vector", "--sizes",
                "1GiB,8192K", "--threads", "1,16", "--warmup", "0", "--numa-node", "1"});
        assertEquals(List.of("nativeFill", "nativeVerify", "twinVector"), a.methods());
        assertEquals(List.of("1073741824", "8388608"), a.sizes());
        assertEquals(List.of("1", "16"), a.threads());
        assertEquals(0, a.warmup());
        assertEquals(1, a.node());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "--threads 0|--threads must be in [1, 1024], got 0",
        "--threads 1,,2|--threads: '' is not a whole number",
        "--threads two|--threads: 'two' is not a whole number",
        "--sizes 0|--sizes: each size must be a multiple of 4KiB from 4KiB to 64GiB, got '0'",
        "--sizes 1000|--sizes: each size must be a multiple of 4KiB from 4KiB to 64GiB, got '1000'",
        "--sizes -4KiB|--sizes: '-4KiB' is not a size (examples: 4096, 64KiB, 32MiB, 1.5GiB, 10GB)",
        "--sizes 128GiB|--sizes: each size must be a multiple of 4KiB from 4KiB to 64GiB, got '128GiB'",
        "--sizes 99999999999G|--sizes: '99999999999G' is too large: sizes must be below 2^63 bytes (8 EiB)",
        "--sizes lots|--sizes: 'lots' is not a size (examples: 4096, 64KiB, 32MiB, 1.5GiB, 10GB)",
        "--iterations 0|--iterations must be in [1, 1000], got 0",
        "--warmup -1|--warmup must be in [0, 1000], got -1",
        "--time 0|--time must be in [1, 3600], got 0",
        "--forks 0|--forks must be in [1, 100], got 0",
        "--numa-node -1|--numa-node must be in [0, 4095], got -1",
        "--cases native,bogus|unknown case 'bogus' (cases: native,native-d2c3,native-verify,twin-vector,twin-scalar,"
                + "memset,jdk-random,splittable,jdk-xoshiro,vector-xoshiro,native-ffm-call,native-in-rust)",
        "--sizes|--sizes needs a value",
        "--bogus|unknown option --bogus (see --help)",
    })
    void badValuesAreUsageErrorsNamingTheOption(String line, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchMain.parse(line.split(" ")));
        assertEquals(message, e.getMessage());
    }
}
