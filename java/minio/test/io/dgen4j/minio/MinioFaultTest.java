package io.dgen4j.minio;

import io.dgen4j.s3.S3FaultContract;
import io.minio.messages.ListMultipartUploadsResult;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The minio backend through the fault proxy: the fault contract. */
class MinioFaultTest extends S3FaultContract {
    private static RawMinio raw;

    @BeforeAll
    static void client() {
        raw = new RawMinio(S3);
    }

    @AfterAll
    static void closeClient() throws Exception {
        raw.close();
    }

    @Override
    protected String backend() {
        return "minio";
    }

    @Override
    protected List<String> openUploads(String key) {
        return raw.uploads(S3.bucket(), key).stream().map(ListMultipartUploadsResult.Upload::uploadId).toList();
    }
}
