package io.dgen4j.cli.option;

import picocli.CommandLine;

/** Parses a seed: an unsigned 64-bit decimal, or hex with {@code 0x}. */
public final class SeedConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        try {
            String v = value.trim();
            if (v.startsWith("0x") || v.startsWith("0X")) {
                return Long.parseUnsignedLong(v.substring(2), 16);
            }
            return Long.parseUnsignedLong(v);
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not a seed (an unsigned 64-bit integer, decimal or 0x-hex)");
        }
    }
}
