/**
 * The dgen4j command line: picocli commands over the {@code io.dgen4j} library; the only module
 * that prints. Runs as a shaded jar on the class path ({@code ./dgen4j}), or on the module path
 * with {@code --enable-native-access=io.dgen4j,io.dgen4j.cli}.
 */
module io.dgen4j.cli {
    requires java.logging; // to quiet OkHttp's logger (Main.quietLogs)
    requires io.dgen4j;
    requires io.dgen4j.s3;
    requires io.dgen4j.s3.local;
    requires io.dgen4j.azure; // AzureSettings.secretValues, for the masking of standard error
    requires io.dgen4j.dlio;
    requires info.picocli;
    requires org.slf4j;
    requires org.knowm.xchart;
    requires java.desktop;

    exports io.dgen4j.cli;
    // picocli reads and sets the commands' annotated fields reflectively
    opens io.dgen4j.cli to info.picocli;
    opens io.dgen4j.cli.command to info.picocli;
    opens io.dgen4j.cli.option to info.picocli;
}
