package io.dgen4j.dlio;

import java.util.Locale;

/** The element types DLIO sizes tensors with, and their bytes per element (DLIO's {@code get_datatype_size}). */
public enum Datatype {
    INT8(1), UINT8(1), FP16(2), BF16(2), FP32(4), FP64(8);

    private final int bytes;

    Datatype(int bytes) {
        this.bytes = bytes;
    }

    /** Bytes per element. */
    public int bytes() {
        return bytes;
    }

    /** The torch dtype DLIO's {@code get_torch_datatype} gives it (the dtype of its tensors in a torch file). */
    public io.dgen4j.format.DType dtype() {
        return switch (this) {
            case INT8 -> io.dgen4j.format.DType.INT8;
            case UINT8 -> io.dgen4j.format.DType.UINT8;
            case FP16 -> io.dgen4j.format.DType.FLOAT16;
            case BF16 -> io.dgen4j.format.DType.BFLOAT16;
            case FP32 -> io.dgen4j.format.DType.FLOAT32;
            case FP64 -> io.dgen4j.format.DType.FLOAT64;
        };
    }

    /** The name as DLIO's YAML spells it ({@code fp16}, ...). */
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The datatype a YAML value names.
     *
     * @throws IllegalArgumentException when it names none
     */
    public static Datatype parse(String value) {
        for (Datatype d : values()) {
            if (d.yamlName().equals(value)) {
                return d;
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not one of int8, uint8, fp16, bf16, fp32, fp64");
    }
}
