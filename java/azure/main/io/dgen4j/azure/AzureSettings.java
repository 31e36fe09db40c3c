package io.dgen4j.azure;

import io.dgen4j.storage.ConfigFiles;
import io.dgen4j.storage.Secrets;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and as whom the {@code azure} backend connects: the blob service endpoint, the account, and one
 * credential (the account's shared key or a SAS token), read from the variables Azure users set:
 * {@value #CONNECTION_STRING}, else {@value #ACCOUNT} with {@value #KEY} or {@value #SAS_TOKEN}. The
 * endpoint is the connection string's {@code BlobEndpoint} (or its protocol, account and
 * {@code EndpointSuffix}), else {@code https://<account>.blob.core.windows.net}; {@value #ENDPOINT}
 * overrides it (an emulator such as Azurite, {@code http://127.0.0.1:10000/devstoreaccount1}, or a
 * sovereign cloud). A {@code .env} file in the working directory supplies any of these that the
 * environment does not set ({@link ConfigFiles#readDotEnv}).
 *
 * <p>An account reached through several blob service endpoints (gateways or proxies in front of it, its
 * read-access secondary) is an endpoint set: {@value #ENDPOINTS} lists the endpoints that take reads and
 * writes (the first is the primary, named in messages), {@value #SECONDARIES} those that take reads alone;
 * a connection string's {@code BlobSecondaryEndpoint}, and a listed host named {@code <account>-secondary.},
 * are read-only too. An endpoint listed without a path takes the primary's ({@code /devstoreaccount1} of
 * an emulator).
 *
 * <p>{@link #toString()} and every message mask the secrets: the key, the SAS token and the connection
 * string never appear in any string form ({@link #mask(String)}).
 *
 * {@snippet :
 * AzureSettings s = AzureSettings.fromEnvironment(System.getenv(), Path.of(""));
 * }
 */
public final class AzureSettings {
    /** A storage account's connection string ({@code AccountName=...;AccountKey=...;BlobEndpoint=...}). */
    public static final String CONNECTION_STRING = "AZURE_STORAGE_CONNECTION_STRING";
    /** The storage account's name. */
    public static final String ACCOUNT = "AZURE_STORAGE_ACCOUNT";
    /** The account's shared key (base64). */
    public static final String KEY = "AZURE_STORAGE_KEY";
    /** A shared access signature, with or without its leading {@code ?}. */
    public static final String SAS_TOKEN = "AZURE_STORAGE_SAS_TOKEN";
    /** The blob service URL, overriding the account's default (emulators, sovereign clouds). */
    public static final String ENDPOINT = "AZURE_STORAGE_BLOB_ENDPOINT";
    /** The blob service endpoints that take reads and writes, comma-separated (over {@value #ENDPOINT}). */
    public static final String ENDPOINTS = "AZURE_STORAGE_BLOB_ENDPOINT_URIS";
    /** Read-only blob service endpoints of the account (its read-access secondary), comma-separated. */
    public static final String SECONDARIES = "AZURE_STORAGE_BLOB_SECONDARY_URIS";
    /** The most endpoints one set may hold. */
    public static final int MAX_ENDPOINTS = 256;
    /** Azurite's and the storage emulator's well-known development account. */
    public static final String DEV_ACCOUNT = "devstoreaccount1";
    /** The development account's published key (no secret, but masked all the same). */
    static final String DEV_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private final URI endpoint;
    private final List<URI> endpoints;
    private final List<URI> secondaries;
    private final String account;
    private final String key;
    private final String sasToken;
    private final String connectionString;
    private final String source;

    private AzureSettings(URI endpoint, String account, String key, String sasToken, String connectionString,
                          String source) {
        this(List.of(endpoint), List.of(), account, key, sasToken, connectionString, source);
    }

    private AzureSettings(List<URI> endpoints, List<URI> secondaries, String account, String key, String sasToken,
                          String connectionString, String source) {
        this.endpoint = Objects.requireNonNull(endpoints.getFirst(), "endpoint");
        this.endpoints = List.copyOf(endpoints);
        this.secondaries = List.copyOf(secondaries);
        if (this.endpoints.size() + this.secondaries.size() > MAX_ENDPOINTS) {
            throw new IllegalArgumentException(String.format("an Azure endpoint set holds at most %d endpoints, not %d",
                    MAX_ENDPOINTS, this.endpoints.size() + this.secondaries.size()));
        }
        Map<String, String> seen = new HashMap<>();
        for (URI u : concat(this.endpoints, this.secondaries)) {
            if (seen.put(identity(u), u.toString()) != null) {
                throw new IllegalArgumentException("endpoint " + u + " is listed twice");
            }
        }
        this.account = account;
        this.key = key;
        this.sasToken = sasToken;
        this.connectionString = connectionString;
        this.source = source;
    }

    /**
     * Settings for an account and its shared key at an endpoint (a test's emulator, say).
     *
     * @throws IllegalArgumentException when the endpoint is not an http(s) URL
     */
    public static AzureSettings sharedKey(URI endpoint, String account, String key) {
        return new AzureSettings(checkEndpoint(endpoint.toString(), "endpoint"), account, key, null, null, "arguments");
    }

    /** A copy that authenticates with {@code sasToken} instead of a shared key. */
    public AzureSettings withSasToken(String sasToken) {
        return new AzureSettings(endpoint, account, null, stripQuestionMark(sasToken), connectionString, source);
    }

    /** A copy at another endpoint alone (a proxy in front of the store, say). */
    public AzureSettings withEndpoint(URI endpoint) {
        return new AzureSettings(checkEndpoint(endpoint.toString(), "endpoint"), account, key, sasToken,
                connectionString, source);
    }

    /**
     * A copy over an endpoint set: {@code endpoints} take reads and writes (the first is the primary),
     * {@code secondaries} reads alone. An endpoint without a path takes the first endpoint's (which takes
     * these settings' primary's when it has none).
     *
     * @throws IllegalArgumentException when an endpoint is not an http(s) URL, or one is listed twice
     */
    public AzureSettings withEndpoints(List<URI> endpoints, List<URI> secondaries) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("an Azure endpoint set needs at least one endpoint that takes writes");
        }
        URI primary = withPath(checkEndpoint(endpoints.getFirst().toString(), "endpoint 1"), endpoint);
        List<URI> w = new ArrayList<>(List.of(primary));
        for (int i = 1; i < endpoints.size(); i++) {
            w.add(withPath(checkEndpoint(endpoints.get(i).toString(), "endpoint " + (i + 1)), primary));
        }
        List<URI> r = new ArrayList<>();
        for (int i = 0; i < secondaries.size(); i++) {
            r.add(withPath(checkEndpoint(secondaries.get(i).toString(), "secondary endpoint " + (i + 1)), primary));
        }
        return new AzureSettings(w, r, account, key, sasToken, connectionString, source);
    }

    /**
     * The endpoints of a comma-separated list (blank entries skipped), each checked as an http(s) URL.
     *
     * @param source how to name the list in messages ({@code --endpoints}, {@value #ENDPOINTS})
     * @throws IllegalArgumentException naming the source and the entry, or when the list is empty
     */
    public static List<URI> parseList(String commaSeparated, String source) {
        List<URI> out = new ArrayList<>();
        int n = 0;
        for (String part : commaSeparated.split(",")) {
            n++;
            if (!part.isBlank()) {
                out.add(checkEndpoint(part.strip(), source + " entry " + n));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(source + " lists no endpoint");
        }
        return out;
    }

    /**
     * These settings over the endpoints of {@code list} ({@link #parseList}): hosts named
     * {@code <account>-secondary.} among them are read-only, beside {@link #secondaries()}.
     */
    public AzureSettings withEndpointList(List<URI> list) {
        List<URI> w = new ArrayList<>();
        List<URI> r = new ArrayList<>(secondaries);
        for (URI u : list) {
            (isSecondaryHost(u) ? r : w).add(u);
        }
        if (w.isEmpty()) {
            throw new IllegalArgumentException(String.format("every endpoint listed is a read-only secondary (%s): "
                    + "list the primary too", list));
        }
        return withEndpoints(w, r);
    }

    private boolean isSecondaryHost(URI u) {
        return account != null && u.getHost() != null
                && u.getHost().toLowerCase(Locale.ROOT).startsWith(account.toLowerCase(Locale.ROOT) + "-secondary.");
    }

    /** {@code u} with {@code primary}'s path when it has none of its own. */
    private static URI withPath(URI u, URI primary) {
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        if (!path.isEmpty() && !path.equals("/") || primary.getRawPath() == null || primary.getRawPath().isEmpty()) {
            return u;
        }
        return URI.create(u.getScheme() + "://" + u.getRawAuthority() + primary.getRawPath());
    }

    private static String identity(URI u) {
        String path = u.getRawPath() == null ? "" : u.getRawPath().replaceAll("/+$", "");
        int port = u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
        return u.getScheme().toLowerCase(Locale.ROOT) + "://" + u.getHost().toLowerCase(Locale.ROOT) + ":" + port
                + path;
    }

    private static List<URI> concat(List<URI> a, List<URI> b) {
        List<URI> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * The settings that {@code env} (the process environment, typically) and the {@code .env} file in
     * {@code workingDir} give; variables in {@code env} win over the file's. Empty when neither names an
     * account.
     *
     * @throws IllegalArgumentException naming the variable (never its value) when a value is malformed,
     *         or an account is named without a credential
     */
    public static Optional<AzureSettings> fromEnvironment(Map<String, String> env, Path workingDir) {
        Path dotEnv = workingDir.resolve(".env");
        Map<String, String> fromFile = ConfigFiles.readDotEnv(dotEnv);
        Map<String, String> all = new HashMap<>(fromFile);
        env.forEach((k, v) -> {
            if (v != null) {
                all.put(k, v);
            }
        });
        String cs = nonBlank(all.get(CONNECTION_STRING));
        String override = nonBlank(all.get(ENDPOINT));
        String account;
        String key;
        String sas;
        URI endpoint;
        String var;
        if (cs != null) {
            var = CONNECTION_STRING;
            Map<String, String> parts = parseConnectionString(cs);
            if ("true".equalsIgnoreCase(parts.get("usedevelopmentstorage"))) {
                account = DEV_ACCOUNT;
                key = DEV_KEY;
                sas = null;
                endpoint = URI.create("http://127.0.0.1:10000/" + DEV_ACCOUNT);
            } else {
                account = parts.get("accountname");
                key = parts.get("accountkey");
                sas = parts.get("sharedaccesssignature");
                String blobEndpoint = parts.get("blobendpoint");
                if (key == null && sas == null) {
                    throw new IllegalArgumentException(CONNECTION_STRING + " has neither AccountKey nor "
                            + "SharedAccessSignature");
                }
                if (blobEndpoint != null) {
                    endpoint = checkEndpoint(blobEndpoint, CONNECTION_STRING + "'s BlobEndpoint");
                } else if (account != null) {
                    String protocol = parts.getOrDefault("defaultendpointsprotocol", "https");
                    String suffix = parts.getOrDefault("endpointsuffix", "core.windows.net");
                    endpoint = checkEndpoint(protocol + "://" + account + ".blob." + suffix, CONNECTION_STRING);
                } else if (override == null) {
                    throw new IllegalArgumentException(CONNECTION_STRING + " has neither AccountName nor BlobEndpoint");
                } else {
                    endpoint = null;
                }
            }
        } else {
            account = nonBlank(all.get(ACCOUNT));
            key = nonBlank(all.get(KEY));
            sas = nonBlank(all.get(SAS_TOKEN));
            var = ACCOUNT;
            if (account == null) {
                if (key != null || sas != null) {
                    throw new IllegalArgumentException(String.format("%s is set but %s is not: set both", key != null
                            ? KEY : SAS_TOKEN, ACCOUNT));
                }
                return Optional.empty();
            }
            if (key == null && sas == null) {
                throw new IllegalArgumentException(String.format("%s is set but neither %s nor %s is: set one (or "
                        + "%s instead)", ACCOUNT, KEY, SAS_TOKEN, CONNECTION_STRING));
            }
            endpoint = URI.create("https://" + account + ".blob.core.windows.net");
        }
        if (override != null) {
            endpoint = checkEndpoint(override, ENDPOINT);
        }
        if (account == null) {
            // an endpoint with a SAS alone: the account is the host's first label, or the path's (emulators)
            account = accountOf(endpoint);
        }
        boolean envWins = nonBlank(env.get(var)) != null;
        AzureSettings s = new AzureSettings(endpoint, account, key, stripQuestionMark(sas), cs,
                envWins ? "environment" : dotEnv.toString());
        String list = nonBlank(all.get(ENDPOINTS));
        String second = nonBlank(all.get(SECONDARIES));
        if (second == null && cs != null) {
            second = nonBlank(parseConnectionString(cs).get("blobsecondaryendpoint"));
        }
        if (list == null && second == null) {
            return Optional.of(s);
        }
        List<URI> secondaries = second == null ? List.of() : parseList(second, all.get(SECONDARIES) != null
                ? SECONDARIES : CONNECTION_STRING + "'s BlobSecondaryEndpoint");
        s = s.withEndpoints(List.of(endpoint), secondaries);
        return Optional.of(list == null ? s : s.withEndpointList(parseList(list, ENDPOINTS)));
    }

    /** The blob service endpoint, e.g. {@code https://acct.blob.core.windows.net} (of a set, the primary). */
    public URI endpoint() {
        return endpoint;
    }

    /** The endpoints that take reads and writes, the primary first. */
    public List<URI> endpoints() {
        return endpoints;
    }

    /** The read-only endpoints (the account's read-access secondary): loads use them, saves never. */
    public List<URI> secondaries() {
        return secondaries;
    }

    /** Whether requests are spread over several endpoints. */
    public boolean isEndpointSet() {
        return endpoints.size() + secondaries.size() > 1;
    }

    /** The storage account's name. */
    public String account() {
        return account;
    }

    /** Whether requests are signed with the account's shared key (else a SAS token authorizes them). */
    public boolean usesSharedKey() {
        return key != null;
    }

    /** The shared key: for the client builder only. */
    String key() {
        return key;
    }

    /** The SAS token: for the client builder only. */
    String sasToken() {
        return sasToken;
    }

    /** Where the settings came from ({@code environment}, a {@code .env} file, {@code arguments}), for messages. */
    public String source() {
        return source;
    }

    /** {@code text} with every secret of these settings (key, SAS token and its signature, connection string) masked. */
    public String mask(String text) {
        List<String> secrets = new ArrayList<>();
        secrets.add(connectionString);
        secrets.add(key);
        secrets.add(sasToken);
        if (sasToken != null) {
            secrets.addAll(signatures(sasToken));
        }
        return Secrets.mask(text, secrets);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AzureSettings s && endpoints.equals(s.endpoints) && secondaries.equals(s.secondaries)
                && Objects.equals(account, s.account)
                && Objects.equals(key, s.key) && Objects.equals(sasToken, s.sasToken);
    }

    @Override
    public int hashCode() {
        return Objects.hash(endpoints, secondaries, account, key, sasToken);
    }

    /** Names the endpoint, account and kind of credential; never a secret. */
    @Override
    public String toString() {
        return String.format("AzureSettings[endpoint=%s, account=%s, credential=%s, from %s]", isEndpointSet()
                ? endpoints + (secondaries.isEmpty() ? "" : " and read-only " + secondaries) : endpoint, account,
                key != null ? "shared key" : "SAS token", source);
    }

    /**
     * The secret values that {@code env} holds for Azure, for a mask of everything a process prints: the
     * key, the SAS token and its signature, the connection string and its {@code AccountKey} and
     * {@code SharedAccessSignature}. Never throws: a malformed connection string is masked whole.
     */
    public static List<String> secretValues(Map<String, String> env) {
        List<String> out = new ArrayList<>();
        for (String var : List.of(CONNECTION_STRING, KEY, SAS_TOKEN)) {
            String v = nonBlank(env.get(var));
            if (v == null) {
                continue;
            }
            out.add(v);
            if (var.equals(CONNECTION_STRING)) {
                for (String p : v.split(";")) {
                    int eq = p.indexOf('=');
                    String name = eq < 0 ? "" : p.substring(0, eq).strip();
                    if (name.equalsIgnoreCase("AccountKey") || name.equalsIgnoreCase("SharedAccessSignature")) {
                        out.add(p.substring(eq + 1).strip());
                        out.addAll(signatures(p.substring(eq + 1).strip()));
                    }
                }
            } else if (var.equals(SAS_TOKEN)) {
                out.addAll(signatures(v));
            }
        }
        return List.copyOf(out);
    }

    /** The {@code sig} of a SAS token, as sent and decoded. */
    private static List<String> signatures(String sas) {
        List<String> out = new ArrayList<>();
        for (String p : stripQuestionMark(sas).split("&")) {
            if (p.startsWith("sig=")) {
                out.add(p.substring(4));
                out.add(java.net.URLDecoder.decode(p.substring(4), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** The {@code name=value} pairs of a connection string, names in lower case. */
    private static Map<String, String> parseConnectionString(String cs) {
        Map<String, String> parts = new HashMap<>();
        int n = 0;
        for (String p : cs.split(";")) {
            n++;
            if (p.isBlank()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq <= 0) {
                // never the part itself: it may be a key
                throw new IllegalArgumentException(String.format("%s part %d is not name=value", CONNECTION_STRING, n));
            }
            parts.put(p.substring(0, eq).strip().toLowerCase(Locale.ROOT), p.substring(eq + 1).strip());
        }
        return parts;
    }

    private static URI checkEndpoint(String text, String what) {
        try {
            URI u = new URI(text);
            if (u.getScheme() == null || !(u.getScheme().equalsIgnoreCase("http") || u.getScheme().equalsIgnoreCase(
                    "https")) || u.getHost() == null) {
                throw new IllegalArgumentException(String.format("%s '%s' is not an http(s) URL with a host", what,
                        Secrets.mask(text)));
            }
            if (u.getRawQuery() != null) {
                throw new IllegalArgumentException(what + " carries a query (a SAS token?): set the token in "
                        + SAS_TOKEN + " instead");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(String.format("%s is not a URL: %s", what, Secrets.mask(e.getReason())));
        }
    }

    private static String accountOf(URI endpoint) {
        String path = endpoint.getPath() == null ? "" : endpoint.getPath().replaceAll("^/+|/+$", "");
        if (!path.isEmpty()) {
            return path.split("/")[0];
        }
        String host = endpoint.getHost();
        int dot = host.indexOf('.');
        return dot < 0 ? host : host.substring(0, dot);
    }

    private static String stripQuestionMark(String sas) {
        return sas != null && sas.startsWith("?") ? sas.substring(1) : sas;
    }

    private static String nonBlank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
