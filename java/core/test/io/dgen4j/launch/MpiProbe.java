package io.dgen4j.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * Run under mpirun by {@link MpiTest}: exercises every collective of {@link Cluster} and prints one
 * {@code key=value} line per result, prefixed with the rank ({@code r1 sum=...}).
 */
public final class MpiProbe {
    private MpiProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        LaunchInfo launch = LaunchInfo.current();
        try (Cluster c = Cluster.open(launch)) {
            int r = c.rank();
            String p = "r" + r + " ";
            StringBuilder out = new StringBuilder();
            out.append(p).append("launch=").append(launch.describe()).append('\n');
            out.append(p).append("coordinated=").append(c.coordinated()).append('\n');
            out.append(p).append("library=").append(c.mpiLibrary().orElse("-")).append('\n');
            out.append(p).append("alone=").append(c.whyAlone().orElse("-")).append('\n');
            c.barrier();
            out.append(p).append("dsum=").append(c.allreduce(r + 0.5, Mpi.Op.SUM)).append('\n');
            out.append(p).append("dmax=").append(c.allreduce(r + 0.5, Mpi.Op.MAX)).append('\n');
            out.append(p).append("dmin=").append(Arrays.toString(c.allreduce(new double[] {r - 1.0, -r}, Mpi.Op.MIN)))
                    .append('\n');
            long big = (1L << 40) + r; // beyond 32 bits: the datatype is 64-bit
            out.append(p).append("lsum=").append(c.allreduce(big, Mpi.Op.SUM)).append('\n');
            out.append(p).append("lmax=").append(Arrays.toString(c.allreduce(new long[] {big, -big}, Mpi.Op.MAX)))
                    .append('\n');
            out.append(p).append("lmin=").append(c.allreduce(big, Mpi.Op.MIN)).append('\n');
            out.append(p).append("gather=").append(Arrays.toString(c.gather(10.0 * r + 0.25))).append('\n');
            out.append(p).append("lgather=").append(Arrays.toString(c.gather(-7L * r))).append('\n');
            out.append(p).append("text=").append(c.broadcast(r == 0 ? "from rank 0: \u00e9t\u00e9 \u2603" : "not me"))
                    .append('\n');
            out.append(p).append("number=").append(c.broadcast(r == 0 ? Long.MIN_VALUE + 5 : 99L)).append('\n');
            // 3 MiB + 1 of a pattern, from rank 0
            byte[] data = new byte[(3 << 20) + 1];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 31 + 7);
            }
            byte[] got = c.broadcast(r == 0 || !c.coordinated() ? data : null); // alone, each rank is its own root
            out.append(p).append("bytes=").append(Arrays.equals(data, got)).append('\n');
            // rank 0 alone lists: each call of the lister appends a line to a file
            Path calls = dir.resolve("lister-calls");
            List<String> names = c.listOnce(() -> {
                Files.writeString(calls, "rank " + r + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
                return List.of("b", "a\nnewline", "", "\u2603");
            });
            out.append(p).append("names=").append(names.size()).append(':')
                    .append(String.join("|", names).replace("\n", "\\n")).append('\n');
            try {
                c.listOnce(() -> {
                    throw new IOException("no such bucket: nope");
                });
                out.append(p).append("failure=none\n");
            } catch (IOException e) {
                out.append(p).append("failure=").append(e.getMessage()).append('\n');
            }
            // the same facts on every rank, then ranks 1.. with another size (and the last with one more fact)
            java.util.Map<String, String> facts = new java.util.LinkedHashMap<>(); // in one order on every rank
            facts.put("command", "save");
            facts.put("--size", "1");
            out.append(p).append("agreed=").append(c.agree(facts).isEmpty()).append('\n');
            facts.put("--size", r == 0 ? "1" : "2");
            if (r == c.size() - 1) {
                facts.put("--verify", "true");
            }
            out.append(p).append("disagreement=").append(c.agree(facts).map(d -> d.rank() + "/" + d.ranks() + ":"
                    + d.firstDifference() + ":" + d.root().get(d.firstDifference()) + ">"
                    + d.theirs().get(d.firstDifference()) + ":" + d.theirs().keySet()).orElse("-")).append('\n');
            c.barrier();
            System.out.print(out);
            System.out.flush();
        }
    }
}
