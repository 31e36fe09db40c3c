package io.dgen4j.crt;

import io.dgen4j.s3.S3FailoverContract;

/** The crt backend over three real s3proxy gateways: the failover contract. */
class CrtFailoverTest extends S3FailoverContract {
    @Override
    protected String backend() {
        return CrtClient.NAME;
    }
}
