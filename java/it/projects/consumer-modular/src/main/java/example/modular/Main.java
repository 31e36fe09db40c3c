package example.modular;

import io.dgen4j.checkpoint.LoadResult;
import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.checkpoint.VerifyException;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * What a modular user writes: generate a stream, save a checkpoint, load it with verify. Run on
 * the module path; exits non-zero on the first failed check.
 */
public final class Main {
    private static int checks;

    private Main() {}

    public static void main(String[] args) throws Exception {
        Path work = Files.createDirectories(Path.of(args[0]));

        // On the module path, not the class path: both modules are named, and the library's
        // internal packages are not exported.
        Module lib = Generator.class.getModule();
        check(lib.isNamed() && lib.getName().equals("io.dgen4j"), "the library is the named module io.dgen4j, got " + lib);
        check(Main.class.getModule().getName().equals("example.modular"), "this class is in example.modular");
        check(lib.isExported("io.dgen4j.gen") && lib.isExported("io.dgen4j.checkpoint") && lib.isExported("io.dgen4j.storage"),
                "the API packages are exported");
        check(!lib.isExported("io.dgen4j.ffi") && !lib.isExported("io.dgen4j.nativelib"),
                "the FFM bindings and the loader are not exported");
        check(lib.isNativeAccessEnabled(), "--enable-native-access=io.dgen4j grants the library native access");

        // The native core loads from inside the module's jar (dgen4j.native.require=true: no fallback).
        DataSpec golden = DataSpec.builder().seed(7).size(65536).dedupRatio(2).compressRatio(3).build();
        try (Generator gen = Generator.open(golden)) {
            check(gen.implementation().equals("native"), "the native core is used, got " + gen.implementation());
        }
        // docs/FORMAT.md section 6, second row
        String want = "2e75df196fb011dad7710acd95e5647974a49ab12dda18da775727297c3eaa38";
        check(sha256(golden, Generator.Kind.NATIVE).equals(want), "native stream matches the golden value");
        check(sha256(golden, Generator.Kind.JAVA).equals(want), "pure-Java stream matches the golden value");

        // A checkpoint: saved, byte for byte the stream, loaded with verify; a flipped byte is found.
        long size = (5L << 20) + 7;
        DataSpec spec = DataSpec.builder().seed(11).size(size).dedupRatio(1.5).compressRatio(2).build();
        StreamingCheckpoint ckpt = StreamingCheckpoint.builder().spec(spec).chunkSize(1 << 20).build();
        Path file = work.resolve("ckpt.bin");
        ckpt.save(file.toString(), size);
        check(Files.size(file) == size, "the checkpoint holds " + size + " bytes, got " + Files.size(file));
        check(sha256(file).equals(sha256(spec, Generator.Kind.NATIVE)), "the checkpoint's bytes are the stream's");
        LoadResult loaded = ckpt.load(file.toString(), true);
        check(loaded.verified() && loaded.totalBytes() == size, "load with verify read and checked every byte");

        long offset = 3_000_001;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.flip();
            b.put(0, (byte) ~b.get(0));
            ch.write(b, offset);
        }
        try {
            ckpt.load(file.toString(), true);
            check(false, "a flipped byte fails the verify");
        } catch (VerifyException e) {
            check(e.offset().orElse(-1) == offset, "the verify names offset " + offset + ": " + e.getMessage());
        }
        System.out.println("consumer-modular: " + checks + " checks passed on the module path");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("consumer-modular: failed: " + what);
        }
        checks++;
    }

    private static String sha256(DataSpec spec, Generator.Kind kind) throws Exception {
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

    private static String sha256(Path file) throws IOException, java.security.NoSuchAlgorithmException {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(Files.readAllBytes(file));
        return HexFormat.of().formatHex(md.digest());
    }
}
