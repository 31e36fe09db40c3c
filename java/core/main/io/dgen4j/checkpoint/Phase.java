package io.dgen4j.checkpoint;

/**
 * One stretch of a save's or load's wall time. A result's phases follow one another without
 * overlap and add up to its total ({@link SaveResult#phases()}, {@link LoadResult#phases()}).
 *
 * @param key     its key in {@code toMap()}'s {@code phases} object ({@code startUp}, {@code io}, ...)
 * @param label   its name for people ({@code start-up}, {@code I/O}, ...)
 * @param seconds how long it took
 * @param what    what happened during it, in a few words
 */
public record Phase(String key, String label, double seconds, String what) {}
