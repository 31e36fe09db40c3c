/**
 * Checkpoint formats: a list of tensors (name path, dtype, shape) laid out as a file whose size and
 * every offset are known before a byte is written. {@link io.dgen4j.format.Layout} maps each byte
 * of the file to framing (zip records, pickle, padding, CRCs) or to a range of the generated
 * stream that fills a tensor's payload in place; formats {@code raw} (the stream alone) and
 * {@code torch} (what {@code torch.save} writes). docs/FORMATS.md describes the bytes.
 */
package io.dgen4j.format;
