/**
 * What every dgen4j S3 backend shares, whatever its client library: {@code s3://} targets
 * ({@link io.dgen4j.s3.S3Location}), settings from the environment ({@link io.dgen4j.s3.S3Settings}),
 * the multipart plan ({@link io.dgen4j.s3.PartPlan}) and the checkpoint manifest as user metadata
 * ({@link io.dgen4j.s3.MetadataCodec}), and the client-neutral driver every backend runs on: the endpoint pool
 * with balancing, failover and statistics ({@link io.dgen4j.s3.S3Endpoints}), the multipart writer
 * ({@link io.dgen4j.s3.MultipartWriter}) and the ranged reader ({@link io.dgen4j.s3.RangedReader}),
 * over each backend's {@link io.dgen4j.s3.spi.S3Transport}.
 */
module io.dgen4j.s3 {
    requires transitive io.dgen4j;
    requires com.fasterxml.jackson.core;
    requires org.slf4j;
    requires java.net.http;
    // no module-info nor Automatic-Module-Name in 2.2.2: the name derives from the jar's file name
    requires HdrHistogram;

    exports io.dgen4j.s3;
    exports io.dgen4j.s3.spi;

    // the one s3:// provider: each installed client (aws, crt, minio) is a backend of it
    provides io.dgen4j.storage.StorageProvider with io.dgen4j.s3.S3StorageProvider;
    // each S3 client module's transports, for the provider and `dgen4j endpoints`
    uses io.dgen4j.s3.spi.S3ClientProvider;
}
