package io.dgen4j.nativelib;

import io.dgen4j.gen.DataSpec;
import io.dgen4j.gen.Generator;

/** Run in a fresh JVM by {@link NativeLibraryTest}: reports how the library loaded. */
public final class LoaderProbe {
    public static void main(String[] args) {
        System.out.println("available=" + NativeLibrary.isAvailable());
        System.out.println("source=" + NativeLibrary.source().orElse("-"));
        System.out.println("failure=" + NativeLibrary.failure().map(Throwable::getMessage).orElse("-"));
        try {
            for (int i = 0; i < 2; i++) {
                try (Generator g = Generator.open(DataSpec.builder().size(4096).seed(1).build())) {
                    System.out.println("impl=" + g.implementation());
                }
            }
        } catch (Throwable t) {
            System.out.println("error=" + t.getClass().getName() + ": " + t.getMessage());
        }
        System.out.flush();
    }
}
