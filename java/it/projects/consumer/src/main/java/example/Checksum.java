package example;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.MessageDigest;
import java.util.HexFormat;

/** What a user writes: generate a stream with the library and hash it. */
public final class Checksum {
    private Checksum() {}

    public static String sha256(DataSpec spec, Generator.Kind kind) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (Arena arena = Arena.ofConfined(); Generator gen = Generator.open(spec, kind, 0)) {
            MemorySegment chunk = arena.allocate(1 << 20, 4096);
            var cursor = gen.cursor();
            while (cursor.hasRemaining()) {
                long n = cursor.next(chunk);
                md.update(chunk.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE));
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
