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
}
