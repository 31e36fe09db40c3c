/** What the commands print: text tables, JSON, plots and the progress bar. */
package io.dgen4j.cli.report;
