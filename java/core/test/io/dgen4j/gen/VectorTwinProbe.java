package io.dgen4j.gen;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Run in a fresh JVM by {@link VectorTwinTest}, with or without {@code --add-modules
 * jdk.incubator.vector}: prints which twin kernel {@link Generator.Kind#JAVA} gets, a golden hash
 * through it, and its verify of the same bytes with one flipped.
 */
public final class VectorTwinProbe {
    public static void main(String[] args) {
        System.out.println("available=" + JavaGenerator.vectorAvailable());
        System.out.println("status=" + JavaGenerator.vectorStatus());
        DataSpec spec = DataSpec.builder().seed(7).size(65536).dedupRatio(2).compressRatio(3).build();
        try (Generator gen = Generator.open(spec, Generator.Kind.JAVA, 2); Arena arena = Arena.ofShared()) {
            System.out.println("impl=" + gen.implementation());
            System.out.println("sha=" + Streams.sha256(Streams.bytes(gen, 0, spec.size())));
            MemorySegment seg = arena.allocate(spec.size());
            gen.fill(seg, 0);
            System.out.println("equal=" + gen.firstMismatch(seg, 0));
            seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 40000, (byte) (seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 40000) ^ 1));
            System.out.println("flipped=" + gen.firstMismatch(seg, 0));
        }
        try (Generator gen = new JavaGenerator(spec, 1, JavaGenerator.Kernel.VECTOR)) {
            System.out.println("forced=" + gen.implementation());
        } catch (IllegalStateException e) {
            System.out.println("forced=" + e.getMessage());
        }
        System.out.flush();
    }
}
