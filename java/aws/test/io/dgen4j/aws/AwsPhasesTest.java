package io.dgen4j.aws;

import io.dgen4j.s3.S3PhasesContract;

/** The aws backend's save and load reports against s3proxy: the contract. */
class AwsPhasesTest extends S3PhasesContract {
    @Override
    protected String backend() {
        return "aws";
    }
}
