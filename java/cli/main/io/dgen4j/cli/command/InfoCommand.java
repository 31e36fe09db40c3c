package io.dgen4j.cli.command;

import io.dgen4j.cli.Environment;
import io.dgen4j.cli.option.Limits;
import io.dgen4j.gen.Numa;
import io.dgen4j.gen.SystemInfo;
import io.dgen4j.json.JsonWriter;
import io.dgen4j.nativelib.NativeLibrary;
import io.dgen4j.unit.ByteSize;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dgen4j info}: which generator runs, the kernel chosen, CPU features, usable CPUs, MPI
 * ranks on this host, the NUMA topology and the pinning plan of a generator.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = {"Show the generator in use, its kernel, the CPU's features and the NUMA nodes.",
                "The generator is the native core or the pure-Java twin; for each NUMA node: its CPUs, distances and"
                + " memory, and where a generator's threads would run."})
public final class InfoCommand implements Callable<Integer> {
    private final Environment env;

    /** The view of a process whose MPI ranks on this host are those {@code env}'s launcher variables say. */
    public InfoCommand(Environment env) {
        this.env = env;
    }

    @Spec
    CommandSpec command;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Option(names = "--threads", defaultValue = "0",
            description = "Threads of the plan shown; 0 = the default (usable CPUs / MPI local ranks).")
    int threads;

    @Option(names = "--numa-mode", defaultValue = "auto",
            description = "Pinning mode of the plan shown: auto (pin with several nodes or --numa-node), force, off.")
    Numa.Mode numaMode;

    @Option(names = "--numa-node", description = "Show the plan of a run bound to this node.")
    Integer numaNode;

    @Option(names = "--sysfs-root", hidden = true, description = "Read the topology from this sysfs tree (tests).")
    Path sysfsRoot;

    @Option(names = "--affinity", hidden = true, description = "Plan within these CPUs, e.g. 0-3,8 (tests).")
    String affinity;

    @Override
    public Integer call() {
        Limits.threads(threads);
        SystemInfo info = SystemInfo.current(env.variables());
        List<SystemInfo.NumaNode> nodes = info.numaNodes();
        Numa.Plan plan = info.plan().orElse(null);
        boolean custom = threads != 0 || numaMode != Numa.Mode.AUTO || numaNode != null || sysfsRoot != null
                || affinity != null;
        if (custom && NativeLibrary.isAvailable()) {
            if (sysfsRoot != null) {
                nodes = Numa.topology(sysfsRoot).stream()
                        .map(n -> new SystemInfo.NumaNode(n.id(), n.cpus(), n.distances(), n.memoryKib())).toList();
            }
            plan = Numa.plan(sysfsRoot, affinity, threads, numaMode,
                    numaNode == null ? OptionalInt.empty() : OptionalInt.of(numaNode));
        }
        PrintWriter out = command.commandLine().getOut();
        if (json) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("generator", info.implementation());
            r.put("nativeSource", info.nativeSource().orElse(null));
            r.put("nativeFailure", info.nativeFailure().orElse(null));
            r.put("twin", info.twin());
            r.put("twinDetail", info.twinDetail());
            r.put("dispatch", info.dispatch().split("\\s+")[0]);
            r.put("dispatchDetail", info.dispatch());
            r.put("cpuFeatures", info.cpuFeatures());
            r.put("usableCpus", info.usableCpus());
            r.put("localRanks", info.localRanks());
            r.put("defaultThreads", info.defaultThreads());
            List<Object> ns = new ArrayList<>();
            for (SystemInfo.NumaNode n : nodes) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("node", n.id());
                m.put("cpus", n.cpus());
                m.put("distances", n.distances());
                m.put("memoryKiB", n.memoryKib().isPresent() ? n.memoryKib().getAsLong() : null);
                ns.add(m);
            }
            r.put("numaNodes", ns);
            r.put("plan", plan == null ? null : planJson(plan));
            out.println(JsonWriter.ASCII_LINE.write(r));
        } else {
            out.printf("generator     %s%n", info.implementation().equals("native")
                    ? "native (Rust core, " + info.nativeSource().orElse("?") + ")"
                    : info.twin() + " (pure-Java twin)");
            info.nativeFailure().ifPresent(f -> out.printf("native        %s%n", f));
            out.printf("twin          %s (%s)%n", info.twin(), info.twinDetail());
            out.printf("kernel        %s%n", info.dispatch());
            out.printf("cpu features  %s%n", info.cpuFeatures().isEmpty() ? "-" : String.join(" ", info.cpuFeatures()));
            out.printf("usable cpus   %d%n", info.usableCpus());
            out.printf("mpi ranks     %d on this host (default threads %d = usable cpus / ranks)%n",
                    info.localRanks(), info.defaultThreads());
            out.printf("numa nodes    %d%n", nodes.size());
            for (SystemInfo.NumaNode n : nodes) {
                out.printf("  node %d      cpus %s%s%s%n", n.id(), n.cpus(),
                        n.distances().isEmpty() ? "" : "  distances " + n.distances(),
                        n.memoryKib().isPresent() ? "  memory " + ByteSize.format(n.memoryKib().getAsLong() * 1024) : "");
            }
            if (plan != null) {
                out.printf("placement     %s, mode %s, %d thread(s)%n",
                        plan.pinned() ? "workers pinned per node" : "not pinned", plan.mode().name().toLowerCase(java.util.Locale.ROOT),
                        plan.threads());
                for (Numa.Group g : plan.groups()) {
                    if (g.node().isPresent()) {
                        out.printf("  node %d      %d thread(s) on cpus %s%n", g.node().getAsInt(), g.threads(), g.cpus());
                    }
                }
            }
        }
        out.flush();
        return 0;
    }

    static Map<String, Object> planJson(Numa.Plan plan) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("pinned", plan.pinned());
        p.put("mode", plan.mode().name().toLowerCase(java.util.Locale.ROOT));
        p.put("threads", plan.threads());
        List<Object> groups = new ArrayList<>();
        for (Numa.Group g : plan.groups()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", g.node().isPresent() ? g.node().getAsInt() : null);
            m.put("threads", g.threads());
            m.put("cpus", g.cpus());
            groups.add(m);
        }
        p.put("groups", groups);
        return p;
    }
}
