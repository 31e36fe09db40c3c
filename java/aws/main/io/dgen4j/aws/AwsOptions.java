package io.dgen4j.aws;

import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;

/**
 * Options of the {@code aws} backend beyond the client-neutral {@link io.dgen4j.s3.S3Settings}:
 * hooks that adjust the SDK client before it is built. {@code overrides} edits the override
 * configuration that dgen4j starts (its timeouts set): add execution interceptors or metric
 * publishers there, since {@code S3AsyncClientBuilder.overrideConfiguration(...)} in
 * {@code customizer} would replace it. Clients are cached per settings and options: pass the same
 * options object to reuse a client.
 *
 * <p>A load's HEAD and ranged GETs go through a second, sync SDK client (Apache's HTTP client: half
 * the CPU per GiB of the async client's) built with the same settings and {@code overrides}; options
 * with a {@code customizer} keep them on the async client, which is the one the customizer edits.
 *
 * {@snippet :
 * StorageOptions o = StorageOptions.empty().with(settings)
 *         .with(AwsOptions.overriding(c -> c.addExecutionInterceptor(myInterceptor)));
 * }
 *
 * @param customizer applied to the client builder after dgen4j's own settings
 * @param overrides  applied to the client's override configuration after dgen4j's timeouts
 */
public record AwsOptions(Consumer<S3AsyncClientBuilder> customizer,
                         Consumer<ClientOverrideConfiguration.Builder> overrides) {
    /** The customizer of options that have none. */
    private static final Consumer<S3AsyncClientBuilder> NO_CUSTOMIZER = b -> { };
    private static final AwsOptions DEFAULTS = new AwsOptions(NO_CUSTOMIZER, c -> { });

    /** Checks both hooks are set. */
    public AwsOptions {
        Objects.requireNonNull(customizer, "customizer");
        Objects.requireNonNull(overrides, "overrides");
    }

    /** No customization. */
    public static AwsOptions defaults() {
        return DEFAULTS;
    }

    /** Options that apply {@code customizer} to the client builder. */
    public static AwsOptions customizing(Consumer<S3AsyncClientBuilder> customizer) {
        return new AwsOptions(customizer, c -> { });
    }

    /** Options that apply {@code overrides} to the client's override configuration. */
    public static AwsOptions overriding(Consumer<ClientOverrideConfiguration.Builder> overrides) {
        return new AwsOptions(NO_CUSTOMIZER, overrides);
    }

    /**
     * Whether these options customize the async client's builder: then a load's requests go through
     * that client too (else through a sync client with the same settings and overrides, see AwsSyncCalls).
     */
    boolean customizesBuilder() {
        return customizer != NO_CUSTOMIZER;
    }
}
