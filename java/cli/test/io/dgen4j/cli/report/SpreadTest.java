package io.dgen4j.cli.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The median, min-max and tie rule of {@code --rounds}. */
class SpreadTest {
    @Test
    void medianOfAnOddCountIsTheMiddleValueOfAnEvenCountTheMeanOfTheTwoMiddleOnes() {
        Spread odd = Spread.of(5, 1, 3);
        assertEquals(new Spread(3, 1, 5, 3), odd);
        Spread even = Spread.of(List.of(4.0, 1.0, 10.0, 2.0));
        assertEquals(new Spread(3, 1, 10, 4), even);
        assertEquals(new Spread(7, 7, 7, 1), Spread.of(7));
    }

    @Test
    void nanValuesAreLeftOutAndNoValueIsNaN() {
        assertEquals(new Spread(2, 1, 3, 2), Spread.of(1, Double.NaN, 3));
        Spread none = Spread.of(Double.NaN);
        assertEquals(0, none.rounds());
        assertTrue(Double.isNaN(none.median()) && Double.isNaN(none.min()) && Double.isNaN(none.max()));
    }

    @Test
    void overlappingRangesOfMoreThanOneRoundTieDisjointOnesDoNot() {
        Spread best = Spread.of(100, 120, 110);
        assertTrue(Spread.of(90, 101, 95).ties(best), "101 is above best's 100: within the spread");
        assertTrue(best.ties(Spread.of(90, 101, 95)), "a tie either way round");
        assertTrue(Spread.of(90, 100).ties(best), "touching ranges tie");
        assertFalse(Spread.of(80, 99.9, 90).ties(best), "below best's lowest round");
        assertTrue(Spread.of(105, 115).ties(best), "inside the range");
        // one round has no spread: 0.49 vs 1.00 of a single run is not called a tie, nor are equal values
        assertFalse(Spread.of(100).ties(Spread.of(100)));
        assertFalse(Spread.of(100).ties(best));
        assertFalse(best.ties(Spread.of(110)));
    }

    @Test
    void formatsTheMedianAloneForOneRoundElseWithItsRange() {
        assertEquals("12.35", Spread.of(12.346).format("%.2f"));
        assertEquals("2.0 (1.0-4.0)", Spread.of(1, 2, 4).format("%.1f"));
        assertEquals(java.util.Map.of("median", 2.0, "min", 1.0, "max", 4.0), Spread.of(4, 2, 1).toMap());
    }
}
