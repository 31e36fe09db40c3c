package io.dgen4j.minio;

import io.dgen4j.s3.S3FailoverContract;

/** The minio backend over three real s3proxy gateways: the failover contract. */
class MinioFailoverTest extends S3FailoverContract {
    @Override
    protected String backend() {
        return MinioClient.NAME;
    }
}
