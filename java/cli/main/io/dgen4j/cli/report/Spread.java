package io.dgen4j.cli.report;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One figure over the rounds of a comparison ({@code --rounds}): its median, lowest and highest
 * value. Two figures whose min-max ranges overlap are a tie: their difference is within what the
 * rounds themselves spread over, so neither is shown to be faster.
 *
 * @param median the median (of an even count, the mean of the two middle values)
 * @param min    the lowest value
 * @param max    the highest value
 * @param rounds how many values (rounds) it was taken over
 */
public record Spread(double median, double min, double max, int rounds) {
    /** The spread of {@code values}, NaN ones left out (all NaN, or none: NaN figures over 0 rounds). */
    public static Spread of(double... values) {
        double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return new Spread(median, v[0], v[n - 1], n);
    }

    /** The spread of {@code values}. */
    public static Spread of(List<Double> values) {
        return of(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /**
     * Whether this figure and {@code other} tie: both were taken over more than one round and their
     * min-max ranges overlap. One round has no spread to judge by, so nothing ties there but equal values.
     */
    public boolean ties(Spread other) {
        if (rounds < 2 || other.rounds < 2) {
            return false;
        }
        return min <= other.max && other.min <= max;
    }

    /** The median alone for one round, else {@code median (min-max)}, each with {@code format}. */
    public String format(String format) {
        String m = String.format(Locale.ROOT, format, median);
        if (rounds < 2) {
            return m;
        }
        return m + " (" + String.format(Locale.ROOT, format, min) + "-" + String.format(Locale.ROOT, format, max) + ")";
    }

    /** {@code {"median": .., "min": .., "max": ..}} for JSON. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median", median);
        m.put("min", min);
        m.put("max", max);
        return m;
    }
}
