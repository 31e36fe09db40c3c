/** The picocli command line; the only package that prints. */
package io.dgen4j.cli;
