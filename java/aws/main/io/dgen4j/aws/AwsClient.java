package io.dgen4j.aws;

import io.dgen4j.s3.spi.S3TransportFactory;
import io.dgen4j.s3.spi.S3ClientProvider;
import io.dgen4j.storage.StorageOptions;

/**
 * The {@code aws} client: {@code s3://} through the AWS SDK for Java v2's async client on Netty, one
 * client per endpoint set ({@link AwsTransportFactory}), built with the request's {@link AwsOptions}
 * when it has some. The s3 module's provider does the rest.
 *
 * <p>Priority {@value #PRIORITY}: the fastest measured here, so the default for {@code s3://} (the default
 * should be the fastest measured; revisit when the other clients are measured).
 */
public final class AwsClient implements S3ClientProvider {
    /** The backend's name. */
    public static final String NAME = "aws";
    /** Preference among the S3 clients when none is named: the highest. */
    public static final int PRIORITY = 10;

    /** The service loader's constructor. */
    public AwsClient() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    /**
     * A factory of clients with room for {@code requests} connections per endpoint and a few for HEADs
     * and aborts, rounded up so that nearby counts share one client (64 when none is known).
     */
    @Override
    public S3TransportFactory transports(StorageOptions options, int requests) {
        AwsOptions hooks = options.get(AwsOptions.class).orElseGet(AwsOptions::defaults);
        if (requests <= 0) {
            return new AwsTransportFactory(hooks, 64);
        }
        return new AwsTransportFactory(hooks, Math.max(16, Integer.highestOneBit(Math.max(1, requests + 4) - 1) << 1));
    }
}
