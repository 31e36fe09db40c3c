/**
 * What an S3 client module implements: {@link io.dgen4j.s3.spi.S3ClientProvider}, registered with
 * {@link java.util.ServiceLoader}, and the per-endpoint transports it makes.
 */
package io.dgen4j.s3.spi;
