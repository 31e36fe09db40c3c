/**
 * DLIO workload configs, DLIO's checkpoint plan, and the checkpoint-only workflow run with
 * streaming checkpoints. See docs/DLIO.md for the arithmetic.
 */
package io.dgen4j.dlio;
