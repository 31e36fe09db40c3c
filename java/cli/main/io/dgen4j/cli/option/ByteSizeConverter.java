package io.dgen4j.cli.option;

import picocli.CommandLine;

/**
 * The options' size converter: {@code 4096}, {@code 64KiB}, {@code 32M}, {@code 1.5GiB},
 * {@code 10GB}, read with the one grammar of {@link io.dgen4j.unit.ByteSize} (which the S3
 * variables, the DLIO keys and the benchmark flags read too).
 */
public final class ByteSizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        return parse(value);
    }

    /** The exact number of bytes {@code value} names; a refusal is picocli's usage error. */
    public static long parse(String value) {
        try {
            return io.dgen4j.unit.ByteSize.parseBytes(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
