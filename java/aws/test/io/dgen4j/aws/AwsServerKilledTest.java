package io.dgen4j.aws;

import io.dgen4j.s3.S3ServerKilledContract;

/** The aws backend when the server dies in the middle of an upload: the contract. */
class AwsServerKilledTest extends S3ServerKilledContract {
    @Override
    protected String backend() {
        return "aws";
    }
}
