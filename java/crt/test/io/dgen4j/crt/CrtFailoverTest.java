package io.dgen4j.crt;

import io.dgen4j.s3.S3FailoverContract;
import java.io.IOException;
import java.util.List;

/** The crt backend over three real s3proxy gateways: the failover contract. */
class CrtFailoverTest extends S3FailoverContract {
    @Override
    protected String backend() {
        return "crt";
    }

    @Override
    protected List<String> openUploads(String key) throws IOException {
        return CrtTests.openUploads(S3, key);
    }
}
