/**
 * The {@code az://} storage backend ({@link io.dgen4j.azure.AzureStorageProvider}) and its settings
 * ({@link io.dgen4j.azure.AzureSettings}): block blobs staged from pool segments and committed as one
 * block list, ranged downloads into pool segments.
 */
package io.dgen4j.azure;
