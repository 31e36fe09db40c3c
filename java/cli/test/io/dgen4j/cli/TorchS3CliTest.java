package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.format.Layout;
import io.dgen4j.format.Tensor;
import io.dgen4j.format.TensorList;
import io.dgen4j.s3.S3ProxyExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * save --format torch to s3:// in parts, load --verify of it and inspect of it with ranged GETs, against
 * s3proxy.
 */
class TorchS3CliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path home;

    private Map<String, String> env() {
        return S3.cliEnv(home);
    }

    @Test
    void aTorchFileGoesToS3InPartsAndVerifiesFromIt() throws Exception {
        Path list = home.resolve("tensors.txt");
        String tensors = "model/a float32 [1000,1000]\nmodel/b bfloat16 [3000,1000]\noptimizer/step int64 []\n";
        Files.writeString(list, tensors);
        long size = Layout.of(Layout.Format.TORCH, TensorList.parse(tensors, "list"), true, 64).size();
        String target = "s3://" + S3.bucket() + "/torch/ck.pt";
        CliRun save = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "save", target, "--format", "torch",
                "--tensors", list.toString(), "--chunk", "5MiB", "--seed", "4", "--no-progress", "--json");
        assertEquals(0, save.code(), save.err());
        assertTrue(save.out().contains("\"totalBytes\":" + size + ",") && save.out().contains("(2 parts of"),
                save.out());
        CliRun load = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "load", target, "--verify", "--chunk", "1MiB",
                "--no-progress", "--json");
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("\"verified\":true"), load.out());
    }

    @Test
    void inspectListsAnObjectsTensorsWithAFewRangedGetsAndARawOneFromItsManifest() throws Exception {
        Path list = home.resolve("tensors.txt");
        String tensors = "model/a float32 [1000,1000]\nmodel/b bfloat16 [3000,1000]\noptimizer/step int64 []\n";
        Files.writeString(list, tensors);
        Layout layout = Layout.of(Layout.Format.TORCH, TensorList.parse(tensors, "list"), true, 64);
        String target = "s3://" + S3.bucket() + "/inspect/ck.pt";
        assertEquals(0, CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "save", target, "--format", "torch",
                "--tensors", list.toString(), "--chunk", "5MiB", "--no-progress").code());

        CliRun r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "inspect", target, "--json");
        assertEquals(0, r.code(), r.err());
        // every tensor where the layout puts it: the offsets come from the object's own local headers
        for (int i = 0; i < layout.fileOrder().size(); i++) {
            Tensor t = layout.fileOrder().get(i);
            String row = "{\"name\":\"" + t.name() + "\",\"dtype\":\"" + t.dtype().label() + "\",\"shape\":"
                    + t.shapeText() + ",\"offset\":" + layout.offsetOf(i) + ",\"bytes\":" + t.bytes()
                    + ",\"member\":\"" + layout.memberOf(i) + "\"}";
            assertTrue(r.out().contains(row), row + " in " + r.out());
        }
        Map<String, Object> j = JsonRead.object(r.out());
        assertEquals(layout.size(), ((Number) j.get("size")).longValue());
        // the tail (end records, central directory), the head (data.pkl, the first records) and model/b's
        // local header 4 MB in: 3 GETs of about 64, 64 and 4 KiB, not the 10 MB object
        long gets = ((Number) j.get("gets")).longValue();
        long read = ((Number) j.get("bytesRead")).longValue();
        assertEquals(3, gets, r.out());
        assertTrue(read <= 2 * (64 << 10) + 2 * 4096, read + " bytes read"); // the tail from a 4 KiB boundary

        r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "inspect", target);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(target + ": torch, 3 tensors, " + layout.payloadBytes() + " bytes of tensors in "
                + layout.size() + " bytes (3 ranged GETs, " + read + " bytes read)\n"), r.out());

        // a raw object: its manifest (the object's metadata) says it all, without a GET
        String raw = "s3://" + S3.bucket() + "/inspect/raw.bin";
        assertEquals(0, CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "save", raw, "--size", "1MiB",
                "--no-progress").code());
        r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "inspect", raw);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(raw + ": raw, 1 tensor, 1048576 bytes of tensors in 1048576 bytes (0 ranged "
                + "GETs, 0 bytes read)\n"), r.out());
        assertTrue(r.out().contains("(stream)  uint8     [1048576]"), r.out());

        // no such object: one line, exit 3
        r = CliRun.hiding(S3ProxyExtension.SECRET_KEY, env(), "inspect", "s3://" + S3.bucket() + "/inspect/none.pt");
        assertEquals(3, r.code(), r.err());
        assertEquals("dgen4j: checkpoint s3://" + S3.bucket() + "/inspect/none.pt does not exist\n", r.err());
    }
}
