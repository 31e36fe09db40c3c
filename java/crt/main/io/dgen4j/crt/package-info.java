/**
 * The {@code crt} storage backend: {@link io.dgen4j.crt.CrtStorageProvider} serves {@code s3://}
 * targets through the AWS CRT-based S3 client, driving multipart uploads itself (parts straight
 * from the caller's segments, completed with the sorted ETags, then checked with a HEAD) and
 * reading with ranged GETs into the caller's segments. Its settings are
 * {@link io.dgen4j.s3.S3Settings}, passed as backend options or read from the environment.
 */
package io.dgen4j.crt;
