/**
 * The {@code aws} storage backend: {@code s3://} targets through the AWS SDK for Java v2's async
 * client over Netty, on the S3 driver of {@code io.dgen4j.s3}. Found by {@link java.util.ServiceLoader}; its options are
 * {@link io.dgen4j.s3.S3Settings} and {@link io.dgen4j.aws.AwsOptions}.
 */
module io.dgen4j.aws {
    requires transitive io.dgen4j;
    requires transitive io.dgen4j.s3;
    requires org.slf4j;
    requires transitive software.amazon.awssdk.services.s3;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.auth;
    requires software.amazon.awssdk.regions;
    requires software.amazon.awssdk.http;
    requires software.amazon.awssdk.http.nio.netty;
    requires software.amazon.awssdk.utils;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.endpoints;
    requires software.amazon.awssdk.identity.spi;
    requires org.reactivestreams;

    exports io.dgen4j.aws;

    provides io.dgen4j.storage.StorageProvider with io.dgen4j.aws.AwsStorageProvider;
    // the aws client's per-endpoint calls, for the S3 driver and `dgen4j endpoints`
    provides io.dgen4j.s3.S3TransportFactory with io.dgen4j.aws.AwsTransportFactory;
}
