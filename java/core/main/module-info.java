/**
 * dgen4j: synthetic ML-checkpoint data at memory speed, streamed to storage with a fixed memory
 * footprint.
 *
 * <p>The API is {@code io.dgen4j.gen} (the data model and its generators),
 * {@code io.dgen4j.checkpoint} (streaming save and load) and {@code io.dgen4j.storage} (targets,
 * writers, readers). The FFM bindings ({@code io.dgen4j.ffi}) and the native library loader
 * ({@code io.dgen4j.nativelib}) are internal; {@code io.dgen4j.launch} says where this process sits in a
 * parallel launch; {@code io.dgen4j.unit} holds the units every layer speaks (sizes). On the module path, run with
 * {@code --enable-native-access=io.dgen4j}; on the class path, with
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
module io.dgen4j {
    requires org.slf4j;
    // the pure-Java twin's vectorized path, where the incubator module is present
    requires static jdk.incubator.vector;

    exports io.dgen4j.gen;
    exports io.dgen4j.checkpoint;
    exports io.dgen4j.storage;
    exports io.dgen4j.launch;
    exports io.dgen4j.unit;
    exports io.dgen4j.format;

    // storage backends, found with ServiceLoader; the file backend registers like any other
    uses io.dgen4j.storage.StorageProvider;
    provides io.dgen4j.storage.StorageProvider with io.dgen4j.storage.FileStorageProvider;
    // the CLI's info command reports where the native library came from
    exports io.dgen4j.nativelib to io.dgen4j.cli;
    // one JSON writer and reader (no JSON library in core): --json, DLIO's files, the S3 manifest entry
    exports io.dgen4j.json to io.dgen4j.cli, io.dgen4j.dlio, io.dgen4j.s3, io.dgen4j.azure;
}
