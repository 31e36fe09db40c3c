/**
 * What every dgen4j S3 backend shares, whatever its client library. The API ({@code io.dgen4j.s3}):
 * {@code s3://} targets, settings, and the one {@code s3://} storage provider, which serves each installed
 * client as a backend of its own name. The SPI ({@code io.dgen4j.s3.spi}): what a client module
 * implements ({@link io.dgen4j.s3.spi.S3ClientProvider}, its transports). The driver
 * ({@code io.dgen4j.s3.internal}: endpoint pools with balancing and failover, multipart writer, ranged
 * reader, part plan, metadata codec), exported only to the client modules and the CLI.
 */
module io.dgen4j.s3 {
    requires transitive io.dgen4j;
    requires org.slf4j;
    requires java.net.http;
    // only for RoutedClient, SdkBodyCopy and RangeSink, which the aws and crt client modules (that
    // bring the SDK) use
    requires static software.amazon.awssdk.services.s3;
    requires static software.amazon.awssdk.awscore;
    requires static software.amazon.awssdk.core;
    requires static software.amazon.awssdk.endpoints;
    requires static org.reactivestreams;

    // the API: settings, targets, the provider
    exports io.dgen4j.s3;
    // what a client module implements
    exports io.dgen4j.s3.spi;
    // the driver: for the client modules and the CLI only
    exports io.dgen4j.s3.internal to io.dgen4j.aws, io.dgen4j.crt, io.dgen4j.minio, io.dgen4j.cli;

    // the one s3:// provider: each installed client (aws, crt, minio) is a backend of it
    provides io.dgen4j.storage.StorageProvider with io.dgen4j.s3.S3StorageProvider;
    // each S3 client module's transports, for the provider and `dgen4j endpoints`
    uses io.dgen4j.s3.spi.S3ClientProvider;
}
