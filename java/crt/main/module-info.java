/**
 * The {@code crt} storage backend of dgen4j: {@code s3://bucket/key} through the AWS SDK v2's
 * CRT-based {@code S3AsyncClient} (the AWS Common Runtime's native S3 client), found by
 * {@link java.util.ServiceLoader} as an {@link io.dgen4j.s3.spi.S3ClientProvider} of the s3:// provider.
 *
 * <p>The AWS SDK jars and the CRT jar are automatic modules; the CRT jar has no
 * {@code Automatic-Module-Name}, so its name ({@code aws.crt}) comes from its file name. This module
 * does not require it by name: the SDK reaches it, and every automatic module on the module path is
 * resolved with the first. The CRT loads its native library with JNI: on the module path, run with
 * {@code --enable-native-access=io.dgen4j,aws.crt}; on the class path, with
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
module io.dgen4j.crt {
    requires io.dgen4j;
    requires io.dgen4j.s3;
    requires org.slf4j;
    requires org.reactivestreams;
    requires software.amazon.awssdk.services.s3;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.endpoints;
    requires software.amazon.awssdk.auth;
    requires software.amazon.awssdk.regions;

    exports io.dgen4j.crt;

    // the crt client's transports, for the s3:// provider and `dgen4j endpoints`
    provides io.dgen4j.s3.spi.S3ClientProvider with io.dgen4j.crt.CrtClient;
}
