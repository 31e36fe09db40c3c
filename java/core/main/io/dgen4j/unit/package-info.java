/**
 * The units every layer of dgen4j speaks: {@link io.dgen4j.unit.ByteSize}, the one grammar and the
 * formats of a number of bytes. A leaf package (it imports nothing of dgen4j), so that the
 * generators, the checkpoint pipeline, the storage backends, the DLIO reader, the benchmarks and
 * the CLI can all use it without an arrow between them.
 */
package io.dgen4j.unit;
