/**
 * The dgen4j command line: {@link io.dgen4j.cli.Main}, the exit codes and the one-line error
 * messages, and the rank protocol; commands, options, reports and the S3 wiring live in the
 * sub-packages, and only this module prints.
 */
package io.dgen4j.cli;
