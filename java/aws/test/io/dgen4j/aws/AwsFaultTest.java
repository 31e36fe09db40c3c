package io.dgen4j.aws;

import io.dgen4j.s3.S3FaultContract;

/** The aws backend through the fault proxy: the fault contract. */
class AwsFaultTest extends S3FaultContract {
    @Override
    protected String backend() {
        return AwsClient.NAME;
    }
}
