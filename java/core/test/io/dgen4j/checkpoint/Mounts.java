package io.dgen4j.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real filesystems for fault tests: a small ext4 image on a loop device (disk full), ramfs
 * (O_DIRECT refused), a read-only tmpfs. Needs root, as CI has; otherwise fails with a clear message.
 */
final class Mounts implements AutoCloseable {
    private final List<Path> mounted = new ArrayList<>();

    static void requireRoot() throws IOException, InterruptedException {
        String uid = run("id", "-u").trim();
        if (!uid.equals("0")) {
            throw new AssertionError("this test mounts real filesystems (loop ext4, ramfs, tmpfs) and must run as "
                    + "root, as CI does; current uid is " + uid);
        }
    }

    /** A fresh ext4 filesystem of {@code megabytes} MiB on a loop device, mounted at {@code dir}. */
    Path ext4(Path dir, int megabytes) throws IOException, InterruptedException {
        requireRoot();
        Path image = dir.resolve("disk.img");
        Path mnt = Files.createDirectories(dir.resolve("ext4"));
        run("truncate", "-s", megabytes + "M", image.toString());
        run("mkfs.ext4", "-q", "-F", "-m", "0", image.toString());
        run("mount", "-o", "loop", image.toString(), mnt.toString());
        mounted.add(mnt);
        return mnt;
    }

    /** A ramfs (no O_DIRECT support) at {@code dir}. */
    Path ramfs(Path dir) throws IOException, InterruptedException {
        requireRoot();
        Path mnt = Files.createDirectories(dir.resolve("ramfs"));
        run("mount", "-t", "ramfs", "ramfs", mnt.toString());
        mounted.add(mnt);
        return mnt;
    }

    /** A read-only tmpfs at {@code dir}. */
    Path readOnly(Path dir) throws IOException, InterruptedException {
        requireRoot();
        Path mnt = Files.createDirectories(dir.resolve("ro"));
        run("mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", mnt.toString());
        mounted.add(mnt);
        return mnt;
    }

    @Override
    public void close() throws IOException {
        try {
            for (int i = mounted.size() - 1; i >= 0; i--) {
                run("umount", mounted.get(i).toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unmounting", e);
        }
    }

    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
