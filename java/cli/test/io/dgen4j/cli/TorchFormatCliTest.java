package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dgen4j.format.Layout;
import io.dgen4j.format.LayoutWriter;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TensorList;
import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code save --format torch} judged by the real reader: Debian's python3-torch (torch 1.13) loads
 * the files with {@code torch.load(weights_only=True)} and Python's {@code zipfile} checks every
 * member's CRC-32; damage is reported naming the record or tensor. Fails, never skips, without torch.
 */
class TorchFormatCliTest {
    /** Debian's python3-torch installs for the system Python; a pyenv python3 on the PATH lacks it. */
    private static final List<String> PYTHONS = List.of("/usr/bin/python3", "python3");
    private static String python;

    @TempDir
    Path dir;

    /** More than 10 tensors (torch writes data/10 before data/2), nested dicts, every float dtype, a scalar. */
    private static final String TENSORS = """
            # name dtype shape
            model/embed.weight float32 [300,64]
            model/layers.0.weight bfloat16 [64,64]
            model/layers.0.bias float16 [64]
            model/layers.1.weight bfloat16 [64,64]
            model/layers.1.bias float16 [64]
            model/layers.2.weight float64 [32,3,3,2]
            model/layers.2.bias int32 [7]
            model/head.weight float32 [10,64]
            optimizer/state/0/exp_avg float32 [4099]
            optimizer/state/0/exp_avg_sq float32 [4099]
            optimizer/state/0/step int64 []
            optimizer/param_groups.lr float32 [1]
            empty float32 [0,4]
            """;

