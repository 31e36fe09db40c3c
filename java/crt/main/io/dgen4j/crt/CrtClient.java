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
    /**
     * {@value CrtClients#LARGEST_PART} bytes: the CRT copies each part's body into memory it allocates
     * for the request and frees after, and glibc serves an allocation of 32 MiB or more (its largest
     * mmap threshold on 64-bit) with a fresh mapping: a 32 MiB part then costs a page fault per 4 KiB
     * (281,000 minor faults and ~3 s of system time per GiB saved, against 52,000 and ~1 s with 16 MiB
     * parts). So a save sends each 32 MiB chunk as two 16 MiB parts, one after the other per writer:
     * 1 GiB with 2 writers, 32 MiB chunks: 5.3 -> 4.0 s user and 2.3 -> 0.9 s system CPU, writes 1.5 x
     * faster against s3proxy, peak RSS 265 -> 300 MiB (glibc's arenas keep the freed 16 MiB copies).
     */
    @Override
    public long largestEfficientPart() {
        return CrtClients.LARGEST_PART;
    }

    @Override
    public S3TransportFactory transports(StorageOptions options, int requests) {
        if (requests <= 0) {
            return new CrtTransportFactory(0);
        }
        return new CrtTransportFactory(Math.max(CrtTransport.DEFAULT_IN_FLIGHT,
                Integer.highestOneBit(Math.max(1, requests) - 1) << 1));
    }
}
