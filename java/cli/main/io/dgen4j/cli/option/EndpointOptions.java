package io.dgen4j.cli.option;

import io.dgen4j.azure.AzureSettings;
import io.dgen4j.s3.EndpointSet;
import io.dgen4j.s3.S3Settings;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The S3 endpoint-set options of every command that reaches S3: several gateways of one cluster
 * ({@code --endpoints}, {@code --endpoint-template}, {@code --endpoint-file}), how requests are
 * spread ({@code --balance}) and whether each object stays on one gateway ({@code --pin-upload}).
 * They override the variables of the same meaning ({@link EndpointSet#fromEnvironment}): an
 * endpoint option replaces whatever endpoint-set variable is set, {@code --balance} and
 * {@code --pin-upload} replace theirs. For {@code az://} targets the endpoint options name blob service
 * endpoints of the Azure account instead ({@link #azureSettings}).
 */
public final class EndpointOptions {
    @Option(names = "--endpoints", paramLabel = "URI[,URI...]",
            description = "S3 endpoints to spread requests over, comma-separated (over " + EndpointSet.URIS_VAR
                    + ", " + EndpointSet.TEMPLATE_VAR + " and " + EndpointSet.FILE_VAR + "); for az:// targets, "
                    + "blob service endpoints of the account (over " + AzureSettings.ENDPOINTS + ").")
    List<String> endpoints;

    @Option(names = "--endpoint-template", paramLabel = "TEMPLATE",
            description = "S3 endpoints as a template: every {a...b} range expanded, zero padding kept, e.g. "
                    + "http://10.0.0.{1...8}:9000.")
    String template;

    @Option(names = "--endpoint-file", paramLabel = "FILE",
            description = "S3 endpoints from a file: one URI a line, # comments and blank lines skipped.")
    String file;

    @Option(names = "--balance", paramLabel = "STRATEGY", converter = StrategyConverter.class,
            description = "How requests pick an endpoint: round_robin (default), least_connections, or rank "
                    + "(rank r uses endpoint r %% n); over " + EndpointSet.STRATEGY_VAR + ".")
    EndpointSet.Strategy balance;

    @Option(names = "--pin-upload", negatable = true,
            description = "Keep each object's requests on one endpoint (gateways that do not share upload state); "
                    + "over " + EndpointSet.PIN_VAR + ".")
    Boolean pinUpload;

    /** Whether any of these options was given. */
    public boolean given() {
        return endpoints != null || template != null || file != null || balance != null || pinUpload != null;
    }

    /** The option names given, for messages. */
    public String givenNames() {
        List<String> names = new ArrayList<>();
        if (endpoints != null) {
            names.add("--endpoints");
        }
        if (template != null) {
            names.add("--endpoint-template");
        }
        if (file != null) {
            names.add("--endpoint-file");
        }
        if (balance != null) {
            names.add("--balance");
        }
        if (pinUpload != null) {
            names.add(pinUpload ? "--pin-upload" : "--no-pin-upload");
        }
        return String.join(", ", names);
    }

    /**
     * The S3 settings of {@code env} (and {@code workingDir}'s {@code .env}) with these options
     * over them. Each option's value is checked first, so that a message names the option and the
     * offending entry.
     *
     * @throws IllegalArgumentException for a bad entry, two endpoint options at once, or
     *         {@code --balance}/{@code --pin-upload} without any endpoint set to apply to
     */
    public S3Settings settings(Map<String, String> env, Path workingDir) {
        List<URI> given = givenEndpoints(workingDir);
        Map<String, String> e = new HashMap<>(env);
        if (given != null) {
            // blank, not removed: a blank variable also hides the .env file's
            e.put(EndpointSet.URIS_VAR, given.stream().map(URI::toString).collect(Collectors.joining(",")));
            e.put(EndpointSet.TEMPLATE_VAR, "");
            e.put(EndpointSet.FILE_VAR, "");
        }
        if (balance != null) {
            e.put(EndpointSet.STRATEGY_VAR, balance.label());
        }
        if (pinUpload != null) {
            e.put(EndpointSet.PIN_VAR, pinUpload ? "1" : "0");
        }
        S3Settings s = S3Settings.fromEnvironment(e, workingDir);
        if ((balance != null || pinUpload != null) && s.endpointSet().isEmpty()) {
            throw new IllegalArgumentException(String.format("%s applies to a set of S3 endpoints: give --endpoints, "
                    + "--endpoint-template or --endpoint-file, or set %s, %s or %s", balance != null ? "--balance"
                    : pinUpload ? "--pin-upload" : "--no-pin-upload", EndpointSet.URIS_VAR, EndpointSet.TEMPLATE_VAR,
                    EndpointSet.FILE_VAR));
        }
        return s;
    }

    /**
     * The Azure settings of {@code env} (and {@code workingDir}'s {@code .env}) over the endpoints these
     * options name ({@value AzureSettings#ENDPOINTS}): endpoints of one storage account, round robin with
     * failover; an endpoint without a path takes the account endpoint's (an emulator's {@code /account}).
     *
     * @throws IllegalArgumentException for a bad entry, two endpoint options at once, {@code --balance} or
     *         {@code --pin-upload} (S3 alone), no endpoint option, or no Azure account configured
     */
    public AzureSettings azureSettings(Map<String, String> env, Path workingDir) {
        if (balance != null || pinUpload != null) {
            throw new IllegalArgumentException(String.format("%s applies to S3 endpoint sets: an az:// target's "
                    + "endpoints are used round robin", balance != null ? "--balance"
                    : pinUpload ? "--pin-upload" : "--no-pin-upload"));
        }
        List<URI> given;
        if (endpoints != null && template == null && file == null) {
            given = AzureSettings.parseList(String.join(",", endpoints), "--endpoints");
        } else {
            given = givenEndpoints(workingDir); // a template or file: scheme://host[:port] entries
        }
        if (given == null) {
            throw new IllegalArgumentException("no Azure endpoint given: use --endpoints");
        }
        Map<String, String> e = new HashMap<>(env);
        e.put(AzureSettings.ENDPOINTS, given.stream().map(URI::toString).collect(Collectors.joining(",")));
        return AzureSettings.fromEnvironment(e, workingDir).orElseThrow(() -> new IllegalArgumentException(
                String.format("--endpoints for an az:// target needs an Azure account: set %s, or %s with %s or %s",
                        AzureSettings.CONNECTION_STRING, AzureSettings.ACCOUNT, AzureSettings.KEY,
                        AzureSettings.SAS_TOKEN)));
    }

    /** The endpoints the options name, checked; null when no endpoint option was given. */
    private List<URI> givenEndpoints(Path workingDir) {
        int count = (endpoints != null ? 1 : 0) + (template != null ? 1 : 0) + (file != null ? 1 : 0);
        if (count > 1) {
            throw new IllegalArgumentException("give one of --endpoints, --endpoint-template and --endpoint-file, "
                    + "not " + count);
        }
        if (endpoints != null) {
            return EndpointSet.parseList(String.join(",", endpoints), "--endpoints");
        }
        if (template != null) {
            return EndpointSet.parseTemplate(template, "--endpoint-template");
        }
        if (file != null) {
            Path p = workingDir.resolve(file);
            return EndpointSet.readFile(p, "--endpoint-file " + p);
        }
        return null;
    }

    /** {@code --balance}'s values, as {@value EndpointSet#STRATEGY_VAR} takes them. */
    static final class StrategyConverter implements CommandLine.ITypeConverter<EndpointSet.Strategy> {
        @Override
        public EndpointSet.Strategy convert(String value) {
            try {
                return EndpointSet.Strategy.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
