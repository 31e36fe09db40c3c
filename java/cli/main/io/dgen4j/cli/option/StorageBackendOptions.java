package io.dgen4j.cli.option;

import io.dgen4j.checkpoint.StreamingCheckpoint;
import io.dgen4j.cli.Environment;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.Storage;
import io.dgen4j.storage.StorageTarget;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The storage backend options of save and load: {@code --backend} (else {@code DGEN4J_S3_BACKEND}
 * for {@code s3://} targets), and for {@code s3://} targets the S3 settings from the environment and
 * the working directory's {@code .env} ({@link S3Settings#fromEnvironment}) with the endpoint-set
 * and transfer options over them ({@link EndpointOptions}, {@link S3TransferOptions}); for {@code az://}
 * targets the endpoint options name the Azure account's endpoint set ({@link EndpointOptions#azureSettings}).
 */
public final class StorageBackendOptions {
    /** The variable that names the backend of {@code s3://} targets. */
    public static final String BACKEND_VAR = "DGEN4J_S3_BACKEND";
    /** The scheme of Azure Blob targets, whose endpoint sets {@code --endpoints} also names. */
    private static final String AZURE_SCHEME = "az";

    @Option(names = "--backend", paramLabel = "NAME",
            description = "Storage backend: file, or for s3:// targets aws, crt or minio (default: " + BACKEND_VAR
                    + ", else the first of aws, crt, minio that is installed), or azure for az:// targets.")
    String backend;

    @Mixin
    EndpointOptions endpoints;

    @Mixin
    S3TransferOptions transfer;

    /** Sets the backend and, for an {@code s3://} target, the S3 settings; returns the builder. */
    public StreamingCheckpoint.Builder apply(StreamingCheckpoint.Builder b, StorageTarget target, Environment env) {
        return resolve(target, env).apply(b);
    }

    /**
     * What {@link #apply} sets for {@code target}, resolved now from {@code env}'s variables (the backend,
     * the S3 settings) and the options: a command whose files are built on other threads (dlio run's ranks)
     * resolves once and hands the result to them.
     *
     * @throws IllegalArgumentException when an endpoint option is given for a target that is not s3:// or az://,
     *                                  a transfer option for one that is not s3://, or the target or the
     *                                  settings are malformed
     */
    public UnaryOperator<StreamingCheckpoint.Builder> resolve(StorageTarget target, Environment env) {
        boolean s3 = S3Location.SCHEME.equals(target.scheme());
        String name = backend;
        if ((name == null || name.isBlank()) && s3) {
            name = env.get(BACKEND_VAR);
        }
        String chosen = name == null || name.isBlank() ? null : name;
        Object settings = null;
        if (s3) {
            S3Location.of(target); // a bad bucket or key is a usage error, before anything else
            settings = s3Settings(env);
        } else if (AZURE_SCHEME.equals(target.scheme()) && endpoints.given()) {
            if (transfer.given()) {
                throw new IllegalArgumentException(String.format("%s applies to s3:// targets, not %s",
                        transfer.givenNames(), target.original()));
            }
            settings = endpoints.azureSettings(env.variables(), Path.of(""));
        } else if (endpoints.given() || transfer.given()) {
            throw new IllegalArgumentException(String.format("%s applies to s3:// targets, not %s", endpoints.given()
                    ? endpoints.givenNames() : transfer.givenNames(), target.original()));
        }
        Object resolved = settings;
        Storage storage = env.storage();
        return b -> {
            if (storage != null) {
                b.storage(storage); // the command's session: its clients serve every save and load of the command
            }
            if (chosen != null) {
                b.backend(chosen);
            }
            if (resolved != null) {
                b.backendOptions(resolved);
            }
            return b;
        };
    }

    /** The S3 settings of the environment with the endpoint and transfer options over them. */
    S3Settings s3Settings(Environment env) {
        return transfer.over(endpoints.settings(env.variables(), Path.of("")));
    }

    /** Refuses what only a save uses: a load reads ranges of its {@code --chunk}, not parts. */
    public void checkLoad() {
        if (transfer.partSize != null) {
            throw new IllegalArgumentException("--part-size applies to save: a load reads ranges of --chunk bytes");
        }
    }

    /**
     * For a save of {@code size} bytes in chunks of {@code chunk} to {@code target}: checks up front
     * that an {@code s3://} target's part size fits ({@link S3TransferOptions#checkSave}).
     */
    public void checkSave(StorageTarget target, long size, long chunk, Environment env) {
        if (S3Location.SCHEME.equals(target.scheme())) {
            transfer.checkSave(s3Settings(env), size, chunk);
        }
    }
}
