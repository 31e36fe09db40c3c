package io.dgen4j.storage;

import java.io.IOException;
import java.util.Set;

/**
 * The local-file backend as a {@link StorageProvider}: plain paths, {@code file://} and
 * {@code direct://} (O_DIRECT demanded) targets, through {@link FileStorage}. Reads
 * {@link FileOptions} from the request's options.
 */
public final class FileStorageProvider implements StorageProvider {
    /** The service loader's constructor. */
    public FileStorageProvider() {}

    @Override
    public String name() {
        return "file";
    }

    @Override
    public Set<String> schemes() {
        return Set.of(StorageTarget.FILE, StorageTarget.DIRECT);
    }

    @Override
    public StorageWriter openWriter(WriteRequest r) throws IOException {
        return FileStorage.openWriter(r.target().path(), fileOptions(r.target(), r.options()), r.size(), r.metadata());
    }

    @Override
    public StorageReader openReader(ReadRequest r) throws IOException {
        return FileStorage.openReader(r.target().path(), fileOptions(r.target(), r.options()));
    }

    /** Removes the checkpoint file and its manifest, unless a save is writing it. */
    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        return FileStorage.delete(target.path());
    }

    /** The caller's file options, with O_DIRECT demanded for {@code direct://} targets. */
    static FileOptions fileOptions(StorageTarget target, StorageOptions options) {
        FileOptions o = options.get(FileOptions.class).orElseGet(FileOptions::defaults);
        return target.scheme().equals(StorageTarget.DIRECT) ? o.withDirect(FileOptions.Direct.REQUIRE) : o;
    }
}
