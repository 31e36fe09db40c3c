/**
 * The dgen4j command line: {@link io.dgen4j.cli.Main}, the {@link io.dgen4j.cli.Environment} it hands
 * down to the commands, the exit codes and the one-line error messages; commands (and the rank protocol
 * they share), options, reports and the S3 wiring live in the sub-packages, and only this module prints.
 */
package io.dgen4j.cli;
