package io.dgen4j.minio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3ProxyExtension;
import io.dgen4j.storage.StorageContract;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageProviders;
import io.dgen4j.storage.StorageTarget;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The storage contract, kept by the minio backend (found through the service loader) against s3proxy. */
class MinioStorageContractTest extends StorageContract {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();
    private static final AtomicInteger RUN = new AtomicInteger();
    private static RawMinio raw;

    @BeforeAll
    static void client() {
        raw = new RawMinio(S3);
    }

    @AfterAll
    static void closeClient() {
        raw.close();
    }

    @Override
    protected StorageProvider provider() {
        return StorageProviders.named("minio").orElseThrow();
    }

    @Override
    protected StorageTarget target(String name) {
        return StorageTarget.parse("s3://" + S3.bucket() + "/contract/" + RUN.incrementAndGet() + "/" + name);
    }

    @Override
    protected StorageOptions options() {
        return StorageOptions.empty().with(S3.settings());
    }

    @Override
    protected int chunk() {
        return 5 << 20;
    }

    @Override
    protected void assertNoTrace(StorageTarget target) {
        S3Location l = S3Location.of(target);
        assertNull(raw.head(l.bucket(), l.key()), "object " + l);
        assertEquals(List.of(), raw.uploads(l.bucket(), l.key()), "open uploads of " + l);
    }
}
