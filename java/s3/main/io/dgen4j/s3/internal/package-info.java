/**
 * The client-neutral S3 driver, exported only to the client modules and the CLI: the endpoint pool with
 * per-request balancing, failover and per-endpoint statistics ({@link io.dgen4j.s3.internal.S3Endpoints}),
 * the multipart writer ({@link io.dgen4j.s3.internal.MultipartWriter}), the ranged reader
 * ({@link io.dgen4j.s3.internal.RangedReader}), the part plan ({@link io.dgen4j.s3.internal.PartPlan}), the
 * manifest as user metadata ({@link io.dgen4j.s3.internal.MetadataCodec}), endpoint probes, and one endpoint's
 * view of a shared AWS SDK client for the aws and crt modules ({@link io.dgen4j.s3.internal.RoutedClient}). (The local
 * s3proxy of quickstart, tests and benchmarks is the artifact {@code dgen4j-s3-local}.)
 */
package io.dgen4j.s3.internal;
