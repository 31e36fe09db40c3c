package io.dgen4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.format.Layout;
import io.dgen4j.format.TensorList;
import io.dgen4j.s3.S3ProxyExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** save --format torch to s3:// in parts, and load --verify of it with ranged GETs, against s3proxy. */
class TorchS3CliTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path home;

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", home.toString());
        env.put("AWS_ACCESS_KEY_ID", S3ProxyExtension.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", S3ProxyExtension.SECRET_KEY);
        env.put("AWS_ENDPOINT_URL", S3.endpoint().toString());
        env.put("AWS_REGION", "us-east-1");
        return env;
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
}
