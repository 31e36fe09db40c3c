/** The {@code minio} storage backend: {@code s3://} targets through the MinIO Java client. */
package io.dgen4j.minio;
