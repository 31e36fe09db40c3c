/** The option groups (picocli mixins and arg groups) and converters the commands share. */
package io.dgen4j.cli.option;
