package io.dgen4j.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * {@code --help} wrapped at spaces only. Picocli breaks lines wherever {@link java.text.BreakIterator}
 * allows, after a {@code .}, {@code :} or {@code /} inside a word too, which cut {@code http://10.0.0.} /
 * {@code {1...8}:9000}, {@code direct:} / {@code //} and {@code summary.} / {@code json} across lines;
 * the command descriptions and the option and parameter lists are wrapped here instead, at the last
 * space that fits (a word longer than the line is cut), and so is the usage synopsis, whose
 * {@code [--endpoints=URI[,URI...]]} picocli cut after the comma. The layout is picocli's otherwise.
 */
final class HelpWrap implements CommandLine.IHelpFactory {
    static final HelpWrap FACTORY = new HelpWrap();

    private HelpWrap() {}

    @Override
    public Help create(CommandSpec spec, ColorScheme colors) {
        return new Help(spec, colors) {
            @Override
            public Layout createDefaultLayout(List<OptionSpec> options, List<PositionalParamSpec> positionals,
                    ColorScheme cs) {
                int longOptions = calcLongOptionColumnWidth(options, positionals, cs);
                Column[] columns = TextTable.forDefaultColumns(cs, longOptions, spec.usageMessage().width()).columns();
                return new Layout(cs, new AtSpaces(cs, columns), createDefaultOptionRenderer(),
                        createDefaultParameterRenderer());
            }

            /**
             * The synopsis, wrapped as picocli wraps it (continuation lines under the command's
             * first option, or at the heading's width where that is too far right) but at spaces:
             * picocli's own break inside {@code [--endpoints=URI[,URI...]]} after the comma.
             */
            @Override
            protected String insertSynopsisCommandName(int headingLength, Help.Ansi.Text details) {
                String name = spec.qualifiedName();
                int width = spec.usageMessage().width();
                double threshold = spec.usageMessage().synopsisAutoIndentThreshold();
                int indent = headingLength + name.length() + 1;
                if (indent > width * threshold) {
                    int given = spec.usageMessage().synopsisIndent();
                    indent = Math.min(given < 0 ? headingLength : given, (int) (0.9 * width));
                }
                AtSpaces table = new AtSpaces(colorScheme(), new Column[] {new Column(width, 0, Column.Overflow.WRAP)});
                table.indentWrappedLines = indent;
                // the heading ("Usage: ") is printed before: padding of its width, cut off again below
                Help.Ansi.Text padding = Help.Ansi.OFF.new Text("X".repeat(headingLength), colorScheme());
                table.addRowValues(padding.concat(colorScheme().commandText(name)).concat(details));
                return table.toString().substring(headingLength);
            }

            @Override
            public String description(Object... params) {
                AtSpaces table = new AtSpaces(colorScheme(),
                        new Column[] {new Column(spec.usageMessage().width(), 0, Column.Overflow.WRAP)});
                table.indentWrappedLines = 0;
                for (String line : spec.usageMessage().description()) {
                    table.addRowValues(String.format(line, params));
                }
                return table.toString();
            }
        };
    }

    /** A table whose wrapping columns break lines at spaces. */
    static final class AtSpaces extends TextTable {
        private final ColorScheme colors;

        AtSpaces(ColorScheme colors, Column[] columns) {
            super(colors, columns);
            this.colors = colors;
        }

        @Override
        public Cell putValue(int row, int col, Help.Ansi.Text value) {
            Column column = columns()[col];
            String plain = value == null ? "" : value.plainString();
            if (column.overflow != Column.Overflow.WRAP || plain.length() + column.indent <= column.width) {
                return super.putValue(row, col, value);
            }
            Cell cell = null;
            int start = 0;
            for (boolean first = true; start < plain.length(); first = false) {
                int room = column.width - column.indent - (first ? 0 : indentWrappedLines);
                int end = start + room;
                if (end >= plain.length()) {
                    end = plain.length();
                } else {
                    int space = plain.lastIndexOf(' ', end);
                    end = space > start ? space : end;
                }
                Help.Ansi.Text piece = value.substring(start, end);
                if (!first) {
                    addEmptyRow();
                    row++;
                    piece = colors.text(" ".repeat(indentWrappedLines)).concat(piece);
                }
                cell = super.putValue(row, col, piece);
                for (start = end; start < plain.length() && plain.charAt(start) == ' '; start++) {
                    // the space at the break is not printed
                }
            }
            return cell;
        }
    }
}
