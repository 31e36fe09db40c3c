/**
 * The {@code crt} storage backend: {@link io.dgen4j.crt.CrtClient} lets the s3:// provider serve
 * {@code s3://} targets through the AWS CRT-based S3 client, one client per endpoint set
 * ({@link io.dgen4j.crt.CrtTransport}, made by {@link io.dgen4j.crt.CrtTransportFactory}), driven by
 * the shared S3 driver of {@code io.dgen4j.s3} (multipart uploads with parts straight from the
 * caller's segments, balanced over the endpoints with failover, completed with the sorted ETags and
 * checked with a HEAD; ranged GETs into the caller's segments). Its settings are
 * {@link io.dgen4j.s3.S3Settings}, passed as backend options or read from the environment.
 */
package io.dgen4j.crt;