    @BeforeAll
    static void findTorch() throws Exception {
        StringBuilder tried = new StringBuilder();
        for (String p : PYTHONS) {
            try {
                Process pr = new ProcessBuilder(p, "-c", "import torch; print(torch.__version__)")
                        .redirectErrorStream(true).start();
                String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0) {
                    python = p;
                    return;
                }
                tried.append(p).append(": ").append(out.lines().reduce((a, b) -> b).orElse("")).append("; ");
            } catch (java.io.IOException e) {
                tried.append(p).append(": ").append(e.getMessage()).append("; ");
            }
        }
        fail("TorchFormatCliTest needs a python3 with torch (Debian: apt-get install python3-torch; .ci/run installs"
                + " it): " + tried);
    }

    private static String python(String script, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(python, "-c", script));
        cmd.addAll(List.of(args));
        Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(pr.waitFor(120, TimeUnit.SECONDS), "python timed out");
        assertEquals(0, pr.exitValue(), "python failed: " + out);
        return out;
    }

    /** name dtype shape sha256 of each tensor as torch.load(weights_only=True) returns it. */
    private static final String LOAD = """
            import sys, hashlib, warnings, zipfile
            warnings.filterwarnings("ignore")
            import torch
            sd = torch.load(sys.argv[1], weights_only=True)
            def walk(d, p):
                for k, v in d.items():
                    if isinstance(v, dict):
                        walk(v, p + k + "/")
                    else:
                        b = v.reshape(-1).view(torch.uint8).numpy().tobytes() if v.numel() else b""
                        print(p + k, str(v.dtype).replace("torch.", ""), list(v.shape), hashlib.sha256(b).hexdigest())
            walk(sd, "")
            z = zipfile.ZipFile(sys.argv[1])
            for i in z.infolist():
                z.read(i)
            print("testzip", z.testzip())
            print("members", " ".join(i.filename for i in z.infolist()))
            """;

    @Test
    void torchLoadReadsWhatSaveWroteAndEveryCrcHolds() throws Exception {
        Path list = dir.resolve("tensors.txt");
        Files.writeString(list, TENSORS);
        Path f = dir.resolve("ck.pt");
        CliTest.Result s = CliTest.run("save", f.toString(), "--format", "torch", "--tensors", list.toString(),
                "--chunk", "64KiB", "--seed", "11", "--compress", "2", "--json");
        assertEquals(0, s.code(), s.err());
        List<Tensor> tensors = TensorList.parse(TENSORS, "test");
        Layout layout = Layout.of(Layout.Format.TORCH, tensors, true, 64);
        assertEquals(layout.size(), Files.size(f));
        String manifest = Files.readString(Path.of(f + ".manifest.json"));
        assertTrue(manifest.contains("\"format\":\"torch\"") && manifest.contains("\"crc\":\"crc32\"")
                && manifest.contains("optimizer/state/0/step int64 []"), manifest);

        String out = python(LOAD, f.toString());
        DataSpec spec = DataSpec.builder().seed(11).compressRatio(2).size(layout.payloadBytes()).build();
        List<String> expected = new ArrayList<>();
        try (Generator gen = Generator.open(spec); Arena arena = Arena.ofConfined()) {
            long stream = 0;
            List<String> byName = new ArrayList<>();
            for (int i = 0; i < layout.fileOrder().size(); i++) {
                Tensor t = layout.fileOrder().get(i);
                MemorySegment bytes = arena.allocate(Math.max(1, t.bytes())).asSlice(0, t.bytes());
                gen.fill(bytes, stream);
                stream += t.bytes();
                byName.add(t.name() + " " + t.dtype().label() + " " + shape(t) + " " + sha256(bytes));
            }
            for (Tensor t : tensors) { // torch.load gives the dicts in the order the list names them
                expected.add(byName.stream().filter(l -> l.startsWith(t.name() + " ")).findFirst().orElseThrow());
            }
        }
        List<String> got = out.lines().filter(l -> !l.startsWith("testzip") && !l.startsWith("members")).toList();
        assertEquals(expected, got, out);
        assertTrue(out.contains("testzip None"), out);
        assertTrue(out.contains("members archive/data.pkl archive/.format_version archive/.storage_alignment "
                + "archive/byteorder archive/data/0 archive/data/1 archive/data/10 archive/data/11 archive/data/12 "
                + "archive/data/2 "), out);
        assertTrue(out.contains("archive/version archive/.data/serialization_id"), out);

        CliTest.Result l = CliTest.run("load", f.toString(), "--verify", "--chunk", "64KiB");
        assertEquals(0, l.code(), l.err());
        assertTrue(l.out().contains("every byte verified"), l.out());
    }

    @Test
    void thePickleIsTorchsOwnByteForByte() throws Exception {
        Path f = dir.resolve("tiny.pt");
        assertEquals(0, CliTest.run("save", f.toString(), "--format", "torch", "--model", "tiny", "--seed", "1").code());
        // torch.save of the same state dict (the loaded tensors, cloned), its data.pkl compared with ours
        String out = python("""
                import sys, zipfile, warnings
                warnings.filterwarnings("ignore")
                import torch
                sd = torch.load(sys.argv[1], weights_only=True)
                def clone(d):
                    return {k: clone(v) if isinstance(v, dict) else v.clone() for k, v in d.items()}
                torch.save(clone(sd), sys.argv[2])
                ours = zipfile.ZipFile(sys.argv[1]).read("archive/data.pkl")
                z = zipfile.ZipFile(sys.argv[2])
                theirs = z.read([n for n in z.namelist() if n.endswith("/data.pkl")][0])
                print("same" if ours == theirs else "differ %d %d" % (len(ours), len(theirs)))
                """, f.toString(), dir.resolve("ref.pt").toString());
        assertEquals("same", out.strip());
    }

    @Test
    void damageIsReportedNamingTheRecordOrTensor() throws Exception {
        Path f = dir.resolve("ck.pt");
        assertEquals(0, CliTest.run("save", f.toString(), "--format", "torch", "--model", "tiny", "--seed", "5",
                "--chunk", "64KiB").code());
        Layout layout = Layout.of(Layout.Format.TORCH, TensorList.model("tiny"), true, 64);
        long data = layout.offsetOf(2) + 10;
        long header = layout.offsetOf(2) - 70; // inside the local header of archive/data/2 (its name or extras)
        long crc = layout.offsetOf(2) + layout.fileOrder().get(2).bytes() + 4; // its descriptor's CRC

        flip(f, data);
        CliTest.Result bad = CliTest.run("load", f.toString(), "--verify", "--chunk", "64KiB");
        assertEquals(4, bad.code(), bad.err());
        String member = layout.memberOf(2); // archive/data/10: torch sorts the keys as strings
        assertEquals("archive/data/10", member);
        assertTrue(bad.err().contains("first mismatch at byte offset " + data + ", in tensor "
                + layout.fileOrder().get(2).name() + " (" + member + ") byte 10 of"), bad.err());
        String z = python("import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).testzip())", f.toString());
        assertEquals(member, z.strip(), "zipfile sees the bad CRC too");
        flip(f, data);

        flip(f, header);
        bad = CliTest.run("load", f.toString(), "--verify");
        assertEquals(4, bad.code(), bad.err());
        assertTrue(bad.err().contains("first mismatch at byte offset " + header + ", in the local header of "
                + member), bad.err());
        flip(f, header);

        flip(f, crc);
        bad = CliTest.run("load", f.toString(), "--verify");
        assertEquals(4, bad.code(), bad.err());
        assertTrue(bad.err().contains("first mismatch at byte offset " + crc + ", in the CRC-32 of " + member + " in "
                + "the data descriptor of " + member), bad.err());
        flip(f, crc);
        assertEquals(0, CliTest.run("load", f.toString(), "--verify").code());

        // a plain load reads the directory and end records first, as torch.load does
        long entry = layout.directoryOffset() + 51; // the first entry's name: 46 bytes, then "archive/data.pkl"
        flip(f, entry);
        bad = CliTest.run("load", f.toString());
        assertEquals(3, bad.code(), bad.err());
        assertTrue(bad.err().contains(": the central directory entry of archive/data.pkl byte 51 differs from its "
                + "manifest's layout at byte " + entry + " (expected 0x76, found 0x77): the file is damaged"), bad.err());
        flip(f, entry);

        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(layout.size() - 100);
        }
        bad = CliTest.run("load", f.toString());
        assertEquals(3, bad.code(), bad.err()); // an I/O error: the file is not what was saved
        assertTrue(bad.err().contains("holds " + (layout.size() - 100) + " bytes but its manifest says "
                + layout.size() + ": the checkpoint is truncated"), bad.err());
    }

    @Test
    void inspectListsTensorsOfOurFilesTorchsFilesAndRawOnes() throws Exception {
        Path f = dir.resolve("tiny.pt");
        assertEquals(0, CliTest.run("save", f.toString(), "--format", "torch", "--model", "tiny").code());
        Layout layout = Layout.of(Layout.Format.TORCH, TensorList.model("tiny"), true, 64);
        CliTest.Result r = CliTest.run("inspect", f.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        for (int i = 0; i < layout.fileOrder().size(); i++) {
            Tensor t = layout.fileOrder().get(i);
            String row = "{\"name\":\"" + t.name() + "\",\"dtype\":\"" + t.dtype().label() + "\",\"shape\":"
                    + t.shapeText() + ",\"offset\":" + layout.offsetOf(i) + ",\"bytes\":" + t.bytes()
                    + ",\"member\":\"" + layout.memberOf(i) + "\"}";
            assertTrue(r.out().contains(row), row + " in " + r.out());
        }
        // torch's own file, with a view into a storage (offset 1 element in) and a prefix of its own
        Path theirs = dir.resolve("theirs.pt");
        python("import sys, torch; torch.save({'w': torch.ones(3, 4)[:, 1:], 'n': {'x': torch.zeros(2, "
                + "dtype=torch.int8)}}, sys.argv[1])", theirs.toString());
        r = CliTest.run("inspect", theirs.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(theirs + ": torch, 2 tensors"), r.out());
        assertTrue(r.out().matches("(?s).*\\n  w +float32 +\\[3,3\\] .*\\n  n/x +int8 +\\[2\\] .*"), r.out());

        Path raw = dir.resolve("raw.bin");
        assertEquals(0, CliTest.run("save", raw.toString(), "--size", "1MiB").code());
        r = CliTest.run("inspect", raw.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("(stream)  uint8     [1048576]"), r.out());

        Files.write(dir.resolve("cut.pt"), java.util.Arrays.copyOf(Files.readAllBytes(f), 5000));
        r = CliTest.run("inspect", dir.resolve("cut.pt").toString());
        assertEquals(3, r.code(), r.err());
        assertTrue(r.err().contains("has no end of central directory record in its last 22 bytes: it is truncated"),
                r.err());
    }

    @Test
    void crcNoneWritesZerosAndSaysSo() throws Exception {
        Path f = dir.resolve("fast.pt");
        assertEquals(0, CliTest.run("save", f.toString(), "--format", "torch", "--model", "tiny", "--crc", "none")
                .code());
        assertTrue(Files.readString(Path.of(f + ".manifest.json")).contains("\"crc\":\"none\""));
        String out = python("""
                import sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                print(sorted(set(i.CRC for i in z.infolist() if "/data/" in i.filename)))
                """, f.toString());
        assertEquals("[0]", out.strip());
        assertEquals(0, CliTest.run("load", f.toString(), "--verify").code());
    }

    /** Prints each float tensor's name and count of Inf/NaN values, and its largest magnitude when all are finite. */
    private static final String NON_FINITE = """
            import sys, warnings, zipfile
            warnings.filterwarnings("ignore")
            import torch
            sd = torch.load(sys.argv[1], weights_only=True)
            for k, v in sd["model"].items():
                if v.is_floating_point():
                    ok = bool(torch.isfinite(v).all())
                    print(k, int((~torch.isfinite(v)).sum()), float(v.abs().max()) if ok else "-")
            print("testzip", zipfile.ZipFile(sys.argv[1]).testzip())
            """;

    @Test
    void finiteFilesLoadWithoutInfOrNanAndOthersHaveSome() throws Exception {
        Path list = dir.resolve("floats.txt");
        Files.writeString(list, """
                model/h float16 [1024,1024]
                model/b bfloat16 [333,77]
                model/f float32 [4099]
                model/d float64 [129]
                model/i int32 [5]
                """);
        Path fin = dir.resolve("finite.pt");
        Path raw = dir.resolve("random.pt");
        Path twin = dir.resolve("twin.pt");
        for (Path f : List.of(fin, raw, twin)) {
            List<String> args = new ArrayList<>(List.of("save", f.toString(), "--format", "torch", "--tensors",
                    list.toString(), "--chunk", "64KiB", "--seed", "5"));
            if (f != raw) {
                args.add("--finite");
            }
            if (f == twin) {
                args.addAll(List.of("--generator", "java"));
            }
            CliTest.Result r = CliTest.run(args.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
        }
        assertEquals(-1, Files.mismatch(fin, twin), "native and twin --finite files differ");
        assertTrue(Files.readString(Path.of(fin + ".manifest.json")).contains("\"finite\":true"));
        assertFalse(Files.readString(Path.of(raw + ".manifest.json")).contains("finite"));

        String out = python(NON_FINITE, fin.toString());
        assertTrue(out.contains("testzip None"), out);
        for (String name : List.of("h", "b", "f", "d")) {
            String line = out.lines().filter(l -> l.startsWith(name + " ")).findFirst().orElseThrow(() ->
                    new AssertionError(name + " missing: " + out));
            String[] w = line.split(" ");
            assertEquals("0", w[1], "Inf/NaN in " + line);
            assertTrue(Double.parseDouble(w[2]) < 2, "every value below 2: " + line);
        }
        String without = python(NON_FINITE, raw.toString());
        // 1M random float16 values: about 1 in 32 has an all-ones exponent
        long h = Long.parseLong(without.lines().filter(l -> l.startsWith("h ")).findFirst().orElseThrow().split(" ")[1]);
        assertTrue(h > 10_000, without);

        CliTest.Result l = CliTest.run("load", fin.toString(), "--verify", "--chunk", "64KiB");
        assertEquals(0, l.code(), l.err());
        assertTrue(l.out().contains("every byte verified"), l.out());
        CliTest.Result ins = CliTest.run("inspect", fin.toString());
        assertTrue(ins.out().contains("floating-point values made finite (--finite)"), ins.out() + ins.err());
        assertTrue(CliTest.run("inspect", fin.toString(), "--json").out().contains("\"finite\":true"));
        assertFalse(CliTest.run("inspect", raw.toString()).out().contains("finite"));
        // a --finite manifest beside a file without it: verify finds the first masked byte
        Files.copy(raw, fin, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        l = CliTest.run("load", fin.toString(), "--verify", "--chunk", "64KiB");
        assertEquals(4, l.code(), l.out() + l.err()); // 4: verify failed
        assertTrue((l.out() + l.err()).contains("in tensor model/h (archive/data/0)"), l.out() + l.err());

        // raw with --tensors: the same masking, verified
        Path r = dir.resolve("raw.bin");
        CliTest.Result s = CliTest.run("save", r.toString(), "--tensors", list.toString(), "--finite", "--seed", "5");
        assertEquals(0, s.code(), s.err());
        assertEquals(0, CliTest.run("load", r.toString(), "--verify").code());
        byte[] bytes = Files.readAllBytes(r);
        for (int i = 1; i < 2 << 20; i += 2) {
            assertEquals(0, bytes[i] & 0x40, "float16 high byte " + i);
        }
    }

    @Test
    void usageErrorsNameTheOption() {
        CliTest.Result r = CliTest.run("save", dir.resolve("x.pt").toString(), "--format", "torch");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--format torch needs --tensors FILE or --model NAME"), r.err());
        r = CliTest.run("save", dir.resolve("x.pt").toString(), "--model", "tiny", "--size", "1MiB");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--size is not used with --tensors or --model"), r.err());
        r = CliTest.run("save", dir.resolve("x.pt").toString(), "--format", "torch", "--model", "huge");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("'huge' is not a built-in model (tiny, mlp-1b, llama3-8b, llama3-70b, llama3-405b)"), r.err());
        r = CliTest.run("save", dir.resolve("x.bin").toString(), "--size", "1MiB", "--finite");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--finite needs --tensors or --model"), r.err());
    }

    /**
     * A file over 4 GiB (a tensor of 4.5 GiB, then records past 4 GiB) needs zip64 extras in its
     * local headers, descriptors and central directory: its framing is written at its offsets into a
     * sparse file (the payloads left as holes), and Python's zipfile reads the directory and the
     * records after the big one.
     */
    @Test
    void zip64RecordsPastFourGiBReadByZipfile() throws Exception {
        List<Tensor> tensors = List.of(Tensor.of("a", io.dgen4j.format.DType.FLOAT32, 16),
                Tensor.of("big", io.dgen4j.format.DType.UINT8, (9L << 30) / 2),
                Tensor.of("c", io.dgen4j.format.DType.FLOAT32, 16));
        Layout layout = Layout.of(Layout.Format.TORCH, tensors, true, 64);
        Path f = dir.resolve("big.pt");
        LayoutWriter w = layout.writer();
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
             Arena arena = Arena.ofConfined()) {
            long step = 1 << 20;
            MemorySegment buf = arena.allocate(step);
            for (long at = 0; at < layout.size(); at += step) {
                long n = Math.min(step, layout.size() - at);
                // payload bytes: zeros, not written (holes); framing bytes are written where they are
                w.fill(buf.asSlice(0, n), at, (dst, streamOffset) -> dst.fill((byte) 0));
                if (!allZero(buf.asSlice(0, n))) {
                    ch.write(buf.asSlice(0, n).asByteBuffer(), at);
                }
            }
            ch.truncate(layout.size());
            if (ch.size() < layout.size()) {
                ch.write(ByteBuffer.wrap(new byte[1]), layout.size() - 1);
            }
        }
        assertEquals(layout.size(), Files.size(f));
        assertTrue(layout.size() > 1L << 32);
        String out = python("""
                import sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                for i in z.infolist():
                    print(i.filename, i.header_offset, i.file_size)
                print(z.read("archive/data/2") == bytes(64), z.read("archive/version"))
                """, f.toString());
        long cOffset = layout.offsetOf(2);
        assertTrue(out.contains("archive/data/1 ") && out.contains(" " + ((9L << 30) / 2)), out);
        assertTrue(out.contains("True b'3\\n'"), out);
        assertTrue(cOffset > 1L << 32, "the last tensor's record starts past 4 GiB");
    }

    private static boolean allZero(MemorySegment s) {
        return s.mismatch(MemorySegment.ofArray(new byte[(int) s.byteSize()])) == -1;
    }

    private static String shape(Tensor t) {
        StringBuilder b = new StringBuilder("[");
        long[] d = t.shape();
        for (int i = 0; i < d.length; i++) {
            b.append(i == 0 ? "" : ", ").append(d[i]);
        }
        return b.append(']').toString();
    }

    private static String sha256(MemorySegment s) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(s.asByteBuffer());
        return HexFormat.of().formatHex(md.digest());
    }

    private static void flip(Path f, long at) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.seek(at);
            int b = raf.read();
            raf.seek(at);
            raf.write(b ^ 1);
        }
    }
}
