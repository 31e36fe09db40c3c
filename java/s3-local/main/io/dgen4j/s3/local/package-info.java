/** A local s3proxy on 127.0.0.1, started and stopped by the CLI, the S3 tests and the S3 benchmarks. */
package io.dgen4j.s3.local;
