package io.dgen4j.gen;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Test helpers: whole-stream bytes and hashes from either implementation. */
public final class Streams {
    private Streams() {}

    public static byte[] bytes(Generator gen, long offset, long length) {
        // Shared, so that the twin's parallel path runs too (a confined segment is filled on one thread).
        try (Arena arena = Arena.ofShared()) {
            MemorySegment seg = arena.allocate(Math.max(1, length), 4096);
            gen.fill(seg, offset, length);
            return seg.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    public static byte[] bytes(DataSpec spec, Generator.Kind kind, int threads) {
        try (Generator gen = Generator.open(spec, kind, threads)) {
            return bytes(gen, 0, spec.size());
        }
    }

    public static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
