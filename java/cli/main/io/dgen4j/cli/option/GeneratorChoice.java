package io.dgen4j.cli.option;

import io.dgen4j.cli.Environment;
import io.dgen4j.gen.Generator;
import java.util.Locale;

/** The {@code --generator} switch (also {@code DGEN4J_DATA_GEN}): auto, native or java. */
public enum GeneratorChoice {
    AUTO(Generator.Kind.AUTO), NATIVE(Generator.Kind.NATIVE), JAVA(Generator.Kind.JAVA);

    public final Generator.Kind kind;

    GeneratorChoice(Generator.Kind kind) {
        this.kind = kind;
    }

    /** The choice named by {@code env}'s {@code DGEN4J_DATA_GEN}, or AUTO. */
    public static GeneratorChoice fromEnvironment(Environment env) {
        String v = env.get("DGEN4J_DATA_GEN");
        if (v == null || v.isBlank()) {
            return AUTO;
        }
        try {
            return valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("DGEN4J_DATA_GEN=" + v + " is not one of auto, native, java");
        }
    }
}
