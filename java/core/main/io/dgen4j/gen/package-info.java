/**
 * The data model and its generators: {@link io.dgen4j.gen.DataSpec}, the native
 * {@link io.dgen4j.gen.NativeGenerator} and its pure-Java twin {@link io.dgen4j.gen.JavaGenerator},
 * both behind {@link io.dgen4j.gen.Generator}.
 */
package io.dgen4j.gen;
