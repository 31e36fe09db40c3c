/** Streaming checkpoints: the bounded-memory save/load pipeline, its buffer pool, manifest and results. */
package io.dgen4j.checkpoint;
