package io.dgen4j.gen;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import java.util.Locale;
import java.util.zip.Deflater;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real compressors reach the asked ratio within 10 % over 64 MiB (zstd levels 1 and 3, lz4,
 * deflate), and ratio 1 is incompressible. Prints the measured table for the record.
 */
class CompressionRatioTest {
    private static final int SIZE = 64 << 20;
    private static final int FRAME = 4 << 20; // compressed in 4 MiB frames, as storage arrays do

    @BeforeAll
    static void header() {
        System.out.println("compress ratio over 64 MiB | zstd -1 | zstd -3 |   lz4   | deflate");
    }

    static byte[] stream(double compress) {
        DataSpec spec = DataSpec.builder().seed(11).size(SIZE).compressRatio(compress).build();
        return Streams.bytes(spec, Generator.Kind.NATIVE, 2);
    }

    static long zstd(byte[] data, int level) {
        long total = 0;
        for (int off = 0; off < data.length; off += FRAME) {
            byte[] frame = java.util.Arrays.copyOfRange(data, off, Math.min(data.length, off + FRAME));
            total += Zstd.compress(frame, level).length;
        }
        return total;
    }

    static long lz4(byte[] data) {
        LZ4Compressor c = LZ4Factory.fastestInstance().fastCompressor();
        byte[] out = new byte[c.maxCompressedLength(FRAME)];
        long total = 0;
        for (int off = 0; off < data.length; off += FRAME) {
            total += c.compress(data, off, Math.min(FRAME, data.length - off), out, 0, out.length);
        }
        return total;
    }

    static long deflate(byte[] data) {
        Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION);
        byte[] out = new byte[1 << 20];
        long total = 0;
        try {
            for (int off = 0; off < data.length; off += FRAME) {
                d.reset();
                d.setInput(data, off, Math.min(FRAME, data.length - off));
                d.finish();
                while (!d.finished()) {
                    total += d.deflate(out);
                }
            }
        } finally {
            d.end();
        }
        return total;
    }

    @ParameterizedTest(name = "compress {0}")
    @ValueSource(doubles = {1.5, 2, 3, 4, 8})
    void compressorsReachTheAskedRatio(double asked) {
        byte[] data = stream(asked);
        double z1 = (double) SIZE / zstd(data, 1);
        double z3 = (double) SIZE / zstd(data, 3);
        double l = (double) SIZE / lz4(data);
        double df = (double) SIZE / deflate(data);
        System.out.printf(Locale.ROOT, "%26.1f | %7.3f | %7.3f | %7.3f | %7.3f%n", asked, z1, z3, l, df);
        for (double got : new double[] {z1, z3, l, df}) {
            assertTrue(Math.abs(got / asked - 1) <= 0.10,
                    String.format(Locale.ROOT, "asked %.2f, got zstd1 %.3f zstd3 %.3f lz4 %.3f deflate %.3f", asked, z1, z3, l, df));
        }
    }

    @Test
    void ratioOneIsIncompressible() {
        byte[] data = stream(1.0);
        long z = zstd(data, 3);
        double saved = 1 - (double) z / SIZE;
        System.out.printf(Locale.ROOT, "%26.1f | zstd -3 saves %.4f %%%n", 1.0, saved * 100);
        assertTrue(saved < 0.01, "zstd saved " + saved * 100 + " % of incompressible data");
        assertTrue(lz4(data) >= SIZE * 0.99, "lz4 compressed incompressible data");
    }
}
