package io.dgen4j.s3.internal;

import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.unit.ByteSize;
import java.util.Locale;

/**
 * How an object of a known size is cut into multipart-upload parts of one size (the last part
 * may be shorter). S3's limits: parts of 5 MiB to 5 GiB (the last may be smaller), at most 10,000
 * parts. A size that needs more parts is refused up front, before any data is generated, with
 * the arithmetic in the message.
 *
 * <p>Writers get chunk-aligned writes: by default the part size is the checkpoint's chunk size, so
 * one write is one part. A chunk may also hold several whole parts (chunk size a multiple of the
 * part size): its write is then sent as that many parts, slices of the same buffer, with no copy.
 * A chunk that would end inside a part is refused when the writer is opened
 * ({@link #checkChunk(long)}): joining chunks into a part would mean copying them, which the
 * backends do not do.
 *
 * <p>An empty object has no parts ({@link #parts()} is 0): backends store it with one plain PUT.
 *
 * @param objectSize the object's size in bytes
 * @param partSize   bytes per part (all but the last)
 * @param parts      number of parts
 */
public record PartPlan(long objectSize, long partSize, int parts) {
    /** Smallest part S3 takes (all but the last part). */
    public static final long MIN_PART_SIZE = 5L << 20;
    /** Largest part S3 takes. */
    public static final long MAX_PART_SIZE = 5L << 30;
    /** Most parts in one multipart upload. */
    public static final int MAX_PARTS = 10_000;

    /** Checks the fields against each other and against S3's limits. */
    public PartPlan {
        if (objectSize < 0) {
            throw new IllegalArgumentException("object size must be >= 0, got " + objectSize);
        }
        checkPartSize(partSize);
        if (parts != partsFor(objectSize, partSize)) {
            throw new IllegalArgumentException(String.format("%d bytes in parts of %d need %d parts, not %d",
                    objectSize, partSize, partsFor(objectSize, partSize), parts));
        }
    }

