package io.dgen4j.crt;

import io.dgen4j.s3.PartPlan;
import io.dgen4j.s3.S3Location;
import io.dgen4j.s3.S3Settings;
import io.dgen4j.storage.ReadRequest;
import io.dgen4j.storage.StorageOptions;
import io.dgen4j.storage.StorageProvider;
import io.dgen4j.storage.StorageReader;
import io.dgen4j.storage.StorageTarget;
import io.dgen4j.storage.StorageWriter;
import io.dgen4j.storage.WriteRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * The {@code crt} backend: {@code s3://bucket/key} through the AWS SDK v2's CRT-based
 * {@code S3AsyncClient}, with multipart uploads driven here (create with the metadata, parts
 * straight from the caller's segments, complete with the sorted ETags, HEAD to check size and
 * metadata; abort and confirm on any failure) and ranged GETs into the caller's segments.
 *
 * <p>Settings: the {@link S3Settings} in the request's options, else
 * {@link S3Settings#fromEnvironment} (the {@code AWS_*} variables and a {@code .env} file in the
 * working directory). The part size is the settings' part size, else the chunk size (the
 * checkpoint's {@code chunkSize} metadata, else the length of the first write).
 *
 * <p>Its priority ({@value #PRIORITY}) is below the {@code aws} backend's: against s3proxy on
 * loopback it was not measured faster (it used less client CPU per GiB, and a part-sized native
 * buffer per part in flight more; see docs/S3-CRT.md). Choose it by name ({@code --backend crt}).
 */
public final class CrtStorageProvider implements StorageProvider {
    /** The backend's name. */
    public static final String NAME = "crt";
    /** Preference among the {@code s3} backends when none is named: below {@code aws}. */
    public static final int PRIORITY = 5;
    /** Metadata field holding the checkpoint's chunk size (written by the checkpoint's manifest). */
    static final String CHUNK_SIZE_FIELD = "chunkSize";

    /** Instantiated by {@link java.util.ServiceLoader}. */
    public CrtStorageProvider() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<String> schemes() {
        return Set.of(S3Location.SCHEME);
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Optional<String> unavailable() {
        return CrtClients.runtimeProblem();
    }

    @Override
    public StorageWriter openWriter(WriteRequest request) throws IOException {
        S3Location location = S3Location.of(request.target());
        S3Settings settings = settings(request.options());
        long partSize = settings.partSize().orElse(0);
        if (partSize == 0 && request.metadata().get(CHUNK_SIZE_FIELD) instanceof Number chunk) {
            partSize = PartPlan.defaultPartSize(chunk.longValue());
        }
        if (partSize > 0 && request.size() > 0) {
            PartPlan plan = PartPlan.of(request.size(), partSize); // refuses > 10,000 parts before any data
            if (request.metadata().get(CHUNK_SIZE_FIELD) instanceof Number chunk) {
                plan.checkChunk(chunk.longValue());
            }
        }
        int inFlight = settings.maxInFlight().orElse(request.maxInFlight());
        S3AsyncClient client = CrtClients.open(settings, inFlight, partSize > 0 ? partSize : PartPlan.MIN_PART_SIZE,
                request.target().toString());
        return CrtWriter.open(client, location, settings, request.size(), partSize, request.metadata(),
                request.options().get(PartFault.class).orElse(null));
    }

    @Override
    public StorageReader openReader(ReadRequest request) throws IOException {
        S3Location location = S3Location.of(request.target());
        S3Settings settings = settings(request.options());
        int inFlight = settings.maxInFlight().orElse(request.maxInFlight());
        S3AsyncClient client = CrtClients.open(settings, inFlight, settings.partSize().orElse(CrtClients.MAX_CRT_PART),
                request.target().toString());
        return CrtReader.open(client, location, settings);
    }

    @Override
    public boolean delete(StorageTarget target, StorageOptions options) throws IOException {
        S3Location location = S3Location.of(target);
        S3Settings settings = settings(options);
        String object = "s3://" + location.bucket() + "/" + location.key();
        try (S3AsyncClient client = CrtClients.open(settings, 1, PartPlan.MIN_PART_SIZE, target.toString())) {
            try {
                client.headObject(r -> r.bucket(location.bucket()).key(location.key())).get();
            } catch (ExecutionException e) {
                if (CrtErrors.notFound(e)) {
                    return false;
                }
                throw CrtErrors.describe("HeadObject", object, settings, e);
            }
            try {
                client.deleteObject(r -> r.bucket(location.bucket()).key(location.key())).get();
            } catch (ExecutionException e) {
                throw CrtErrors.describe("DeleteObject", object, settings, e);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("delete of " + object + " interrupted");
        }
    }

    /** The S3 settings in {@code options}, else those of the environment and the working directory's {@code .env}. */
    static S3Settings settings(StorageOptions options) {
        return options.get(S3Settings.class)
                .orElseGet(() -> S3Settings.fromEnvironment(System.getenv(), Path.of("").toAbsolutePath()));
    }

    /**
     * Checks that the bucket exists and the credentials are accepted, before any data is sent.
     *
     * @throws IOException one line naming the bucket, the endpoint and what to check
     */
    static void checkBucket(S3AsyncClient client, S3Location location, S3Settings settings, String object)
            throws IOException {
        io.dgen4j.s3.EndpointProbe.check(settings, "HeadBucket of " + object);
        try {
            client.headBucket(r -> r.bucket(location.bucket())).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("HeadBucket of " + location.bucket() + " interrupted");
        } catch (ExecutionException e) {
            if (CrtErrors.notFound(e)) {
                throw new IOException(String.format("bucket %s does not exist at %s (target %s): create it first, or "
                        + "check the bucket name and the endpoint", location.bucket(), settings.endpointDescription(),
                        object), CrtErrors.unwrap(e));
            }
            throw CrtErrors.describe("HeadBucket", "bucket " + location.bucket(), settings, e);
        }
    }

    @Override
    public String toString() {
        return "crt storage backend (s3:// through the AWS CRT-based S3 client)";
    }
}
