package io.dgen4j.gen;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;

/**
 * Whether the twin can run on the Vector API, decided once: {@code jdk.incubator.vector} must be in
 * the boot layer ({@code --add-modules jdk.incubator.vector}) and the CPU must have vectors of at
 * least 256 bits (narrower ones are emulated and slower than plain Java). {@code VectorStripes} is
 * only loaded when the module is present, by name, so that no class of the module is ever resolved
 * without it.
 */
final class VectorSupport {
    /** The incubator module the vector twin needs. */
    static final String MODULE = "jdk.incubator.vector";
    /** System property: {@code true} keeps the twin scalar even where the Vector API is available. */
    static final String PROP_DISABLE = "dgen4j.vector.disable";

    private static final MethodHandle FACTORY;
    private static final String REASON;

    static {
        MethodHandle factory = null;
        String reason;
        if (Boolean.getBoolean(PROP_DISABLE)) {
            reason = "disabled (-D" + PROP_DISABLE + "=true)";
        } else if (ModuleLayer.boot().findModule(MODULE).isEmpty()) {
            reason = MODULE + " is not in the boot layer (run java with --add-modules " + MODULE + ")";
        } else {
            try {
                Class<?> c = Class.forName("io.dgen4j.gen.VectorStripes");
                MethodHandle bits = MethodHandles.lookup().findStatic(c, "preferredBits", MethodType.methodType(int.class));
                int b = (int) bits.invokeExact();
                if (b < 256) {
                    reason = "the CPU's vectors are " + b + " bits (256 or more needed)";
                } else {
                    factory = MethodHandles.lookup().findConstructor(c, MethodType.methodType(void.class, int.class))
                            .asType(MethodType.methodType(StripeKernel.class, int.class));
                    reason = "Vector API, " + b + "-bit vectors";
                }
            } catch (Throwable t) {
                reason = "the Vector API failed to start: " + t;
            }
        }
        FACTORY = factory;
        REASON = reason;
    }

    private VectorSupport() {}

    /** Whether the vector twin is used. */
    static boolean available() {
        return FACTORY != null;
    }

    /** Why the twin is vectorized or not, for {@code info}. */
    static String reason() {
        return REASON;
    }

    /** A new vector kernel, when available. */
    static Optional<StripeKernel> newKernel(int randomBytes) {
        if (FACTORY == null) {
            return Optional.empty();
        }
        try {
            return Optional.of((StripeKernel) FACTORY.invokeExact(randomBytes));
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create the Vector API kernel", t);
        }
    }
}
