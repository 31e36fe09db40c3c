package io.dgen4j.cli.option;

import io.dgen4j.s3.internal.PartPlan;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.s3.S3Timeouts;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How S3 transfers are cut, checked and timed: {@code --part-size} (multipart part size of saves),
 * {@code --checksums} (the {@link S3Settings.ChecksumMode}) and {@code --s3-timeouts}
 * ({@link S3Timeouts}), over {@value S3Settings#PART_SIZE_VAR}, {@value S3Settings#CHECKSUMS_VAR} and
 * {@value S3Timeouts#VAR}.
 */
public final class S3TransferOptions {
    @Option(names = "--part-size", paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = {"S3 multipart part size of a save, 5MiB to 5GiB; the chunk size must be a multiple of it",
                    "(default: the chunk size; over " + S3Settings.PART_SIZE_VAR + ")."})
    Long partSize;

    @Option(names = "--checksums", paramLabel = "MODE", converter = ModeConverter.class,
            description = {"S3 checksums: crc32c (default: each part's CRC32C in a header, the object's full-object",
                    "CRC32C checked by the store and on load), when_required (none: for stores that refuse them) or",
                    "full (the client library's own, with trailers; over " + S3Settings.CHECKSUMS_VAR + ")."})
    S3Settings.ChecksumMode checksums;

    @Option(names = "--s3-timeouts", paramLabel = "SPEC",
            description = {"S3 waits: connect=, first-byte=, idle= and retry= (how long a failing request is retried),",
                    "any of them, e.g. first-byte=30s,idle=15s (default connect=5s,first-byte=10s,idle=10s,",
                    "retry=10s; over " + S3Timeouts.VAR + ", whose values it changes)."})
    String timeouts;

    /** Whether any of these options was given. */
    boolean given() {
        return partSize != null || checksums != null || timeouts != null;
    }

    /** The option names given, for messages. */
    String givenNames() {
        List<String> names = new ArrayList<>();
        if (partSize != null) {
            names.add("--part-size");
        }
        if (checksums != null) {
            names.add("--checksums");
        }
        if (timeouts != null) {
            names.add("--s3-timeouts");
        }
        return String.join(", ", names);
    }

    /**
     * {@code s} with these options over it.
     *
     * @throws IllegalArgumentException naming {@code --part-size} when it is outside S3's limits
     */
    S3Settings over(S3Settings s) {
        S3Settings.Builder b = s.toBuilder();
        if (partSize != null) {
            if (partSize < PartPlan.MIN_PART_SIZE || partSize > PartPlan.MAX_PART_SIZE) {
                throw new IllegalArgumentException(String.format("--part-size %s is outside S3's limits: parts are "
                        + "5MiB to 5GiB", size(partSize)));
            }
            b.partSize(partSize);
        }
        if (checksums != null) {
            b.checksumMode(checksums);
        }
        if (timeouts != null) {
            b.timeouts(S3Timeouts.parse(timeouts, "--s3-timeouts", s.timeouts()));
        }
        return b.build();
    }

    /**
     * Checks, before any data is generated, that a save of {@code size} bytes in chunks of
     * {@code chunk} fits the part size of {@code s}: whole parts per chunk (the backends send a
     * chunk's parts as slices of its buffer, never joining chunks) and at most 10,000 parts.
     *
     * @throws IllegalArgumentException naming the option or variable that set the part size
     */
    void checkSave(S3Settings s, long size, long chunk) {
        long part = s.partSizeFor(chunk);
        String what = partSize != null ? "--part-size " + size(part)
                : s.partSize().isPresent() ? S3Settings.PART_SIZE_VAR + "=" + size(part)
                : "the part size (the chunk size, " + size(part) + ")";
        if (size > chunk && chunk < PartPlan.MIN_PART_SIZE) {
            throw new IllegalArgumentException(String.format("--chunk %s is below S3's smallest part (5MiB): each "
                    + "chunk is sent as whole parts, so use a --chunk of 5MiB or more", size(chunk)));
        }
        if (size > chunk && chunk % part != 0) {
            throw new IllegalArgumentException(String.format("%s does not divide --chunk %s: each chunk is sent as "
                    + "whole parts, so the chunk size must be a multiple of the part size (e.g. --part-size %s)",
                    what, size(chunk), size(nearestDivisor(chunk, part))));
        }
        try {
            PartPlan.of(size, part);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
    }

    /** The part size of at least 5 MiB that divides {@code chunk} and is nearest {@code part}. */
    static long nearestDivisor(long chunk, long part) {
        long best = Math.min(chunk, PartPlan.MAX_PART_SIZE);
        for (long k = 1; chunk / k >= PartPlan.MIN_PART_SIZE && k <= 1_000_000; k++) {
            long d = chunk / k;
            if (chunk % k == 0 && d <= PartPlan.MAX_PART_SIZE
                    && (chunk % best != 0 || Math.abs(d - part) < Math.abs(best - part))) {
                best = d;
            }
        }
        return best;
    }

    /** A size as an option takes it: {@code 8MiB}, {@code 10.25MiB}, {@code 1000000B}. */
    private static String size(long bytes) {
        return io.dgen4j.unit.ByteSize.ofBytes(bytes).toString();
    }

    /** {@code --checksums}' values, as {@value S3Settings#CHECKSUMS_VAR} takes them. */
    static final class ModeConverter implements CommandLine.ITypeConverter<S3Settings.ChecksumMode> {
        @Override
        public S3Settings.ChecksumMode convert(String value) {
            try {
                return S3Settings.ChecksumMode.parse(value, "--checksums");
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
