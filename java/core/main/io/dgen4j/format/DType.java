package io.dgen4j.format;

import java.util.Locale;

/** A tensor's element type: its size and the names torch gives it. */
public enum DType {
    FLOAT64("float64", 8, "DoubleStorage"),
    FLOAT32("float32", 4, "FloatStorage"),
    FLOAT16("float16", 2, "HalfStorage"),
    BFLOAT16("bfloat16", 2, "BFloat16Storage"),
    INT64("int64", 8, "LongStorage"),
    INT32("int32", 4, "IntStorage"),
    INT16("int16", 2, "ShortStorage"),
    INT8("int8", 1, "CharStorage"),
    UINT8("uint8", 1, "ByteStorage"),
    BOOL("bool", 1, "BoolStorage");

    private final String label;
    private final int itemSize;
    private final String torchStorage;

    DType(String label, int itemSize, String torchStorage) {
        this.label = label;
        this.itemSize = itemSize;
        this.torchStorage = torchStorage;
    }

    /** The name as torch prints it without {@code torch.}: float32, bfloat16, ... */
    public String label() {
        return label;
    }

    /** Bytes per element. */
    public int itemSize() {
        return itemSize;
    }

    /** The legacy storage class {@code torch.save} names in its pickle, e.g. {@code FloatStorage}. */
    public String torchStorage() {
        return torchStorage;
    }

    /**
     * Parses a label ({@code float32}), torch's aliases ({@code float}, {@code half}, {@code long},
     * {@code fp16}, {@code bf16}, ...) or the same with a {@code torch.} prefix.
     */
    public static DType parse(String s) {
        String t = s == null ? "" : s.strip().toLowerCase(Locale.ROOT);
        if (t.startsWith("torch.")) {
            t = t.substring("torch.".length());
        }
        DType d = switch (t) {
            case "float64", "double", "fp64" -> FLOAT64;
            case "float32", "float", "fp32" -> FLOAT32;
            case "float16", "half", "fp16" -> FLOAT16;
            case "bfloat16", "bf16" -> BFLOAT16;
            case "int64", "long" -> INT64;
            case "int32", "int" -> INT32;
            case "int16", "short" -> INT16;
            case "int8" -> INT8;
            case "uint8" -> UINT8;
            case "bool" -> BOOL;
            default -> null;
        };
        if (d == null) {
            throw new IllegalArgumentException("'" + s + "' is not a dtype (float64, float32, float16, bfloat16, "
                    + "int64, int32, int16, int8, uint8, bool)");
        }
        return d;
    }

    @Override
    public String toString() {
        return label;
    }
}
