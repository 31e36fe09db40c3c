/**
 * Internal: the one JSON writer ({@link io.dgen4j.json.JsonWriter}, one line or indented, optionally
 * ASCII only) and a strict reader for small documents ({@link io.dgen4j.json.JsonReader}), in plain
 * Java so that core needs no JSON library. Used by both manifests (the file sidecar, the S3 metadata
 * entry), the CLI's {@code --json}, DLIO's output files and bench's {@code --json}; exported only to
 * the s3, dlio and cli modules (bench reads it from the class path). A leaf: it imports nothing of
 * dgen4j.
 */
package io.dgen4j.json;
