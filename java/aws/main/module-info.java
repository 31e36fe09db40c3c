/**
 * The {@code aws} storage backend: {@code s3://} targets through the AWS SDK for Java v2 (its async
 * client over Netty; its sync clients for ranged GETs, on Apache's HTTP client, and for uploads to
 * {@code http://} endpoints, on dgen4j's {@code SegmentHttpClient}, which writes bodies from their
 * segments), served by the s3:// provider of {@code io.dgen4j.s3}, which finds it with
 * {@link java.util.ServiceLoader}; its options are
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
    requires software.amazon.awssdk.http.apache; // ranged GETs (AwsSyncCalls)
    requires software.amazon.awssdk.utils;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.endpoints;
    requires software.amazon.awssdk.identity.spi;
    requires software.amazon.awssdk.http.auth.aws; // UnsignedPayloadScheme: the SDK's SigV4 signer
    requires software.amazon.awssdk.http.auth.spi;
    requires software.amazon.awssdk.retries.api; // the SDK's retries are turned off (AwsClients)
    requires org.reactivestreams;
    requires io.netty.transport; // WideBodyChannel: the SDK's channels with a wider HTTP codec
    requires io.netty.common; // AwsClients: shuts its event loops down
    requires io.netty.buffer; // AwsClients: the unpooled allocator
    requires io.netty.codec.http;

    exports io.dgen4j.aws;

    // the aws client's transports, for the s3:// provider and `dgen4j endpoints`
    provides io.dgen4j.s3.spi.S3ClientProvider with io.dgen4j.aws.AwsClient;
}
