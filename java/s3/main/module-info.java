/**
 * What every dgen4j S3 backend shares, whatever its client library: {@code s3://} targets
 * ({@link io.dgen4j.s3.S3Location}), settings from the environment ({@link io.dgen4j.s3.S3Settings}),
 * the multipart plan ({@link io.dgen4j.s3.PartPlan}) and the checkpoint manifest as user metadata
 * ({@link io.dgen4j.s3.MetadataCodec}).
 */
module io.dgen4j.s3 {
    requires transitive io.dgen4j;
    requires com.fasterxml.jackson.core;
    requires org.slf4j;
    requires java.net.http;

    exports io.dgen4j.s3;

    // each S3 backend's per-endpoint calls, for the shared driver and `dgen4j endpoints`
    uses io.dgen4j.s3.S3TransportFactory;
}
