package io.dgen4j.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Azure settings from the variables Azure users set and from {@code .env}; secrets never in a message. */
class AzureSettingsTest {
    @TempDir
    Path dir;

    private Optional<AzureSettings> of(Map<String, String> env) {
        return AzureSettings.fromEnvironment(env, dir);
    }

    @Test
    void nothingSetIsNoAccount() {
        assertEquals(Optional.empty(), of(Map.of()));
    }

    @Test
    void anAccountWithAKeyGoesToItsPublicEndpointUnlessOverridden() {
        AzureSettings s = of(Map.of(AzureSettings.ACCOUNT, "acct", AzureSettings.KEY, "a2V5a2V5")).orElseThrow();
        assertEquals(URI.create("https://acct.blob.core.windows.net"), s.endpoint());
        assertTrue(s.usesSharedKey());
        s = of(Map.of(AzureSettings.ACCOUNT, "acct", AzureSettings.SAS_TOKEN, "?sv=1&sig=SIGsecret%2Bx",
                AzureSettings.ENDPOINT, "http://127.0.0.1:10000/acct")).orElseThrow();
        assertEquals(URI.create("http://127.0.0.1:10000/acct"), s.endpoint());
        assertFalse(s.usesSharedKey());
        assertEquals("sig=*** and ***", s.mask("sig=SIGsecret%2Bx and SIGsecret+x"));
        assertEquals("environment", s.source());
    }

    @Test
    void aConnectionStringGivesAccountKeyAndEndpoint() {
        AzureSettings s = of(Map.of(AzureSettings.CONNECTION_STRING, "DefaultEndpointsProtocol=https;AccountName=acct;"
                + "AccountKey=S2V5S2V5;EndpointSuffix=core.chinacloudapi.cn")).orElseThrow();
        assertEquals(URI.create("https://acct.blob.core.chinacloudapi.cn"), s.endpoint());
        assertEquals("acct", s.account());
        s = of(Map.of(AzureSettings.CONNECTION_STRING, "UseDevelopmentStorage=true")).orElseThrow();
        assertEquals(URI.create("http://127.0.0.1:10000/devstoreaccount1"), s.endpoint());
        assertEquals(AzureSettings.DEV_ACCOUNT, s.account());
    }

