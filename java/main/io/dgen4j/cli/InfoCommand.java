package io.dgen4j.cli;

import io.dgen4j.gen.SystemInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dgen4j info}: which generator runs, CPU features, usable CPUs, NUMA nodes. */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Show the generator in use (native core or pure-Java twin), CPU features and NUMA nodes.")
final class InfoCommand implements Callable<Integer> {
    @Spec
    CommandSpec command;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Override
    public Integer call() {
        SystemInfo info = SystemInfo.current();
        PrintWriter out = command.commandLine().getOut();
        if (json) {
            Map<String, Object> r = Json.object();
            r.put("generator", info.implementation());
            r.put("nativeSource", info.nativeSource().orElse(null));
            r.put("nativeFailure", info.nativeFailure().orElse(null));
            r.put("cpuFeatures", info.cpuFeatures());
            r.put("usableCpus", info.usableCpus());
            List<Object> nodes = new ArrayList<>();
            for (SystemInfo.NumaNode n : info.numaNodes()) {
                Map<String, Object> m = Json.object();
                m.put("node", n.id());
                m.put("cpus", n.cpus());
                nodes.add(m);
            }
            r.put("numaNodes", nodes);
            out.println(Json.write(r));
        } else {
            out.printf("generator     %s%n", info.implementation().equals("native")
                    ? "native (Rust core, " + info.nativeSource().orElse("?") + ")"
                    : "java (pure-Java twin)");
            info.nativeFailure().ifPresent(f -> out.printf("native        %s%n", f));
            out.printf("cpu features  %s%n", info.cpuFeatures().isEmpty() ? "-" : String.join(" ", info.cpuFeatures()));
            out.printf("usable cpus   %d%n", info.usableCpus());
            out.printf("numa nodes    %d%n", info.numaNodes().size());
            for (SystemInfo.NumaNode n : info.numaNodes()) {
                out.printf("  node %d      cpus %s%n", n.id(), n.cpus());
            }
        }
        out.flush();
        return 0;
    }
}
