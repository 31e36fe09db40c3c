package io.dgen4j.bench;

import io.minio.CompleteMultipartUploadArgs;
import io.minio.CreateMultipartUploadArgs;
import io.minio.Http;
import io.minio.MinioAsyncClient;
import io.minio.RemoveObjectArgs;
import io.minio.UploadPartArgs;
import io.minio.messages.Part;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * What a user of a client library alone writes to upload bytes held in memory: create, the parts
 * with {@code inFlight} at once, complete. One per backend, with that backend's client library:
 * the baseline {@code bench s3} holds the streaming save against.
 */
interface PlainUpload extends AutoCloseable {
    /** The labels of this client's plain sides (minio: default hashing, and the backend's headers). */
    List<String> sides();

    /** Uploads {@code data} as {@code key} in parts of {@code part} bytes, as side {@code side}. */
    void upload(int side, String bucket, String key, MemorySegment data, long part, int inFlight) throws Exception;

    /** Deletes {@code key}. */
    void delete(String bucket, String key) throws Exception;

    @Override
    void close();

    /**
     * The plain client of {@code backend}, for the store at {@code endpoint}, with room for
     * {@code inFlight} parts at once.
     */
    static PlainUpload open(String backend, URI endpoint, String key, String secret, int inFlight) {
        return switch (backend) {
            case "aws" -> new Sdk("plain SDK multipart (mem)", S3AsyncClient.builder().endpointOverride(endpoint)
                    .region(Region.US_EAST_1).forcePathStyle(true)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                    .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                    .overrideConfiguration(o -> o.addExecutionInterceptor(new FirstPartHeaders("plain")))
                    .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(inFlight + 4)).build());
            // the CRT-based client as the crt backend makes it for a save (CrtClients.open): the same
            // connections and checksum settings; its other settings shape only GETs and PutObject
            case "crt" -> new Sdk("plain CRT multipart (memory)", S3AsyncClient.crtBuilder().endpointOverride(endpoint)
                    .region(Region.US_EAST_1).forcePathStyle(true)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                    .maxConcurrency(inFlight + 2)
                    .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build());
            case "minio" -> new Minio(endpoint, key, secret, inFlight);
            default -> throw new IllegalArgumentException("no plain client for backend " + backend);
        };
    }

    /** The AWS SDK's async client (Netty or CRT): parts sent from the segment without a copy. */
    final class Sdk implements PlainUpload {
        private final String label;
        private final S3AsyncClient s3;

        Sdk(String label, S3AsyncClient s3) {
            this.label = label;
            this.s3 = s3;
        }

        @Override
        public List<String> sides() {
            return List.of(label);
        }

        @Override
        public void upload(int side, String bucket, String key, MemorySegment data, long part, int inFlight)
                throws Exception {
            String id = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).join().uploadId();
            int parts = (int) ((data.byteSize() + part - 1) / part);
            Semaphore slots = new Semaphore(inFlight);
            List<CompletableFuture<CompletedPart>> done = new ArrayList<>();
            for (int n = 1; n <= parts; n++) {
                slots.acquire();
                long off = (n - 1) * part;
                long len = Math.min(part, data.byteSize() - off);
                int number = n;
                done.add(s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(id).partNumber(number).contentLength(len),
                                AsyncRequestBody.fromRemainingByteBufferUnsafe(data.asSlice(off, len).asByteBuffer()))
                        .whenComplete((r, e) -> slots.release())
                        .thenApply(r -> CompletedPart.builder().partNumber(number).eTag(r.eTag()).build()));
            }
            List<CompletedPart> etags = new ArrayList<>();
            for (CompletableFuture<CompletedPart> f : done) {
                etags.add(f.join());
            }
            s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id).multipartUpload(u -> u.parts(etags)))
                    .join();
        }

        @Override
        public void delete(String bucket, String key) {
            s3.deleteObject(b -> b.bucket(bucket).key(key)).join();
        }

        @Override
        public void close() {
            s3.close();
        }
    }

    /**
     * The MinIO client over OkHttp, parts from {@code byte[]} in memory (its API takes no segment),
     * copied from the data once beforehand: with MinIO's default hashing (a SHA-256 of every part
     * over http) and with the headers the minio backend sends (unsigned payload + CRC32C).
     */
    final class Minio implements PlainUpload {
        private final MinioAsyncClient s3;
        private final okhttp3.Dispatcher dispatcher;
        private MemorySegment heldFor;
        private byte[][] parts;

        Minio(URI endpoint, String key, String secret, int inFlight) {
            okhttp3.Dispatcher d = new okhttp3.Dispatcher();
            dispatcher = d;
            d.setMaxRequests(inFlight + 4);
            d.setMaxRequestsPerHost(inFlight + 4);
            s3 = MinioAsyncClient.builder().endpoint(endpoint.toString()).region("us-east-1").credentials(key, secret)
                    .httpClient(new okhttp3.OkHttpClient.Builder().dispatcher(d).build()).build();
            s3.disableVirtualStyleEndpoint();
        }

        @Override
        public List<String> sides() {
            return List.of("(mem) plain-minio-default", "(mem) plain-minio-crc");
        }

        /** The data's parts as heap arrays, made once per segment (not measured: before the first upload of it). */
        void hold(MemorySegment data, long part) {
            if (heldFor != data) {
                int n = (int) ((data.byteSize() + part - 1) / part);
                parts = new byte[n][];
                for (int i = 0; i < n; i++) {
                    parts[i] = data.asSlice(i * part, Math.min(part, data.byteSize() - i * part))
                            .toArray(ValueLayout.JAVA_BYTE);
                }
                heldFor = data;
            }
        }

        @Override
        public void upload(int side, String bucket, String key, MemorySegment data, long part, int inFlight)
                throws Exception {
            if (heldFor != data) {
                throw new IllegalStateException("hold(data, part) first: the parts are copied before the measurement");
            }
            String id = s3.createMultipartUpload(CreateMultipartUploadArgs.builder().bucket(bucket).object(key).build())
                    .join().result().uploadId();
            Semaphore slots = new Semaphore(inFlight);
            List<CompletableFuture<Part>> done = new ArrayList<>();
            for (int i = 0; i < parts.length; i++) {
                slots.acquire();
                int number = i + 1;
                Http.Headers h = new Http.Headers();
                if (side == 1) {
                    CRC32C crc = new CRC32C();
                    crc.update(parts[i]);
                    int v = (int) crc.getValue();
                    h = new Http.Headers("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD", "x-amz-checksum-crc32c",
                            Base64.getEncoder().encodeToString(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16),
                                (byte) (v >>> 8), (byte) v}));
                }
                done.add(s3.uploadPart(UploadPartArgs.builder().bucket(bucket).object(key).uploadId(id)
                                .partNumber(number).data(parts[i], parts[i].length).headers(h).build())
                        .whenComplete((r, e) -> slots.release())
                        .thenApply(r -> new Part(number, r.part().etag())));
            }
            List<Part> etags = new ArrayList<>();
            for (CompletableFuture<Part> f : done) {
                etags.add(f.join());
            }
            s3.completeMultipartUpload(CompleteMultipartUploadArgs.builder().bucket(bucket).object(key).uploadId(id)
                    .parts(etags.toArray(Part[]::new)).build()).join();
        }

        @Override
        public void delete(String bucket, String key) throws Exception {
            s3.removeObject(RemoveObjectArgs.builder().bucket(bucket).object(key).build()).join();
        }

        @Override
        public void close() {
            dispatcher.executorService().shutdown();
        }
    }

    /** With {@code -Dbench.headers=true}: prints the headers of one side's first UploadPart (checksums, signing). */
    final class FirstPartHeaders implements ExecutionInterceptor {
        private final String side;
        private final AtomicBoolean printed = new AtomicBoolean();

        FirstPartHeaders(String side) {
            this.side = side;
        }

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            var req = context.httpRequest();
            if (Boolean.getBoolean("bench.headers") && req.rawQueryParameters().containsKey("partNumber")
                    && printed.compareAndSet(false, true)) {
                Map<String, List<String>> h = new TreeMap<>(req.headers());
                h.computeIfPresent("Authorization", (k, v) -> List.of("(signature)"));
                System.err.println("  " + side + " UploadPart headers: " + h);
            }
        }
    }
}
