/**
 * Client-neutral parts of the S3 backends: targets, settings, multipart plan, metadata, and the
 * driver that every backend runs on through its {@link io.dgen4j.s3.spi.S3Transport}: the endpoint pool
 * with per-request balancing, failover and per-endpoint statistics ({@link io.dgen4j.s3.S3Endpoints}),
 * the multipart writer ({@link io.dgen4j.s3.MultipartWriter}) and the ranged reader
 * ({@link io.dgen4j.s3.RangedReader}).
 */
package io.dgen4j.s3;

import io.dgen4j.s3.spi.S3Transport;
