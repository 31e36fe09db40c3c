/**
 * DLIO benchmark workloads: reads a DLIO workload YAML ({@link io.dgen4j.dlio.DlioConfigReader}),
 * computes the checkpoint files and sizes as DLIO does ({@link io.dgen4j.dlio.CheckpointPlan}) and
 * runs the checkpoint-only workflow through dgen4j streaming checkpoints
 * ({@link io.dgen4j.dlio.DlioRun}), writing DLIO's output files.
 */
module io.dgen4j.dlio {
    requires transitive io.dgen4j;
    requires org.snakeyaml.engine;
    requires org.slf4j;

    exports io.dgen4j.dlio;
}
