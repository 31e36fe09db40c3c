/** The picocli commands, one class per subcommand of {@code dgen4j}. */
package io.dgen4j.cli.command;
