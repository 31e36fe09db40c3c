package io.dgen4j.crt;

import io.dgen4j.s3.S3IntegrityContract;

/** Integrity through the crt backend against s3proxy: the contract. */
class CrtIntegrityTest extends S3IntegrityContract {
    @Override
    protected String backend() {
        return "crt";
    }
}
