package io.dgen4j.crt;

import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.StorageOptions;
import java.util.Optional;

/**
 * The {@code crt} client: {@code s3://} through the AWS SDK v2's CRT-based {@code S3AsyncClient}, one
 * client per endpoint set ({@link CrtTransportFactory#group}); parts go straight from the caller's
 * segments, ranged GETs land in them. The s3 module's provider does the rest.
 *
 * <p>Its priority ({@value #PRIORITY}) is below the {@code aws} client's: against s3proxy on loopback it
 * was not measured faster (it used less client CPU per GiB, and a part-sized native buffer per part in
 * flight more; see docs/S3-CRT.md). Choose it by name ({@code --backend crt}). Unavailable where the
 * CRT's native library does not load.
 */
public final class CrtClient implements S3ClientProvider {
    /** The backend's name. */
    public static final String NAME = "crt";
    /** Preference among the S3 clients when none is named: below {@code aws}. */
    public static final int PRIORITY = 5;

    /** The service loader's constructor. */
    public CrtClient() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Optional<String> unavailable() {
        return CrtClients.runtimeProblem();
    }

    /**
     * A factory of clients with room for {@code requests} requests in flight per endpoint, rounded up so
     * that nearby counts share one client (the CRT adds its control connections); with none known, the
     * settings' requests in flight, else {@value CrtTransport#DEFAULT_IN_FLIGHT}.
     */
    @Override
    public S3TransportFactory transports(StorageOptions options, int requests) {
        if (requests <= 0) {
            return new CrtTransportFactory(0);
        }
        return new CrtTransportFactory(Math.max(CrtTransport.DEFAULT_IN_FLIGHT,
                Integer.highestOneBit(Math.max(1, requests) - 1) << 1));
    }
}
