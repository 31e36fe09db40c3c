package io.dgen4j.aws;

import io.dgen4j.s3.S3ProxyExtension;
import java.util.List;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** A plain SDK client on the test server, independent of the backend, for the tests' own checks. */
final class RawS3 implements AutoCloseable {
    final S3AsyncClient client;

    RawS3(S3ProxyExtension s3) {
        client = S3AsyncClient.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        S3ProxyExtension.ACCESS_KEY, S3ProxyExtension.SECRET_KEY)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
    }

    /** The object's HEAD, or null when there is none. */
    HeadObjectResponse head(String bucket, String key) {
        try {
            return client.headObject(b -> b.bucket(bucket).key(key)).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof S3Exception s && s.statusCode() == 404) {
                return null;
            }
            throw e;
        }
    }

    /** Open multipart uploads of exactly {@code key}. */
    List<MultipartUpload> uploads(String bucket, String key) {
        return client.listMultipartUploads(b -> b.bucket(bucket).prefix(key)).join().uploads().stream()
                .filter(u -> u.key().equals(key)).toList();
    }

    @Override
    public void close() {
        client.close();
    }
}
