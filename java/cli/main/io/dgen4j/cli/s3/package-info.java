/** The S3 wiring of the CLI: backends found by {@code ServiceLoader}, endpoint probes, the local s3proxy. */
package io.dgen4j.cli.s3;
