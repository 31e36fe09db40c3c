/** The jextract-shaped bindings of {@code jextract/dgen4j.h}. Nothing else lives here. */
package io.dgen4j.ffi;
