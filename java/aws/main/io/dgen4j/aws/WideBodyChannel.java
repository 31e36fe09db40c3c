package io.dgen4j.aws;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;

/**
 * The SDK's NIO socket channel, with its HTTP/1.1 codec passing response bodies on in pieces of up
 * to {@value #BODY_PIECE} bytes instead of Netty's default 8 KiB. The SDK copies every piece into a
 * new heap buffer and hands it through a chain of publishers to the caller: at 8 KiB a 1 GiB load
 * was 131,072 such pieces, and their handling (not the copies) took most of the client's CPU. With
 * wider pieces a piece is what one socket read returned (see {@link AwsClients}).
 *
 * <p>The SDK builds the pipeline itself ({@code new HttpClientCodec()}) and offers no hook for it,
 * so a handler placed first in each new channel swaps that codec for a wider one once the channel
 * is connected (the SDK has added its handlers by then and no byte has been read), and removes
 * itself.
 */
final class WideBodyChannel extends NioSocketChannel {
    /** The widest body piece the codec passes on. */
    static final int BODY_PIECE = 256 << 10;

    WideBodyChannel() {
        pipeline().addFirst(new Widener());
    }

    /** Swaps the SDK's default codec for a wider one when the channel becomes active. */
    private static final class Widener extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ChannelPipeline p = ctx.pipeline();
            ChannelHandlerContext codec = p.context(HttpClientCodec.class);
            // exactly the SDK's HTTP/1.1 codec; anything else (HTTP/2, a future SDK's own) stays
            if (codec != null && codec.handler().getClass() == HttpClientCodec.class) {
                p.replace(codec.name(), codec.name(),
                        new HttpClientCodec(new HttpDecoderConfig().setMaxChunkSize(BODY_PIECE), false, false));
            }
            p.remove(this);
            ctx.fireChannelActive();
        }
    }
}
