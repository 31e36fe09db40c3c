package io.dgen4j.minio;

import io.dgen4j.s3.S3IntegrityContract;

/** Integrity through the minio backend against s3proxy: the contract. */
class MinioIntegrityTest extends S3IntegrityContract {
    @Override
    protected String backend() {
        return "minio";
    }
}
