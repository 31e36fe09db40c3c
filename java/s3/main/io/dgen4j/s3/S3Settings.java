package io.dgen4j.s3;

import io.dgen4j.s3.internal.PartPlan;
import io.dgen4j.storage.ConfigFiles;
import io.dgen4j.storage.Secrets;
import io.dgen4j.unit.ByteSize;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Settings of the S3 backends (one object for all of them; pass it with
 * {@code StreamingCheckpoint.Builder.backendOptions(settings)}), read from the variables our users
 * already set ({@link #fromEnvironment}) and overridden with the {@link Builder}.
 *
 * <p>Credentials: {@code AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY} (with
 * {@code AWS_SESSION_TOKEN}), else the {@code AWS_PROFILE} profile (default {@code default}) of
 * the shared credentials file ({@code AWS_SHARED_CREDENTIALS_FILE}, default
 * {@code ~/.aws/credentials}). Endpoint: {@code AWS_ENDPOINT_URL_S3}, else {@code AWS_ENDPOINT_URL},
 * else AWS; several endpoints of one cluster: {@code S3_ENDPOINT_URIS}, {@code S3_ENDPOINT_TEMPLATE} or
 * {@code S3_ENDPOINT_FILE} with {@code S3_LOAD_BALANCE_STRATEGY} and {@code S3_PIN_UPLOAD}
 * ({@link EndpointSet#fromEnvironment}), which win over the single endpoint when set. Region: {@code AWS_REGION}, else {@code AWS_DEFAULT_REGION}, else the profile's
 * {@code region} in the config file ({@code AWS_CONFIG_FILE}, default {@code ~/.aws/config}), else
 * {@code us-east-1}. TLS trust: {@code AWS_CA_BUNDLE} (a PEM file). Transfers: {@code DGEN4J_S3_PART_SIZE}
 * (bytes per part, e.g. {@code 64MiB}) and {@code DGEN4J_S3_CHECKSUMS} ({@code crc32c}, the default,
 * {@code when_required} or {@code full}, see {@link ChecksumMode}); waits: {@value S3Timeouts#VAR}
 * ({@link S3Timeouts}). A {@code .env} file in the
 * working directory supplies any of these that the environment does not set.
 *
 * <p>{@link #toString()} masks the secrets: the secret key and session token never appear in any
 * string form, the access key id only by its first four characters.
 *
 * {@snippet :
 * S3Settings s = S3Settings.fromEnvironment(System.getenv(), Path.of(""))
 *         .toBuilder().checksumMode(S3Settings.ChecksumMode.FULL).build();
 * }
 */
public final class S3Settings {
    /**
     * Which checksums protect the bytes of a transfer. None uses the trailer form (aws-chunked
     * trailing checksums) unless asked for, since many S3-compatible stores refuse it.
     */
    public enum ChecksumMode {
        /**
         * The default: dgen4j computes each part's CRC32C once, before its first attempt (a raw save's
         * native generator sums it as it fills the part, in cache; otherwise the JDK's CRC32C over the
         * part's segment) and sends it as an
         * {@code x-amz-checksum-crc32c} header, which the store checks against the bytes it received;
         * the upload is created for a full-object CRC32C ({@code x-amz-checksum-algorithm: CRC32C},
         * {@code x-amz-checksum-type: FULL_OBJECT}), the completion carries every part's CRC and the
         * object's (combined from the parts', no second pass) for the store to check, and the
         * object's checksum as the store reports it after the completion is compared with dgen4j's.
         * A load compares the CRC32C of the bytes it read with the object's when the store reports one.
         */
        CRC32C,
        /**
         * Checksums only where S3 requires one (the SDKs' {@code WHEN_REQUIRED}), for stores that
         * refuse the CRC32C upload: with {@code aws} and {@code crt} nothing but {@code load --verify}
         * checks the bytes; {@code minio} still sends each part's CRC32C header (not the object's).
         */
        WHEN_REQUIRED,
        /**
         * The client library's own checksums on every request and response that supports one (the
         * SDKs' {@code WHEN_SUPPORTED}, with CRC32 trailers; MinIO's signed SHA-256 payloads), instead of dgen4j's.
         */
        FULL;

        /** The lower-case name, as {@link #parse} reads it ({@code crc32c}, {@code when_required}, {@code full}). */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The mode {@code text} names: {@code crc32c}, {@code when_required} or {@code full}, in any
         * case, {@code -} for {@code _}.
         *
         * @throws IllegalArgumentException naming {@code what} (a variable or option) and the modes
         */
        public static ChecksumMode parse(String text, String what) {
            String t = text == null ? "" : text.strip().toUpperCase(Locale.ROOT).replace('-', '_');
            for (ChecksumMode m : values()) {
                if (m.name().equals(t)) {
                    return m;
                }
            }
            throw new IllegalArgumentException(String.format("%s must be crc32c, when_required or full, got '%s'", what,
                    text));
        }
    }

    /** The region when none is configured. */
    public static final String DEFAULT_REGION = "us-east-1";
    /** The environment variable names read. */
    public static final String ACCESS_KEY_ID = "AWS_ACCESS_KEY_ID", SECRET_ACCESS_KEY = "AWS_SECRET_ACCESS_KEY",
            SESSION_TOKEN = "AWS_SESSION_TOKEN", ENDPOINT_URL_S3 = "AWS_ENDPOINT_URL_S3",
            ENDPOINT_URL = "AWS_ENDPOINT_URL", REGION = "AWS_REGION", DEFAULT_REGION_VAR = "AWS_DEFAULT_REGION",
            CA_BUNDLE = "AWS_CA_BUNDLE", PROFILE = "AWS_PROFILE";
    /**
     * dgen4j's own variables: the part size (a {@link ByteSize}: {@code 8388608}, {@code 8MiB}; {@code 8MB} is
     * 8,000,000) and the checksum mode.
     */
    public static final String PART_SIZE_VAR = "DGEN4J_S3_PART_SIZE", CHECKSUMS_VAR = "DGEN4J_S3_CHECKSUMS";

    private final String accessKeyId;
    private final String secretAccessKey;
    private final String sessionToken;
    private final String credentialsSource;
    private final URI endpoint;
    private final EndpointSet endpointSet;
    private final String region;
    private final Path caBundle;
    private final long partSize;
    private final int maxInFlight;
    private final Boolean pathStyle;
    private final ChecksumMode checksumMode;
    private final Duration apiCallTimeout;
    private final Duration apiCallAttemptTimeout;
    private final S3Timeouts timeouts;

    private S3Settings(Builder b) {
        this.accessKeyId = b.accessKeyId;
        this.secretAccessKey = b.secretAccessKey;
        this.sessionToken = b.sessionToken;
        this.credentialsSource = b.credentialsSource;
        this.endpointSet = b.endpointSet;
        this.endpoint = b.endpointSet != null ? b.endpointSet.endpoints().getFirst() : b.endpoint;
        this.region = b.region;
        this.caBundle = b.caBundle;
        this.partSize = b.partSize;
        this.maxInFlight = b.maxInFlight;
        this.pathStyle = b.pathStyle;
        this.checksumMode = b.checksumMode;
        this.apiCallTimeout = b.apiCallTimeout;
        this.apiCallAttemptTimeout = b.apiCallAttemptTimeout;
        this.timeouts = b.timeouts;
    }

    /** Settings with no credentials, AWS's endpoint, region us-east-1 and default sizes. */
    public static S3Settings defaults() {
        return builder().build();
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * The settings that {@code env} (the process environment, typically) and the {@code .env} file
     * in {@code workingDir} give; variables in {@code env} win over the file's.
     *
     * @throws IllegalArgumentException naming the variable (never its secret value) when a value is
     *         malformed, a {@code .env} line is not {@code KEY=VALUE}, {@code AWS_PROFILE} names a
     *         profile that is not in the credentials file while no keys are set, or an endpoint set's
     *         variable is bad ({@link EndpointSet#fromEnvironment})
     */
    public static S3Settings fromEnvironment(Map<String, String> env, Path workingDir) {
        Map<String, String> all = new HashMap<>();
        Path dotEnv = workingDir.resolve(".env");
        Map<String, String> fromFile = ConfigFiles.readDotEnv(dotEnv);
        all.putAll(fromFile);
        env.forEach((k, v) -> {
            if (v != null) {
                all.put(k, v);
            }
        });
        Builder b = builder();
        String id = nonBlank(all.get(ACCESS_KEY_ID));
        String secret = nonBlank(all.get(SECRET_ACCESS_KEY));
        String profile = Optional.ofNullable(nonBlank(all.get(PROFILE))).orElse("default");
        Path home = Path.of(Optional.ofNullable(nonBlank(env.get("HOME"))).orElse(System.getProperty("user.home")));
        if (id != null || secret != null) {
            if (id == null || secret == null) {
                throw new IllegalArgumentException(String.format("%s is set but %s is not: set both", id == null
                        ? SECRET_ACCESS_KEY : ACCESS_KEY_ID, id == null ? ACCESS_KEY_ID : SECRET_ACCESS_KEY));
            }
            boolean envWins = env.containsKey(ACCESS_KEY_ID) && nonBlank(env.get(ACCESS_KEY_ID)) != null;
            b.credentials(id, secret, nonBlank(all.get(SESSION_TOKEN)));
            b.credentialsSource = envWins ? "environment" : dotEnv.toString();
        } else {
            Path file = Optional.ofNullable(nonBlank(all.get("AWS_SHARED_CREDENTIALS_FILE"))).map(Path::of)
                    .orElse(home.resolve(".aws").resolve("credentials"));
            Optional<Map<String, String>> section = EnvFiles.iniSection(file, "AWS credentials file", profile);
            if (section.isPresent() && section.get().containsKey("aws_access_key_id")
                    && section.get().containsKey("aws_secret_access_key")) {
                Map<String, String> s = section.get();
                b.credentials(s.get("aws_access_key_id"), s.get("aws_secret_access_key"),
                        nonBlank(s.get("aws_session_token")));
                b.credentialsSource = "profile " + profile + " in " + file;
            } else if (all.containsKey(PROFILE)) {
                throw new IllegalArgumentException(String.format("%s=%s but %s has no such profile with "
                        + "aws_access_key_id and aws_secret_access_key", PROFILE, profile, file));
            }
        }
        String endpoint = nonBlank(all.get(ENDPOINT_URL_S3));
        String endpointVar = ENDPOINT_URL_S3;
        if (endpoint == null) {
            endpoint = nonBlank(all.get(ENDPOINT_URL));
            endpointVar = ENDPOINT_URL;
        }
        if (endpoint != null) {
            b.endpoint(parseEndpoint(endpoint, endpointVar));
        }
        // a set of gateways, when named, wins over the single endpoint
        EndpointSet.fromEnvironment(all, workingDir).ifPresent(b::endpointSet);
        String region = nonBlank(all.get(REGION));
        if (region == null) {
            region = nonBlank(all.get(DEFAULT_REGION_VAR));
        }
        if (region == null) {
            Path config = Optional.ofNullable(nonBlank(all.get("AWS_CONFIG_FILE"))).map(Path::of)
                    .orElse(home.resolve(".aws").resolve("config"));
            region = EnvFiles.iniSection(config, "AWS config file",
                            profile.equals("default") ? "default" : "profile " + profile)
                    .map(s -> nonBlank(s.get("region"))).orElse(null);
        }
        if (region != null) {
            b.region(region);
        }
        String ca = nonBlank(all.get(CA_BUNDLE));
        if (ca != null) {
            Path pem = workingDir.resolve(ca).toAbsolutePath();
            if (java.nio.file.Files.exists(pem)) {
                // the clients read it whole: a FIFO, a device or a huge file is refused here (a missing one
                // is reported by the client that needs it, for https endpoints only)
                try {
                    io.dgen4j.storage.ConfigFiles.read(pem, CA_BUNDLE);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            b.caBundle(pem);
        }
        String part = nonBlank(all.get(PART_SIZE_VAR));
        if (part != null) {
            long bytes;
            try {
                bytes = ByteSize.parseBytes(part);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PART_SIZE_VAR + ": " + e.getMessage(), e);
            }
            try {
                b.partSize(bytes);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PART_SIZE_VAR + "=" + part + ": " + e.getMessage(), e);
            }
        }
        String checksums = nonBlank(all.get(CHECKSUMS_VAR));
        if (checksums != null) {
            b.checksumMode(ChecksumMode.parse(checksums, CHECKSUMS_VAR));
        }
        String timeouts = nonBlank(all.get(S3Timeouts.VAR));
        if (timeouts != null) {
            b.timeouts(S3Timeouts.parse(timeouts, S3Timeouts.VAR, S3Timeouts.DEFAULTS));
        }
        return b.build();
    }

    /**
     * Parses an endpoint URL ({@code http://host:port} or {@code https://...}).
     *
     * @throws IllegalArgumentException naming {@code what} (a variable or option) when it is not one
     */
    public static URI parseEndpoint(String text, String what) {
        // what a user typed is echoed with any user:secret@ masked (Secrets.mask), here and in `what`
        String shown = Secrets.mask(text);
        what = Secrets.mask(what);
        URI u;
        try {
            u = new URI(text.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(String.format("%s must be an http:// or https:// URL with a host, got "
                    + "'%s': %s", what, shown, e.getReason()));
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || u.getHost() == null) {
            throw new IllegalArgumentException(String.format("%s must be an http:// or https:// URL with a host, got "
                    + "'%s'", what, shown));
        }
        if (u.getRawUserInfo() != null) {
            throw new IllegalArgumentException(what + " must not carry credentials in the URL");
        }
        if (u.getPort() != -1 && (u.getPort() < 1 || u.getPort() > 65535)) {
            throw new IllegalArgumentException(String.format("%s: port %d of '%s' is not a TCP port (1 to 65535)",
                    what, u.getPort(), shown));
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        if (!path.isEmpty() && !path.equals("/") || u.getRawQuery() != null || u.getRawFragment() != null) {
            throw new IllegalArgumentException(String.format("%s must be scheme://host[:port] alone, got '%s': a path, "
                    + "query or fragment in an endpoint is not sent (the bucket and key come from the s3:// target)",
                    what, shown));
        }
        return u;
    }

    private static String nonBlank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** The access key id, if credentials are set. */
    public Optional<String> accessKeyId() {
        return Optional.ofNullable(accessKeyId);
    }

    /** The secret access key, if credentials are set; never print it. */
    public Optional<String> secretAccessKey() {
        return Optional.ofNullable(secretAccessKey);
    }

    /** The session token of temporary credentials, if any; never print it. */
    public Optional<String> sessionToken() {
        return Optional.ofNullable(sessionToken);
    }

    /** Whether an access key id and secret are set. */
    public boolean hasCredentials() {
        return accessKeyId != null && secretAccessKey != null;
    }

    /** Where the credentials came from ({@code environment}, a {@code .env} file, a profile), for messages. */
    public Optional<String> credentialsSource() {
        return Optional.ofNullable(credentialsSource);
    }

    /** The endpoint, when not AWS's own. */
    public Optional<URI> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /** The endpoint for messages: the custom one, or AWS's for the region. */
    public String endpointDescription() {
        return endpointSet != null && endpointSet.size() > 1 ? endpointSet.toString()
                : endpoint != null ? endpoint.toString() : "https://s3." + region + ".amazonaws.com";
    }

    /**
     * The endpoints requests are spread over, when a set was given (the first of them is
     * {@link #endpoint()}); empty for one endpoint given alone, or AWS's own.
     */
    public Optional<EndpointSet> endpointSet() {
        return Optional.ofNullable(endpointSet);
    }

    /**
     * One settings per endpoint, in the set's order: these settings with that endpoint alone (no
     * set); a one-element list of these settings without a set.
     */
    public java.util.List<S3Settings> perEndpoint() {
        if (endpointSet == null) {
            return java.util.List.of(this);
        }
        return endpointSet.endpoints().stream().map(u -> toBuilder().endpointSet(null).endpoint(u).build()).toList();
    }

    /** The signing region. */
    public String region() {
        return region;
    }

    /** A PEM file of certificates to trust, if set. */
    public Optional<Path> caBundle() {
        return Optional.ofNullable(caBundle);
    }

    /** The part size, if set (else the chunk size, see {@link #partSizeFor(long)}). */
    public OptionalLong partSize() {
        return partSize > 0 ? OptionalLong.of(partSize) : OptionalLong.empty();
    }

    /** The part size for a checkpoint with chunks of {@code chunkSize}: the one set, else {@link PartPlan#defaultPartSize}. */
    public long partSizeFor(long chunkSize) {
        return partSize > 0 ? partSize : PartPlan.defaultPartSize(chunkSize);
    }

    /** Requests in flight at most, if set (else the caller's writers or readers in flight). */
    public OptionalInt maxInFlight() {
        return maxInFlight > 0 ? OptionalInt.of(maxInFlight) : OptionalInt.empty();
    }

    /** Whether to address buckets by path ({@code endpoint/bucket/key}): as set, else true for custom endpoints. */
    public boolean pathStyle() {
        return pathStyle != null ? pathStyle : endpoint != null;
    }

    /** When checksums are computed and checked. */
    public ChecksumMode checksumMode() {
        return checksumMode;
    }

    /** Limit on one API call, retries included, if set. */
    public Optional<Duration> apiCallTimeout() {
        return Optional.ofNullable(apiCallTimeout);
    }

    /** Limit on one attempt of an API call, if set. */
    public Optional<Duration> apiCallAttemptTimeout() {
        return Optional.ofNullable(apiCallAttemptTimeout);
    }

    /** How long requests may wait, and failing ones be retried ({@link S3Timeouts#DEFAULTS} unless set). */
    public S3Timeouts timeouts() {
        return timeouts;
    }

    /** The first four characters of an access key id, the rest masked. */
    public static String mask(String accessKeyId) {
        if (accessKeyId == null) {
            return "none";
        }
        return accessKeyId.length() <= 4 ? "****" : accessKeyId.substring(0, 4) + "****";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof S3Settings s && Objects.equals(accessKeyId, s.accessKeyId)
                && Objects.equals(secretAccessKey, s.secretAccessKey) && Objects.equals(sessionToken, s.sessionToken)
                && Objects.equals(credentialsSource, s.credentialsSource) && Objects.equals(endpoint, s.endpoint)
                && Objects.equals(endpointSet, s.endpointSet)
                && region.equals(s.region) && Objects.equals(caBundle, s.caBundle) && partSize == s.partSize
                && maxInFlight == s.maxInFlight && Objects.equals(pathStyle, s.pathStyle)
                && checksumMode == s.checksumMode && Objects.equals(apiCallTimeout, s.apiCallTimeout)
                && Objects.equals(apiCallAttemptTimeout, s.apiCallAttemptTimeout) && timeouts.equals(s.timeouts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(accessKeyId, secretAccessKey, sessionToken, endpoint, endpointSet, region, caBundle, partSize,
                maxInFlight, pathStyle, checksumMode, apiCallTimeout, apiCallAttemptTimeout, timeouts);
    }

    /** The settings with the secrets masked. */
    @Override
    public String toString() {
        return "S3Settings[endpoint=" + endpointDescription() + ", region=" + region
                + ", accessKeyId=" + mask(accessKeyId)
                + ", secretAccessKey=" + (secretAccessKey == null ? "none" : "****")
                + ", sessionToken=" + (sessionToken == null ? "none" : "****")
                + (credentialsSource == null ? "" : ", credentials from " + credentialsSource)
                + ", pathStyle=" + pathStyle()
                + ", partSize=" + (partSize > 0 ? Long.toString(partSize) : "chunk size")
                + ", maxInFlight=" + (maxInFlight > 0 ? Integer.toString(maxInFlight) : "writers in flight")
                + ", checksums=" + checksumMode
                + ", timeouts=" + timeouts
                + (caBundle == null ? "" : ", caBundle=" + caBundle)
                + (apiCallTimeout == null ? "" : ", apiCallTimeout=" + apiCallTimeout)
                + (apiCallAttemptTimeout == null ? "" : ", apiCallAttemptTimeout=" + apiCallAttemptTimeout) + "]";
    }

    /** Builds {@link S3Settings}; every setter checks its value. */
    public static final class Builder {
        private String accessKeyId;
        private String secretAccessKey;
        private String sessionToken;
        private String credentialsSource;
        private URI endpoint;
        private EndpointSet endpointSet;
        private String region = DEFAULT_REGION;
        private Path caBundle;
        private long partSize;
        private int maxInFlight;
        private Boolean pathStyle;
        private ChecksumMode checksumMode = ChecksumMode.CRC32C;
        private Duration apiCallTimeout;
        private Duration apiCallAttemptTimeout;
        private S3Timeouts timeouts = S3Timeouts.DEFAULTS;

        private Builder() {}

        private Builder(S3Settings s) {
            accessKeyId = s.accessKeyId;
            secretAccessKey = s.secretAccessKey;
            sessionToken = s.sessionToken;
            credentialsSource = s.credentialsSource;
            endpoint = s.endpoint;
            endpointSet = s.endpointSet;
            region = s.region;
            caBundle = s.caBundle;
            partSize = s.partSize;
            maxInFlight = s.maxInFlight;
            pathStyle = s.pathStyle;
            checksumMode = s.checksumMode;
            apiCallTimeout = s.apiCallTimeout;
            apiCallAttemptTimeout = s.apiCallAttemptTimeout;
            timeouts = s.timeouts;
        }

        /** Static credentials; {@code sessionToken} may be null. */
        public Builder credentials(String accessKeyId, String secretAccessKey, String sessionToken) {
            if (accessKeyId == null || accessKeyId.isBlank() || secretAccessKey == null || secretAccessKey.isBlank()) {
                throw new IllegalArgumentException("the access key id and the secret access key must not be empty");
            }
            this.accessKeyId = accessKeyId;
            this.secretAccessKey = secretAccessKey;
            this.sessionToken = sessionToken;
            this.credentialsSource = "settings";
            return this;
        }

        /** The endpoint ({@code http(s)://host[:port]}); null for AWS's own. Clears an endpoint set. */
        public Builder endpoint(URI endpoint) {
            this.endpoint = endpoint == null ? null : parseEndpoint(endpoint.toString(), "the S3 endpoint");
            this.endpointSet = null;
            return this;
        }

        /** Several endpoints to spread requests over (replaces {@link #endpoint}); null for none. */
        public Builder endpointSet(EndpointSet set) {
            this.endpointSet = set;
            if (set != null) {
                this.endpoint = set.endpoints().getFirst();
            }
            return this;
        }

        /** The signing region. */
        public Builder region(String region) {
            if (region == null || !region.matches("[a-z0-9-]+")) {
                throw new IllegalArgumentException("an AWS region is lower-case letters, digits and '-', got '"
                        + region + "'");
            }
            this.region = region;
            return this;
        }

        /** A PEM file of certificates to trust; null for the JDK's. */
        public Builder caBundle(Path pem) {
            this.caBundle = pem;
            return this;
        }

        /** Bytes per part, 5 MiB to 5 GiB; 0 for the checkpoint's chunk size. */
        public Builder partSize(long bytes) {
            if (bytes != 0 && (bytes < PartPlan.MIN_PART_SIZE || bytes > PartPlan.MAX_PART_SIZE)) {
                throw new IllegalArgumentException(String.format("part size must be between %d (5 MiB) and %d (5 GiB) "
                        + "bytes, or 0 for the chunk size; got %d", PartPlan.MIN_PART_SIZE, PartPlan.MAX_PART_SIZE,
                        bytes));
            }
            this.partSize = bytes;
            return this;
        }

        /** Requests in flight at most, at least 1; 0 for the caller's writers or readers in flight. */
        public Builder maxInFlight(int n) {
            if (n < 0 || n > 1024) {
                throw new IllegalArgumentException("requests in flight must be 1 to 1024, or 0 for the default; got " + n);
            }
            this.maxInFlight = n;
            return this;
        }

        /** Path-style addressing on or off; null for the default (on for custom endpoints). */
        public Builder pathStyle(Boolean on) {
            this.pathStyle = on;
            return this;
        }

        /** When checksums are used. */
        public Builder checksumMode(ChecksumMode mode) {
            this.checksumMode = Objects.requireNonNull(mode, "checksum mode");
            return this;
        }

        /** Limit on one API call, retries included; null for none. */
        public Builder apiCallTimeout(Duration d) {
            this.apiCallTimeout = positive(d, "API call timeout");
            return this;
        }

        /** Limit on one attempt of an API call; null for none. */
        public Builder apiCallAttemptTimeout(Duration d) {
            this.apiCallAttemptTimeout = positive(d, "API call attempt timeout");
            return this;
        }

        /** How long requests may wait, and failing ones be retried. */
        public Builder timeouts(S3Timeouts t) {
            this.timeouts = Objects.requireNonNull(t, "timeouts");
            return this;
        }

        private static Duration positive(Duration d, String what) {
            if (d != null && (d.isNegative() || d.isZero())) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }

        /** The settings. */
        public S3Settings build() {
            return new S3Settings(this);
        }
    }
}
