package io.dgen4j.minio;

import io.dgen4j.s3.S3PhasesContract;

/** The minio backend's save and load reports against s3proxy: the contract. */
class MinioPhasesTest extends S3PhasesContract {
    @Override
    protected String backend() {
        return "minio";
    }
}
