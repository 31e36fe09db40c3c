package io.dgen4j.cli.option;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import picocli.CommandLine;

/** A path option that must name a file: refuses nothing, a trailing {@code /}, and invalid paths. */
public final class FilePath implements CommandLine.ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
        if (value == null || value.isBlank()) {
            throw new CommandLine.TypeConversionException("a file name is needed, got nothing");
        }
        if (value.endsWith("/")) {
            throw new CommandLine.TypeConversionException("'" + value + "' ends with '/': it must name a file");
        }
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a valid path: " + e.getReason());
        }
    }
}
