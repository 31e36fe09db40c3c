package io.dgen4j.minio;

import io.dgen4j.s3.S3FaultContract;

/** The minio backend through the fault proxy: the fault contract. */
class MinioFaultTest extends S3FaultContract {
    @Override
    protected String backend() {
        return MinioClient.NAME;
    }
}
