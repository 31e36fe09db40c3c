package io.dgen4j.crt;

import io.dgen4j.s3.S3FaultContract;
import java.io.IOException;
import java.util.List;

/** The crt backend through the fault proxy: the fault contract. */
class CrtFaultTest extends S3FaultContract {
    @Override
    protected String backend() {
        return "crt";
    }

    @Override
    protected List<String> openUploads(String key) throws IOException {
        return CrtTests.openUploads(S3, key);
    }
}
