package io.dgen4j.storage;

import static io.dgen4j.storage.EndpointBackoff.FIRST_BACKOFF_NANOS;
import static io.dgen4j.storage.EndpointBackoff.MAX_BACKOFF_NANOS;
import static io.dgen4j.storage.EndpointBackoff.MAX_TIMEOUT_BACKOFF_NANOS;
import static io.dgen4j.storage.EndpointBackoff.TIMEOUT_BACKOFF_NANOS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.storage.EndpointBackoff.Admission;
import io.dgen4j.storage.EndpointBackoff.State;
import org.junit.jupiter.api.Test;

class EndpointBackoffTest {
    private static final long T = 1_000_000_000_000L;

    @Test
    void aTimeoutPutsAnEndpointDownForLongerThanARefusalAndDoublesToItsCap() {
        EndpointBackoff b = new EndpointBackoff();
        assertTrue(b.failed(Admission.NORMAL, T, true));
        assertEquals(TIMEOUT_BACKOFF_NANOS, b.backoffLeft(T));
        long now = T;
        long backoff = TIMEOUT_BACKOFF_NANOS;
        for (int i = 0; i < 6; i++) {
            now += backoff;
            assertEquals(Admission.PROBE, b.admit(now));
            assertTrue(b.failed(Admission.PROBE, now, true));
            backoff = Math.min(MAX_TIMEOUT_BACKOFF_NANOS, backoff * 2);
            assertEquals(backoff, b.backoffLeft(now));
        }
        assertEquals(MAX_TIMEOUT_BACKOFF_NANOS, backoff);
    }

    @Test
    void aTimeoutOfARequestUnderWayExtendsTheShortBackoffOfARefusal() {
        EndpointBackoff b = new EndpointBackoff();
        assertTrue(b.failed(Admission.NORMAL, T, false));
        assertEquals(FIRST_BACKOFF_NANOS, b.backoffLeft(T));
        assertTrue(b.failed(Admission.NORMAL, T + 1, true), "a hanging endpoint gets the timeout back-off");
        assertEquals(TIMEOUT_BACKOFF_NANOS, b.backoffLeft(T + 1));
        assertFalse(b.failed(Admission.NORMAL, T + 2, false), "already down for longer");
    }

    @Test
    void aNormalRequestsAnswerDoesNotBringADownEndpointUpButItsProbesDoes() {
        EndpointBackoff b = new EndpointBackoff();
        assertEquals(Long.MAX_VALUE, b.sinceAnswer(T));
        assertEquals(Admission.NORMAL, b.admit(T));
        assertTrue(b.failed(Admission.NORMAL, T, false));
        b.answered(Admission.NORMAL); // a request sent before the failure answered late
        assertEquals(State.DOWN, b.state());
        assertTrue(b.sinceAnswer(System.nanoTime()) < MAX_BACKOFF_NANOS);
        assertNull(b.admit(T + FIRST_BACKOFF_NANOS - 1));
        assertFalse(b.usable(T + FIRST_BACKOFF_NANOS - 1));
        Admission probe = b.admit(T + FIRST_BACKOFF_NANOS);
        assertEquals(Admission.PROBE, probe);
        assertEquals(State.PROBING, b.state());
        assertNull(b.admit(T + FIRST_BACKOFF_NANOS), "one probe at a time");
        assertEquals(Admission.NORMAL, b.admitPinned(T + FIRST_BACKOFF_NANOS), "a pinned object does not wait");
        b.answered(probe);
        assertEquals(State.UP, b.state());
        assertTrue(b.failed(Admission.NORMAL, T + 2 * FIRST_BACKOFF_NANOS, false));
        assertEquals(FIRST_BACKOFF_NANOS, b.backoffLeft(T + 2 * FIRST_BACKOFF_NANOS), "the back-off starts over");
    }

    @Test
    void aReleasedProbeLetsTheNextRequestProbeAtOnce() {
        EndpointBackoff b = new EndpointBackoff();
        b.failed(Admission.NORMAL, T, false);
        Admission probe = b.admit(T + FIRST_BACKOFF_NANOS);
        assertEquals(Admission.PROBE, probe);
        b.released(probe, T + FIRST_BACKOFF_NANOS + 5);
        assertEquals(State.DOWN, b.state());
        assertEquals(Admission.PROBE, b.admit(T + FIRST_BACKOFF_NANOS + 5));
    }

    @Test
    void aForcedRequestProbesADownEndpointWithinItsBackoff() {
        EndpointBackoff b = new EndpointBackoff();
        assertEquals(Admission.NORMAL, b.force(T));
        b.failed(Admission.NORMAL, T, false);
        assertNull(b.admit(T + 1));
        Admission forced = b.force(T + 1);
        assertEquals(Admission.PROBE, forced);
        assertEquals(Admission.NORMAL, b.force(T + 2), "its probe is out: the next forced request decides nothing");
        assertTrue(b.failed(forced, T + 3, false));
        assertEquals(2 * FIRST_BACKOFF_NANOS, b.backoffLeft(T + 3));
        Admission again = b.force(T + 4);
        b.answered(again);
        assertEquals(State.UP, b.state());
        assertEquals("up", b.state().label());
    }
}
