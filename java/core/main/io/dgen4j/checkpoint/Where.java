package io.dgen4j.checkpoint;

/**
 * Where a save wrote or a load read.
 *
 * @param target   the target as given ({@code /nvme/ckpt.bin}, {@code s3://bucket/key}, ...)
 * @param backend  the backend's one-line description
 * @param directIo whether the I/O bypassed the page cache
 */
public record Where(String target, String backend, boolean directIo) {}
