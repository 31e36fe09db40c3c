import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.ParallelTransferOptions;
import com.azure.storage.blob.options.BlobParallelUploadOptions;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Azure SDK's own upload of a file's bytes from memory, the reference of scripts/bench-azure.sh: reads FILE
 * into one byte[], then times {@code BlobAsyncClient.uploadWithResponse(BinaryData.fromBytes(bytes))} with the
 * given block size and concurrency, and prints {@code {"bytes": n, "seconds": s}} (the upload call only).
 *
 * <p>Usage: {@code java -cp <the CLI jar>:<classes> AzureSdkUpload CONTAINER BLOB FILE BLOCK_BYTES CONCURRENCY},
 * with AZURE_STORAGE_CONNECTION_STRING set; {@code AzureSdkUpload --create CONTAINER} creates the container
 * unless it exists. Kept outside java/: the Maven build does not compile it.
 */
public final class AzureSdkUpload {
    public static void main(String[] args) throws Exception {
        String conn = System.getenv("AZURE_STORAGE_CONNECTION_STRING");
        if (conn == null || conn.isBlank()) {
            System.err.println("AzureSdkUpload: AZURE_STORAGE_CONNECTION_STRING is not set");
            System.exit(2);
        }
        var service = new BlobServiceClientBuilder().connectionString(conn).buildAsyncClient();
        if (args.length == 2 && args[0].equals("--create")) {
            service.getBlobContainerAsyncClient(args[1]).createIfNotExists().block();
            return;
        }
        if (args.length != 5) {
            System.err.println("usage: AzureSdkUpload CONTAINER BLOB FILE BLOCK_BYTES CONCURRENCY"
                    + " | AzureSdkUpload --create CONTAINER");
            System.exit(2);
        }
        BlobAsyncClient blob = service.getBlobContainerAsyncClient(args[0]).getBlobAsyncClient(args[1]);
        byte[] bytes = Files.readAllBytes(Path.of(args[2]));
        long block = Long.parseLong(args[3]);
        int concurrency = Integer.parseInt(args[4]);
        // One request before the timer, as dgen4j's own timing starts after its open (a properties call): the
        // first request loads and compiles the SDK's stack (Netty, Reactor, Jackson).
        blob.exists().block();
        ParallelTransferOptions transfer = new ParallelTransferOptions().setBlockSizeLong(block)
                .setMaxConcurrency(concurrency).setMaxSingleUploadSizeLong(block);
        long t = System.nanoTime();
        blob.uploadWithResponse(new BlobParallelUploadOptions(BinaryData.fromBytes(bytes))
                .setParallelTransferOptions(transfer)).block();
        double seconds = (System.nanoTime() - t) / 1e9;
        System.out.printf("{\"bytes\": %d, \"seconds\": %.6f}%n", bytes.length, seconds);
        System.exit(0); // Reactor's and Netty's non-daemon threads would keep the JVM up
    }
}
