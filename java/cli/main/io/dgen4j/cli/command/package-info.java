/**
 * The picocli commands, one class per subcommand of {@code dgen4j}, and the runs they share (the rank
 * protocol, {@code Ranks}; the old-vs-new comparison).
 */
package io.dgen4j.cli.command;
