/**
 * The S3 API: {@code s3://} targets ({@link io.dgen4j.s3.S3Location}), settings from the environment or a
 * builder ({@link io.dgen4j.s3.S3Settings}, {@link io.dgen4j.s3.EndpointSet}, {@link io.dgen4j.s3.S3Timeouts}),
 * and the one {@code s3://} storage provider ({@link io.dgen4j.s3.S3StorageProvider}), which serves every
 * installed S3 client ({@code io.dgen4j.s3.spi}) as a backend of its name through the client-neutral
 * driver ({@code io.dgen4j.s3.internal}).
 */
package io.dgen4j.s3;
