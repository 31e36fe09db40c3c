/**
 * The {@code azure} storage backend: {@code az://container/blob} targets in Azure Blob Storage (block
 * blobs) through the Azure SDK for Java ({@code azure-storage-blob} over azure-core's Netty client).
 * Found by {@link java.util.ServiceLoader}; its options are {@link io.dgen4j.azure.AzureSettings}.
 */
module io.dgen4j.azure {
    requires transitive io.dgen4j;
    requires org.slf4j;
    requires com.azure.storage.blob;
    requires com.azure.storage.common;
    requires com.azure.core;
    requires com.azure.http.netty;
    requires reactor.core;
    requires org.reactivestreams;

    exports io.dgen4j.azure;

    provides io.dgen4j.storage.StorageProvider with io.dgen4j.azure.AzureStorageProvider;
}