    /**
     * The plan for {@code objectSize} bytes in parts of {@code partSize}.
     *
     * @throws IllegalArgumentException when the part size is outside 5 MiB..5 GiB, or the object
     *         needs more than 10,000 parts (the message gives the smallest part size that fits)
     */
    public static PartPlan of(long objectSize, long partSize) {
        if (objectSize < 0) {
            throw new IllegalArgumentException("object size must be >= 0, got " + objectSize);
        }
        checkPartSize(partSize);
        long parts = partsFor(objectSize, partSize);
        if (parts > MAX_PARTS) {
            long needed = partsFor(objectSize, MAX_PARTS);
            if (needed > MAX_PART_SIZE) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "a %s object in %s parts needs %d "
                        + "parts; S3 allows %d parts of at most %s, so one object holds at most %s (%d bytes)",
                        size(objectSize), size(partSize), parts, MAX_PARTS, size(MAX_PART_SIZE),
                        size(MAX_PARTS * MAX_PART_SIZE), MAX_PARTS * MAX_PART_SIZE));
            }
            throw new IllegalArgumentException(String.format(Locale.ROOT, "a %s object in %s parts needs %d parts; "
                    + "S3 allows %d: use a part size of at least %s (%d bytes)", size(objectSize), size(partSize),
                    parts, MAX_PARTS, size(needed), needed));
        }
        return new PartPlan(objectSize, partSize, (int) parts);
    }

    /**
     * The plan of a save's write request: its size in parts of {@code settings}' part size for the
     * request's chunk size (one part per chunk by default), each chunk checked to fill whole parts
     * ({@link #checkChunk}). What a multipart writer plans when it
     * opens, and what a backend's {@code checkWrite} checks before any request.
     *
     * @throws IllegalArgumentException as {@link #of} and {@link #checkChunk} do
     */
    public static PartPlan forWrite(io.dgen4j.storage.WriteRequest r, S3Settings settings) {
        return forWrite(r, settings, MAX_PART_SIZE);
    }

    /**
     * {@link #forWrite(io.dgen4j.storage.WriteRequest, S3Settings)} for a client whose parts cost more
     * per byte above {@code largestPart}: unless the settings set a part size, each chunk is cut into
     * equal whole parts ({@link #defaultPartSize(long, long, long)}).
     */
    public static PartPlan forWrite(io.dgen4j.storage.WriteRequest r, S3Settings settings, long largestPart) {
        long chunk = r.chunkSize();
        long c = chunk > 0 ? chunk : MIN_PART_SIZE;
        long part = settings.partSize().isPresent() ? settings.partSizeFor(c)
                : defaultPartSize(c, r.size(), largestPart);
        PartPlan plan = of(r.size(), part);
        if (chunk > 0) {
            plan.checkChunk(chunk);
        }
        return plan;
    }

    /**
     * What every S3 backend's {@code StorageProvider.checkWrite} checks, without a request: the target
     * is an {@code s3://bucket/key} and {@link #forWrite} plans it with the request's settings (else
     * {@code defaults}: the session's environment's).
     *
     * @throws IllegalArgumentException naming the bucket or key rule, or the part limit
     */
    public static PartPlan check(io.dgen4j.storage.WriteRequest r, java.util.function.Supplier<S3Settings> defaults) {
        return check(r, defaults, MAX_PART_SIZE);
    }

    /** {@link #check(io.dgen4j.storage.WriteRequest, java.util.function.Supplier)} for a client's largest efficient part. */
    public static PartPlan check(io.dgen4j.storage.WriteRequest r, java.util.function.Supplier<S3Settings> defaults,
                                 long largestPart) {
        S3Location.of(r.target());
        S3Settings settings = r.options().get(S3Settings.class).orElseGet(defaults);
        return forWrite(r, settings, largestPart);
    }

    /** The default part size for a chunk size: the chunk size, raised to 5 MiB or lowered to 5 GiB. */
    public static long defaultPartSize(long chunkSize) {
        return Math.max(MIN_PART_SIZE, Math.min(MAX_PART_SIZE, chunkSize));
    }

    /**
     * The default part size for a chunk size and a client that prefers parts of at most
     * {@code largestPart}: {@link #defaultPartSize(long)}, halved while it is above that, the half
     * still divides the chunk, is 5 MiB or more, and an object of {@code objectSize} stays within
     * 10,000 parts.
     */
    public static long defaultPartSize(long chunkSize, long objectSize, long largestPart) {
        long part = defaultPartSize(chunkSize);
        while (part > largestPart && part % 2 == 0 && part / 2 >= MIN_PART_SIZE && chunkSize % (part / 2) == 0
                && partsFor(objectSize, part / 2) <= MAX_PARTS) {
            part /= 2;
        }
        return part;
    }

    /**
     * Checks that writes of {@code chunkSize} at chunk-aligned offsets map onto whole parts: the
     * chunk size is a multiple of the part size (or the object fits in one chunk).
     *
     * @throws IllegalArgumentException saying which sizes to use
     */
    public void checkChunk(long chunkSize) {
        if (chunkSize <= 0) {
            throw new IllegalArgumentException("chunk size must be > 0, got " + chunkSize);
        }
        if (chunkSize % partSize != 0 && chunkSize < objectSize) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "chunks of %s do not fill whole parts of %s: "
                    + "the chunk size must be a multiple of the part size (S3 parts are 5 MiB at least; use chunks of "
                    + "%s or a multiple)", size(chunkSize), size(partSize), size(partSize)));
        }
    }

    /** 1-based number of the part that starts at {@code offset}. */
    public int partNumber(long offset) {
        if (offset < 0 || offset >= objectSize || offset % partSize != 0) {
            throw new IllegalArgumentException(String.format("offset %d is not the start of a part (parts of %d "
                    + "bytes, object of %d)", offset, partSize, objectSize));
        }
        return (int) (offset / partSize) + 1;
    }

    /** Offset of part {@code number} (1-based). */
    public long partOffset(int number) {
        checkNumber(number);
        return (number - 1) * partSize;
    }

    /** Length of part {@code number} (1-based): the part size, or less for the last. */
    public long partLength(int number) {
        checkNumber(number);
        return Math.min(partSize, objectSize - partOffset(number));
    }

    private void checkNumber(int number) {
        if (number < 1 || number > parts) {
            throw new IllegalArgumentException(String.format("part %d does not exist: the object has %d parts",
                    number, parts));
        }
    }

    /** ceil(objectSize / partSize), without the overflow of {@code objectSize + partSize - 1} near Long.MAX_VALUE. */
    private static long partsFor(long objectSize, long partSize) {
        return objectSize / partSize + (objectSize % partSize == 0 ? 0 : 1);
    }

    private static void checkPartSize(long partSize) {
        if (partSize < MIN_PART_SIZE || partSize > MAX_PART_SIZE) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "part size must be between 5 MiB and 5 GiB "
                    + "(S3's limits), got %s", size(partSize)));
        }
    }

    /** A size in binary units, rounded up: {@code 100 GiB}, {@code 10.24 MiB}, {@code 12 B}. */
    static String size(long bytes) {
        return ByteSize.roundedUp(bytes);
    }
}
