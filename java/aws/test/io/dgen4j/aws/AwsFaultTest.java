package io.dgen4j.aws;

import io.dgen4j.s3.S3FaultContract;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/** The aws backend through the fault proxy: the fault contract. */
class AwsFaultTest extends S3FaultContract {
    private static RawS3 raw;

    @BeforeAll
    static void client() {
        raw = new RawS3(S3);
    }

    @AfterAll
    static void closeClient() {
        raw.close();
    }

    @Override
    protected String backend() {
        return "aws";
    }

    @Override
    protected List<String> openUploads(String key) {
        return raw.uploads(S3.bucket(), key).stream().map(MultipartUpload::uploadId).toList();
    }
}
