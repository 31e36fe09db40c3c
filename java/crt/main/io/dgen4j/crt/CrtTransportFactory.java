package io.dgen4j.crt;

import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Transport;
import io.dgen4j.s3.S3TransportFactory;
import java.io.IOException;

/** Makes the {@code crt} backend's {@link CrtTransport}s; found by {@link java.util.ServiceLoader}. */
public final class CrtTransportFactory implements S3TransportFactory {
    /** Instantiated by {@link java.util.ServiceLoader}. */
    public CrtTransportFactory() {}

    @Override
    public String backend() {
        return CrtStorageProvider.NAME;
    }

    @Override
    public S3Transport open(S3Settings settings) throws IOException {
        return CrtTransport.open(settings);
    }

    @Override
    public String toString() {
        return "crt transports (the AWS CRT-based S3 client, one per endpoint)";
    }
}
