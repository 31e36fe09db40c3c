package io.dgen4j.crt;

import io.dgen4j.s3.S3FaultContract;

/** The crt backend through the fault proxy: the fault contract. */
class CrtFaultTest extends S3FaultContract {
    @Override
    protected String backend() {
        return CrtClient.NAME;
    }

    /** The CRT makes two tries of a request at least (CrtClients.RETRIES). */
    @Override
    protected int clientTries() {
        return 2;
    }
}
