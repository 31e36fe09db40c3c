/** Storage backends: {@link io.dgen4j.storage.StorageWriter}/{@link io.dgen4j.storage.StorageReader}, the file backend and target parsing. */
package io.dgen4j.storage;
