package io.dgen4j.crt;

import io.dgen4j.s3.S3PhasesContract;

/** The crt backend's save and load reports against s3proxy: the contract. */
class CrtPhasesTest extends S3PhasesContract {
    @Override
    protected String backend() {
        return "crt";
    }
}
