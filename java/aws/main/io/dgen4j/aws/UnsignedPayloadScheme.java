package io.dgen4j.aws;

import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/**
 * SigV4 as the SDK signs for S3 over {@code https} ({@code UNSIGNED-PAYLOAD}), for the sync upload
 * client's {@code http://} requests. Over plain HTTP the SDK's sync signer signs the payload itself
 * (the async one does not): each part is sent {@code aws-chunked} in 128 KiB chunks, each with its
 * own signature, which hashes every byte with SHA-256 and writes each chunk in six system calls.
 * The store checks each part's CRC32C instead (the header the driver sends). The request is signed
 * as the https request it would be, and sent as the http one: the signature covers the method, path,
 * query, signed headers (Host among them) and the payload's hash, not the scheme.
 */
final class UnsignedPayloadScheme implements AuthScheme<AwsCredentialsIdentity> {
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    @Override
    public String schemeId() {
        return AwsV4AuthScheme.SCHEME_ID;
    }

    @Override
    public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
        return providers.identityProvider(AwsCredentialsIdentity.class);
    }

    @Override
    public HttpSigner<AwsCredentialsIdentity> signer() {
        return new HttpSigner<>() {
            @Override
            public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
                SdkHttpRequest r = request.request();
                if (!"http".equals(r.protocol())) {
                    return signer.sign(request);
                }
                SignRequest<? extends AwsCredentialsIdentity> asHttps = request.copy(b -> b.request(
                        r.toBuilder().protocol("https").port(r.port()).build()));
                SignedRequest signed = signer.sign(asHttps);
                return signed.copy(b -> b.request(signed.request().toBuilder().protocol("http").port(r.port()).build()));
            }

            @Override
            public CompletableFuture<AsyncSignedRequest> signAsync(
                    AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
                return signer.signAsync(request);
            }
        };
    }
}
