package io.dgen4j.minio;

import io.dgen4j.s3.S3ServerKilledContract;

/** The minio backend when the server dies in the middle of an upload: the contract. */
class MinioServerKilledTest extends S3ServerKilledContract {
    @Override
    protected String backend() {
        return "minio";
    }
}
