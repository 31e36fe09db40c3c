package io.dgen4j.aws;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dgen4j.s3.S3ProxyExtension;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.ResponsePublisher;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/** The backend's client gets response bodies in pieces wider than Netty's default 8 KiB, whole and in order. */
class WideBodyChannelTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Test
    void bodiesArriveInWidePiecesWholeAndInOrder() throws Exception {
        byte[] object = new byte[4 << 20];
        new Random(7).nextBytes(object);
        try (S3AsyncClient c = AwsClients.build(S3.settings(), AwsOptions.defaults(), 2)) {
            c.putObject(b -> b.bucket(S3.bucket()).key("wide"), AsyncRequestBody.fromBytes(object)).join();
            ResponsePublisher<GetObjectResponse> body = c.getObject(b -> b.bucket(S3.bucket()).key("wide"),
                    AsyncResponseTransformer.toPublisher()).join();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            AtomicInteger widest = new AtomicInteger();
            body.subscribe((ByteBuffer piece) -> {
                widest.accumulateAndGet(piece.remaining(), Math::max);
                byte[] b = new byte[piece.remaining()];
                piece.get(b);
                got.writeBytes(b);
            }).join();
            assertArrayEquals(object, got.toByteArray());
            // Netty's default codec never passes on more than 8192 bytes at once
            assertTrue(widest.get() > 8192, "widest piece " + widest.get() + " bytes");
            assertTrue(widest.get() <= WideBodyChannel.BODY_PIECE, "widest piece " + widest.get() + " bytes");
        }
    }
}
