package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.cli.option.ByteSizeConverter;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import io.dgen4j.gen.Streams;
import io.dgen4j.unit.ByteSize;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI's generate and info commands, run in-process. */
class CliTest {
    record Result(int code, String out, String err) {}

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void generateIsTheSameAtAnyThreadCountAndImplementation(@TempDir Path dir) throws Exception {
        DataSpec spec = DataSpec.builder().size(24L << 20).dedupRatio(2).compressRatio(3).seed(7).build();
        byte[] expected = Streams.bytes(spec, Generator.Kind.JAVA, 1);
        for (List<String> variant : List.of(List.of("--threads", "1"), List.of("--threads", "2"),
                List.of("--generator", "java", "--threads", "2"), List.of("--chunk", "1000000"))) {
            Path f = dir.resolve("out-" + String.join("", variant));
            var args = new java.util.ArrayList<>(List.of("generate", "--size", "24MiB", "--dedup", "2",
                    "--compress", "3", "--seed", "7", "--out", f.toString()));
            args.addAll(variant);
            Result r = run(args.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().contains("seed 7"), r.out());
            assertTrue(r.out().contains("GB/s"), r.out());
            assertArrayEquals(expected, Files.readAllBytes(f), "variant " + variant);
        }
    }

    @Test
    void generateJsonReportsTheSeed() {
        Result r = run("generate", "--size", "1MiB", "--json");
        assertEquals(0, r.code(), r.err());
        String json = r.out().trim();
        assertTrue(json.startsWith("{\"bytes\":1048576,\"seed\":\"" + Long.toUnsignedString(DataSpec.processSeed()) + "\""), json);
        assertTrue(json.contains("\"seedRandom\":true"), json);
        assertTrue(json.contains("\"fillGBps\":"), json);
    }

    @Test
    void badInputGetsOneClearLine() {
        Result size = run("generate", "--size", "12 parsecs");
        assertEquals(2, size.code());
        assertTrue(size.err().contains("unknown size unit 'parsecs' in '12 parsecs'"), size.err());
        Result block = run("generate", "--size", "1MiB", "--block-size", "3000");
        assertEquals(2, block.code());
        assertTrue(block.err().contains("block size must be a power of two in [512, 67108864] bytes, got 3000"), block.err());
        Result ratio = run("generate", "--size", "1MiB", "--dedup", "0.5");
        assertEquals(2, ratio.code());
        assertTrue(ratio.err().contains("dedup ratio must be a finite number >= 1, got 0.5"), ratio.err());
        Result dir = run("generate", "--size", "1MiB", "--out", "/nonexistent-dir/x");
        assertEquals(3, dir.code());
        assertTrue(dir.err().startsWith("dgen4j: "), dir.err());
        assertTrue(dir.err().contains("/nonexistent-dir/x"), dir.err());
    }

    @Test
    void infoNamesTheGeneratorAndNodes() {
        Result r = run("info");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("generator     native (Rust core, "), r.out());
        assertTrue(r.out().contains("numa nodes    "), r.out());
        Result j = run("info", "--json");
        assertTrue(j.out().startsWith("{\"generator\":\"native\""), j.out());
        assertTrue(j.out().contains("\"numaNodes\":[{\"node\":0,\"cpus\":[0"), j.out());
    }

    @Test
    void sizesParse() {
        assertEquals(1L << 30, ByteSizeConverter.parse("1GiB"));
        assertEquals(256L << 20, ByteSizeConverter.parse("256MiB"));
        assertEquals(32L << 20, ByteSizeConverter.parse("32M"));
        assertEquals(10_000_000_000L, ByteSizeConverter.parse("10GB"));
        assertEquals(1536L << 20, ByteSizeConverter.parse("1.5GiB"));
        assertEquals(4096, ByteSizeConverter.parse("4096"));
        assertEquals("1.00 GiB", ByteSize.format(1L << 30));
    }
}
