package io.dgen4j.crt;

import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.StorageContract;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageTarget;
import java.io.IOException;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The storage contract, kept by the crt backend against a real S3 server (s3proxy on 127.0.0.1). */
class CrtStorageContractTest extends StorageContract {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Override
    protected StorageProvider provider() {
        return CrtTests.crt();
    }

    @Override
    protected StorageTarget target(String name) {
        return CrtTests.target(S3, "contract/" + name);
    }

    @Override
    protected StorageOptions options() {
        return CrtTests.options(S3.settings().toBuilder().partSize(chunk()).build());
    }

    /** S3's smallest part. */
    @Override
    protected int chunk() {
        return 5 << 20;
    }

    @Override
    protected void assertNoTrace(StorageTarget target) throws IOException {
        CrtTests.assertNoTrace(S3, target.location().substring(S3.bucket().length() + 1));
    }
}
