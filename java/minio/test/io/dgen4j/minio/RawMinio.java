package io.dgen4j.minio;

import io.dgen4j.s3.S3ProxyExtension;
import io.minio.ListMultipartUploadsArgs;
import io.minio.MinioAsyncClient;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import io.minio.errors.ErrorResponseException;
import io.minio.messages.ListMultipartUploadsResult;
import java.util.List;
import java.util.concurrent.CompletionException;

/** A plain MinIO client on the test server, independent of the backend, for the tests' own checks. */
final class RawMinio implements AutoCloseable {
    final MinioAsyncClient client;

    RawMinio(S3ProxyExtension s3) {
        client = MinioAsyncClient.builder().endpoint(s3.endpoint().toString()).region("us-east-1")
                .credentials(S3ProxyExtension.ACCESS_KEY, S3ProxyExtension.SECRET_KEY).build();
    }

    /** The object's HEAD, or null when there is none. */
    StatObjectResponse head(String bucket, String key) {
        try {
            return client.statObject(StatObjectArgs.builder().bucket(bucket).object(key).build()).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof ErrorResponseException r && r.response().code() == 404) {
                return null;
            }
            throw e;
        }
    }

    /** Open multipart uploads of exactly {@code key}. */
    List<ListMultipartUploadsResult.Upload> uploads(String bucket, String key) {
        return client.listMultipartUploads(ListMultipartUploadsArgs.builder().bucket(bucket).prefix(key).build())
                .join().result().uploads().stream().filter(u -> u.objectName().equals(key)).toList();
    }

    @Override
    public void close() {
        client.close();
    }
}
