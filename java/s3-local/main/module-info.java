/**
 * A local S3 server for quickstart, tests and benchmarks: s3proxy started as a child JVM on
 * 127.0.0.1 ({@link io.dgen4j.s3.local.LocalS3Proxy}). Its own small artifact, kept out of the
 * published S3 library; it needs nothing of dgen4j, so the s3 module's test kit can use it.
 */
module io.dgen4j.s3.local {
    requires java.net.http;

    exports io.dgen4j.s3.local;
}
