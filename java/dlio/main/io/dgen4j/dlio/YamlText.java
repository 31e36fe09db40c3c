package io.dgen4j.dlio;

import io.dgen4j.storage.ConfigFiles;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.NodeEvent;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.parser.Parser;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * YAML read with limits, for workload files and override values: at most {@link ConfigFiles#MAX_BYTES}
 * of text, collections nested at most {@value #MAX_DEPTH} deep, at most {@value #MAX_ALIASES} aliases
 * of collections, and no alias inside the collection it names (a recursive structure). The limits are
 * checked on the parser's events, which are produced without recursion, before the document is built
 * (which recurses): so a hostile file is refused with one line naming the limit and the line, never a
 * stack overflow or an exhausted heap.
 */
final class YamlText {
    /** The deepest nesting of mappings and sequences taken (DLIO's workloads nest 4 deep). */
    static final int MAX_DEPTH = 64;
    /** The most aliases of mappings and sequences taken (snakeyaml-engine's own default, stated here). */
    static final int MAX_ALIASES = 50;

    private YamlText() {}

    /**
     * The document {@code text} holds (maps, lists, scalars of the YAML core schema); {@code source}
     * names it in messages.
     *
     * @throws YamlLimitException when a limit is exceeded, naming it and the line
     * @throws YamlEngineException when the text is not valid YAML
     */
    static Object load(String text, String source) {
        if (text.length() > ConfigFiles.MAX_BYTES) {
            throw new YamlLimitException(String.format(Locale.ROOT, "%s is %d characters: the limit is %d (1 MiB)",
                    source, text.length(), ConfigFiles.MAX_BYTES));
        }
        LoadSettings settings = LoadSettings.builder().setLabel(source).setSchema(new CoreSchema())
                .setCodePointLimit(ConfigFiles.MAX_BYTES + 1).setMaxAliasesForCollections(MAX_ALIASES)
                .setAllowRecursiveKeys(false).build();
        checkShape(text, source, settings);
        return new Load(settings).loadFromString(text);
    }

    /** Walks the events: depth and recursive aliases (the composer and our readers recurse on both). */
    private static void checkShape(String text, String source, LoadSettings settings) {
        Parser parser = new ParserImpl(settings, new StreamReader(settings, text));
        Deque<String> open = new ArrayDeque<>(); // anchors of the collections being read, "" for none
        while (parser.hasNext()) {
            Event e = parser.next();
            switch (e.getEventId()) {
                case MappingStart, SequenceStart -> {
                    if (open.size() == MAX_DEPTH) {
                        throw new YamlLimitException(String.format(Locale.ROOT, "%s nests mappings and sequences "
                                + "more than %d deep (at line %d)", source, MAX_DEPTH, line(e)));
                    }
                    open.push(((NodeEvent) e).getAnchor().map(Anchor::getValue).orElse(""));
                }
                case MappingEnd, SequenceEnd -> open.pop();
                case Alias -> {
                    String name = ((AliasEvent) e).getAlias().getValue();
                    if (open.contains(name)) {
                        throw new YamlLimitException(String.format(Locale.ROOT, "%s: the alias *%s at line %d is "
                                + "inside the collection &%s it names: recursive structures are not taken", source,
                                name, line(e), name));
                    }
                }
                default -> { }
            }
        }
    }

    private static int line(Event e) {
        return e.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    /** A YAML text over one of the limits. */
    static final class YamlLimitException extends IllegalArgumentException {
        YamlLimitException(String message) {
            super(message);
        }
    }
}