    @Test
    void malformedSettingsNameTheVariableNeverTheValue() {
        var e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(AzureSettings.ACCOUNT, "acct")));
        assertTrue(e.getMessage().contains(AzureSettings.KEY), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(AzureSettings.KEY, "SECRETkey1")));
        assertTrue(e.getMessage().contains(AzureSettings.ACCOUNT) && !e.getMessage().contains("SECRETkey1"));
        e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(AzureSettings.CONNECTION_STRING,
                "AccountName=acct;SECRETkeyWithoutName")));
        assertTrue(e.getMessage().contains("part 2") && !e.getMessage().contains("SECRETkey"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(AzureSettings.ACCOUNT, "acct",
                AzureSettings.KEY, "a2V5", AzureSettings.ENDPOINT, "http://h/acct?sig=SECRETsig")));
        assertTrue(e.getMessage().contains(AzureSettings.SAS_TOKEN) && !e.getMessage().contains("SECRETsig"));
    }

    @Test
    void aDotEnvSuppliesWhatTheEnvironmentDoesNotSet() throws Exception {
        Files.writeString(dir.resolve(".env"), AzureSettings.ACCOUNT + "=fromfile\n" + AzureSettings.KEY + "=a2V5\n");
        AzureSettings s = of(Map.of()).orElseThrow();
        assertEquals("fromfile", s.account());
        assertEquals(dir.resolve(".env").toString(), s.source());
        assertEquals("fromenv", of(Map.of(AzureSettings.ACCOUNT, "fromenv")).orElseThrow().account());
    }

    @Test
    void theSecretValuesOfTheEnvironmentIncludeTheConnectionStringsKey() {
        var v = AzureSettings.secretValues(Map.of(AzureSettings.CONNECTION_STRING,
                "AccountName=a;AccountKey=KEYsecret==;BlobEndpoint=http://h/a", AzureSettings.SAS_TOKEN,
                "sv=1&sig=SIG%2Bsecret"));
        assertTrue(v.contains("KEYsecret=="), v.toString());
        assertTrue(v.contains("SIG%2Bsecret") && v.contains("SIG+secret"), v.toString());
        assertFalse(AzureSettings.sharedKey(URI.create("http://h/a"), "a", "KEYsecret==").toString().contains("KEYsecret"));
    }

    @Test
    void anEndpointSetComesFromItsVariablesAndTheConnectionStringsSecondary() {
        AzureSettings s = of(Map.of(AzureSettings.ACCOUNT, "acct", AzureSettings.KEY, "a2V5a2V5",
                AzureSettings.ENDPOINTS, "https://gw1.example:8443, https://acct-secondary.blob.core.windows.net,"
                        + "https://gw2.example")).orElseThrow();
        assertEquals(java.util.List.of(URI.create("https://gw1.example:8443"), URI.create("https://gw2.example")),
                s.endpoints());
        assertEquals(java.util.List.of(URI.create("https://acct-secondary.blob.core.windows.net")), s.secondaries());
        assertEquals(URI.create("https://gw1.example:8443"), s.endpoint());
        assertTrue(s.isEndpointSet());

        s = of(Map.of(AzureSettings.CONNECTION_STRING, "DefaultEndpointsProtocol=http;AccountName=acct;"
                + "AccountKey=a2V5a2V5;BlobEndpoint=http://127.0.0.1:10000/acct;"
                + "BlobSecondaryEndpoint=http://127.0.0.1:10001/acct-secondary")).orElseThrow();
        assertEquals(java.util.List.of(URI.create("http://127.0.0.1:10000/acct")), s.endpoints());
        assertEquals(java.util.List.of(URI.create("http://127.0.0.1:10001/acct-secondary")), s.secondaries());

        s = of(Map.of(AzureSettings.ACCOUNT, "acct", AzureSettings.KEY, "a2V5a2V5", AzureSettings.ENDPOINT,
                "http://127.0.0.1:10000/acct", AzureSettings.ENDPOINTS, "http://127.0.0.1:7001,http://127.0.0.1:7002",
                AzureSettings.SECONDARIES, "http://127.0.0.1:7003")).orElseThrow();
        assertEquals(java.util.List.of(URI.create("http://127.0.0.1:7001/acct"),
                URI.create("http://127.0.0.1:7002/acct")), s.endpoints(), "an endpoint without a path takes the account endpoint's");
        assertEquals(java.util.List.of(URI.create("http://127.0.0.1:7003/acct")), s.secondaries());
        assertFalse(of(Map.of(AzureSettings.ACCOUNT, "acct", AzureSettings.KEY, "a2V5a2V5")).orElseThrow()
                .isEndpointSet());
    }

    @Test
    void aBadOrRepeatedEndpointIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(
                AzureSettings.ACCOUNT, "acct", AzureSettings.KEY, "a2V5a2V5", AzureSettings.ENDPOINTS, "https://gw1.example,ftp://x")));
        assertTrue(e.getMessage().contains(AzureSettings.ENDPOINTS + " entry 2"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(AzureSettings.ACCOUNT, "acct",
                AzureSettings.KEY, "a2V5a2V5", AzureSettings.ENDPOINTS,
                "https://gw1.example,https://GW1.example:443")));
        assertTrue(e.getMessage().contains("twice"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(AzureSettings.ACCOUNT, "acct",
                AzureSettings.KEY, "a2V5a2V5", AzureSettings.ENDPOINTS,
                "https://acct-secondary.blob.core.windows.net")));
        assertTrue(e.getMessage().contains("read-only"), e.getMessage());
    }
}
