package io.dgen4j.aws;

import io.dgen4j.s3.S3IntegrityContract;

/** Integrity through the aws backend against s3proxy: the contract. */
class AwsIntegrityTest extends S3IntegrityContract {
    @Override
    protected String backend() {
        return "aws";
    }
}
