/** Client-neutral parts of the S3 backends: targets, settings, multipart plan, metadata. */
package io.dgen4j.s3;
