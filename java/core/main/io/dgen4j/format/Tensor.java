package io.dgen4j.format;

import java.util.Arrays;
import java.util.List;

/**
 * One tensor of a checkpoint: its name path, element type and shape. The path names the nested
 * dictionaries of a state dict: {@code model/layers.0.weight} is {@code state["model"]["layers.0.weight"]}
 * ({@code /} nests, so names may hold dots as Hugging Face names do).
 *
 * @param path  the keys from the top-level dict down, at least one, none empty
 * @param dtype the element type
 * @param shape the sizes of its dimensions (none for a scalar), each {@code >= 0}
 */
public record Tensor(List<String> path, DType dtype, long[] shape) {
    /** Checks and copies the parts. */
    public Tensor {
        path = List.copyOf(path);
        if (path.isEmpty() || path.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("tensor name '" + String.join("/", path)
                    + "' has an empty key (names are keys joined by '/')");
        }
        if (dtype == null) {
            throw new IllegalArgumentException("tensor " + String.join("/", path) + " has no dtype");
        }
        shape = shape.clone();
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("tensor " + String.join("/", path) + " has a negative dimension: "
                        + Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, d);
        }
        Math.multiplyExact(n, (long) dtype.itemSize()); // its bytes fit a long, or the list is refused
    }

    /** A tensor named {@code name} ({@code /} between nested keys). */
    public static Tensor of(String name, DType dtype, long... shape) {
        return new Tensor(List.of(name.split("/", -1)), dtype, shape);
    }

    /** The name path with {@code /} between keys. */
    public String name() {
        return String.join("/", path);
    }

    /** Its elements (1 for a scalar). */
    public long numel() {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    /** Its payload bytes. */
    public long bytes() {
        return numel() * dtype.itemSize();
    }

    /** The shape as written in tensor lists: {@code [4096,4096]}, {@code []} for a scalar. */
    public String shapeText() {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < shape.length; i++) {
            b.append(i == 0 ? "" : ",").append(shape[i]);
        }
        return b.append(']').toString();
    }

    /** The shape (a copy). */
    @Override
    public long[] shape() {
        return shape.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tensor t && path.equals(t.path) && dtype == t.dtype && Arrays.equals(shape, t.shape);
    }

    @Override
    public int hashCode() {
        return (path.hashCode() * 31 + dtype.hashCode()) * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return name() + " " + dtype.label() + " " + shapeText();
    }
}
