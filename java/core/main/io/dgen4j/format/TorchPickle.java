package io.dgen4j.format;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code data.pkl} of {@code torch.save}: pickle protocol 2 of a state dict of nested dicts,
 * opcode for opcode as CPython's C pickler emits it under torch's persistent ids (every string
 * and tuple memoized with BINPUT; the globals and the constant strings {@code 'storage'} and
 * {@code 'cpu'} met again are BINGETs; dicts of two or more items as MARK ... SETITEMS in batches of
 * 1000, of one item as SETITEM). Each tensor is
 * {@code torch._utils._rebuild_tensor_v2(storage, 0, size, stride, False, OrderedDict())} with the
 * storage a persistent id {@code ('storage', torch.<T>Storage, '<key>', 'cpu', numel)}: only what
 * {@code torch.load(weights_only=True)} allows.
 */
final class TorchPickle {
    private static final int BATCH = 1000;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    /** Memo slots of objects pickled once and fetched again: globals and the constant strings. */
    private final Map<String, Integer> shared = new HashMap<>();
    private int memo;
    /** The tensors in the order the pickle meets them (their storage keys are their indexes here). */
    private final List<Tensor> order = new ArrayList<>();

    private TorchPickle() {}

    /** The pickle of {@code tensors} as a state dict, and the order it meets them in. */
    static Result of(List<Tensor> tensors) {
        TorchPickle p = new TorchPickle();
        p.out.write(0x80); // PROTO 2
        p.out.write(2);
        p.dict(tree(tensors));
        p.out.write('.'); // STOP
        return new Result(p.out.toByteArray(), List.copyOf(p.order));
    }

    /** The pickle's bytes and the tensors in storage-key order. */
    record Result(byte[] bytes, List<Tensor> order) {}

    /** The nested dicts of {@code tensors}, keys in the order they first appear (a Python dict's order). */
    private static Map<String, Object> tree(List<Tensor> tensors) {
        Map<String, Object> root = new LinkedHashMap<>();
        for (Tensor t : tensors) {
            Map<String, Object> at = root;
            List<String> path = t.path();
            for (int i = 0; i < path.size() - 1; i++) {
                @SuppressWarnings("unchecked")
                Map<String, Object> next = (Map<String, Object>) at.computeIfAbsent(path.get(i),
                        k -> new LinkedHashMap<String, Object>());
                at = next;
            }
            at.put(path.getLast(), t);
        }
        return root;
    }

    @SuppressWarnings("unchecked")
    private void dict(Map<String, Object> d) {
        out.write('}'); // EMPTY_DICT
        put();
        if (d.size() == 1) {
            Map.Entry<String, Object> e = d.entrySet().iterator().next();
            item(e.getKey(), e.getValue());
            out.write('s'); // SETITEM
            return;
        }
        List<Map.Entry<String, Object>> items = new ArrayList<>(d.entrySet());
        int i = 0;
        int inBatch;
        do { // as the C pickler: a batch of exactly 1000 is followed by an empty MARK SETITEMS
            out.write('('); // MARK
            inBatch = 0;
            while (i < items.size() && inBatch < BATCH) {
                item(items.get(i).getKey(), items.get(i).getValue());
                i++;
                inBatch++;
            }
            out.write('u'); // SETITEMS
        } while (inBatch == BATCH);
    }

    @SuppressWarnings("unchecked")
    private void item(String key, Object value) {
        string(key);
        if (value instanceof Tensor t) {
            tensor(t);
        } else {
            dict((Map<String, Object>) value);
        }
    }

    private void tensor(Tensor t) {
        String key = Integer.toString(order.size());
        order.add(t);
        global("torch._utils", "_rebuild_tensor_v2");
        out.write('('); // MARK: the 6 arguments
        // the storage: its persistent id, a 5-tuple, then BINPERSID
        out.write('(');
        constant("storage");
        global("torch", t.dtype().torchStorage());
        string(key);
        constant("cpu");
        integer(t.numel());
        out.write('t'); // TUPLE
        put();
        out.write('Q'); // BINPERSID
        integer(0); // storage offset
        long[] shape = t.shape();
        long[] stride = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            stride[i] = s;
            s *= Math.max(shape[i], 1); // torch's contiguous strides treat a 0 dimension as 1
        }
        tuple(shape);
        tuple(stride);
        out.write(0x89); // NEWFALSE: requires_grad
        global("collections", "OrderedDict"); // backward hooks: OrderedDict()
        out.write(')'); // EMPTY_TUPLE
        out.write('R'); // REDUCE
        put();
        out.write('t'); // TUPLE
        put();
        out.write('R'); // REDUCE
        put();
    }

    private void tuple(long[] values) {
        if (values.length == 0) {
            out.write(')'); // EMPTY_TUPLE, not memoized
            return;
        }
        if (values.length <= 3) {
            for (long v : values) {
                integer(v);
            }
            out.write(0x84 + values.length); // TUPLE1..3
        } else {
            out.write('(');
            for (long v : values) {
                integer(v);
            }
            out.write('t');
        }
        put();
    }

    private void integer(long v) {
        if (v >= 0 && v <= 0xff) {
            out.write('K');
            out.write((int) v);
        } else if (v >= 0 && v <= 0xffff) {
            out.write('M');
            out.write((int) v & 0xff);
            out.write((int) (v >>> 8));
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            out.write('J');
            le(v, 4);
        } else { // LONG1: the shortest little-endian two's complement
            int n = 1;
            while (n < 8 && (v >> (8 * n - 1)) != 0 && (v >> (8 * n - 1)) != -1) {
                n++;
            }
            out.write(0x8a);
            out.write(n);
            le(v, n);
        }
    }

    private void string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.write('X'); // BINUNICODE
        le(b.length, 4);
        out.writeBytes(b);
        put();
    }

    /** A string that is one object throughout torch's pickling ('storage', 'cpu'): pickled once, then fetched. */
    private void constant(String s) {
        Integer at = shared.get("s:" + s);
        if (at != null) {
            get(at);
        } else {
            shared.put("s:" + s, memo);
            string(s);
        }
    }

    private void global(String module, String name) {
        Integer at = shared.get("g:" + module + "." + name);
        if (at != null) {
            get(at);
            return;
        }
        shared.put("g:" + module + "." + name, memo);
        out.write('c'); // GLOBAL
        out.writeBytes((module + "\n" + name + "\n").getBytes(StandardCharsets.US_ASCII));
        put();
    }

    private void put() {
        if (memo < 256) {
            out.write('q'); // BINPUT
            out.write(memo);
        } else {
            out.write('r'); // LONG_BINPUT
            le(memo, 4);
        }
        memo++;
    }

    private void get(int at) {
        if (at < 256) {
            out.write('h'); // BINGET
            out.write(at);
        } else {
            out.write('j'); // LONG_BINGET
            le(at, 4);
        }
    }

    private void le(long v, int n) {
        for (int i = 0; i < n; i++) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
    }
}
