package io.dgen4j.azure;

import io.dgen4j.storage.Secrets;
import io.dgen4j.storage.StorageTarget;

/**
 * An {@code az://container/blob} target: the container (3 to 63 lower-case letters, digits and single
 * hyphens, as Azure names them) and the blob's name (1 to 1024 characters) in the configured account.
 *
 * @param container the container's name
 * @param blob      the blob's name within it
 */
public record AzureLocation(String container, String blob) {
    /** The URI scheme of Azure Blob Storage targets. */
    public static final String SCHEME = "az";
    /** Azure's longest blob name, in characters. */
    public static final int MAX_BLOB_NAME = 1024;

    /**
     * The container and blob of {@code target} ({@code az://container/blob}).
     *
     * @throws IllegalArgumentException naming the target and Azure's rule it breaks
     */
    public static AzureLocation of(StorageTarget target) {
        String rest = target.location();
        int slash = rest.indexOf('/');
        String where = Secrets.mask(target.original());
        if (slash <= 0 || slash == rest.length() - 1) {
            throw new IllegalArgumentException(String.format("target %s must be az://container/blob", where));
        }
        String container = rest.substring(0, slash);
        String blob = rest.substring(slash + 1);
        if (!container.matches("[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}")) {
            throw new IllegalArgumentException(String.format("container '%s' of %s is not an Azure container name: "
                    + "3 to 63 lower-case letters, digits and single hyphens, starting with a letter or digit",
                    container, where));
        }
        if (blob.length() > MAX_BLOB_NAME) {
            throw new IllegalArgumentException(String.format("blob name of %s is %d characters: Azure allows %d",
                    where, blob.length(), MAX_BLOB_NAME));
        }
        if (blob.endsWith("/")) {
            throw new IllegalArgumentException("target " + where + " ends with '/': a checkpoint target is a blob, "
                    + "not a folder");
        }
        return new AzureLocation(container, blob);
    }

    @Override
    public String toString() {
        return SCHEME + "://" + container + "/" + blob;
    }
}
