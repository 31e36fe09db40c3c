package io.dgen4j.aws;

import io.dgen4j.s3.S3FailoverContract;

/** The aws backend over three real s3proxy gateways: the failover contract. */
class AwsFailoverTest extends S3FailoverContract {
    @Override
    protected String backend() {
        return AwsClient.NAME;
    }
}
