/** The {@code aws} storage backend: S3 through the AWS SDK for Java v2's async client. */
package io.dgen4j.aws;
