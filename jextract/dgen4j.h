/*
 * dgen4j.h - the C contract of the dgen4j native core (libdgen4j.so).
 *
 * Hand-written: jextract reads this file to regenerate the Java bindings in
 * io.dgen4j.ffi (see regenerate.sh). A test checks that this header, the symbols
 * exported by the built library and the committed Java descriptors agree.
 *
 * Conventions: every function that can fail returns int32_t, DGEN4J_OK (0) on
 * success or one of the DGEN4J_ERR_* codes; the message of the last failure on the
 * calling thread is copied out by dgen4j_last_error (kept until the next failure on
 * that thread, like errno). No function lets a Rust panic
 * cross this boundary (it becomes DGEN4J_ERR_PANIC).
 */
#ifndef DGEN4J_H
#define DGEN4J_H

#include <stddef.h>
#include <stdint.h>

#define DGEN4J_OK 0
#define DGEN4J_ERR_INVALID_ARGUMENT 1
#define DGEN4J_ERR_OUT_OF_RANGE 2
#define DGEN4J_ERR_RESOURCE 3
#define DGEN4J_ERR_PANIC 4
#define DGEN4J_ERR_IO 5

/* Opaque generator: a validated stream spec plus its persistent worker pool. */
typedef struct dgen4j_generator dgen4j_generator;

/* Version of this C contract; bumped on any change of a signature. */
uint32_t dgen4j_abi_version(void);

/* Version of the byte format of docs/FORMAT.md that the generator produces. */
uint32_t dgen4j_format_version(void);

/* Copies the calling thread's last error message, NUL-terminated and truncated to
 * cap bytes, into buf (which may be NULL when cap is 0). Returns the full length of
 * the message without the NUL; 0 when there was no error. */
size_t dgen4j_last_error(char *buf, size_t cap);

/* Number of CPUs in the calling process's affinity mask (at least 1). */
uint32_t dgen4j_affinity_cpus(void);

/* Space-separated CPU features the generator can use ("sse2 avx2 ..."), copied like
 * dgen4j_last_error. Returns the full length. */
size_t dgen4j_cpu_features(char *buf, size_t cap);

/* Creates a generator for the stream (seed, size, block_size, dedup, compress) whose
 * fills run on `threads` threads: the calling thread plus threads - 1 workers created
 * now and reused by every fill (0 = the CPUs of the affinity mask; 1 = the calling
 * thread alone; more than 4096 is INVALID_ARGUMENT).
 * block_size: power of two in [512, 64 MiB]; dedup, compress: finite and >= 1.
 * On success stores the handle in *out and returns DGEN4J_OK; on failure *out is NULL. */
int32_t dgen4j_generator_new(uint64_t seed, uint64_t size, uint64_t block_size,
                             double dedup, double compress, uint32_t threads,
                             dgen4j_generator **out);

/* Stops the workers and frees the generator. NULL is accepted and ignored. */
void dgen4j_generator_free(dgen4j_generator *gen);

/* Number of threads a fill uses, the calling thread included; 0 for NULL. */
uint32_t dgen4j_generator_threads(const dgen4j_generator *gen);

/* Number of distinct whole blocks in the stream (docs/FORMAT.md section 3); 0 for NULL. */
uint64_t dgen4j_generator_distinct_blocks(const dgen4j_generator *gen);

/* Writes stream bytes [offset, offset + len) into buf[0, len). Requires
 * offset + len <= size. Safe to call from several threads at once (fills on one
 * generator are serialised on its pool). */
int32_t dgen4j_generator_fill(dgen4j_generator *gen, uint64_t offset, uint8_t *buf,
                              uint64_t len);

/* Verifies buf[0, len) against stream bytes [offset, offset + len) (offset + len <= size):
 * the stream is regenerated in registers and compared as it is generated, with no
 * intermediate store, on the generator's threads for large ranges. Stores in *mismatch the
 * stream offset of the first byte that differs, or offset + len when all are equal. buf is
 * only read. Safe to call from several threads at once (serialised on the pool, like fills). */
int32_t dgen4j_generator_verify(dgen4j_generator *gen, uint64_t offset, const uint8_t *buf,
                                uint64_t len, uint64_t *mismatch);

/* dgen4j_generator_verify of a payload as dgen4j_generator_fill_payload writes it: the values of
 * `finite` (a DGEN4J_FINITE_* code below, 0 for none) made finite, buf[0] being byte `phase` of its
 * element, compared in the fused compare's one pass (the kernels mask as they generate). When crc is
 * not NULL and every byte is equal, *crc (the CRC-32 of what came before, 0 to start; zip's, as
 * dgen4j_crc32) is continued over buf[0, len): the generator's threads sum each cache-sized block
 * right after comparing it, while it is in cache. When a byte differs, *crc is left as it was. */
int32_t dgen4j_generator_verify_payload(dgen4j_generator *gen, uint64_t offset, const uint8_t *buf,
                                        uint64_t len, uint32_t finite, uint32_t phase,
                                        uint64_t *mismatch, uint32_t *crc);

/* Codes of dgen4j_generator_fill_payload's `finite`: the floating-point type whose values
 * are made finite (docs/FORMATS.md, --finite): the top exponent bit of every value (bit 6 of
 * its last byte, little-endian) is cleared, so no value is Inf or NaN and all are below 2 in
 * magnitude; every other bit is the stream's. */
#define DGEN4J_FINITE_NONE 0
#define DGEN4J_FINITE_FLOAT16 1
#define DGEN4J_FINITE_BFLOAT16 2
#define DGEN4J_FINITE_FLOAT32 3
#define DGEN4J_FINITE_FLOAT64 4

/* dgen4j_generator_fill, then the values of `finite` made finite (buf[0] being byte `phase`,
 * below the element size, of its element), then, when crc is not NULL, *crc (the CRC-32 of what came before, 0 to
 * start; zip's CRC-32, not CRC-32C) continued over the bytes written, like zlib's crc32.
 * The generator's threads fill, mask and sum each cache-sized block in one pass (the bytes
 * are summed while in cache), and their pieces' CRCs are combined. */
int32_t dgen4j_generator_fill_payload(dgen4j_generator *gen, uint64_t offset, uint8_t *buf,
                                      uint64_t len, uint32_t finite, uint32_t phase,
                                      uint32_t *crc);

/* dgen4j_generator_fill, then *crc (the CRC-32C of what came before, 0 to start; Castagnoli's,
 * S3's x-amz-checksum-crc32c, not zip's CRC-32) continued over the bytes written. The generator's
 * threads fill and sum each cache-sized block in one pass, and their pieces' CRCs are combined.
 * crc must not be NULL. */
int32_t dgen4j_generator_fill_crc32c(dgen4j_generator *gen, uint64_t offset, uint8_t *buf,
                                     uint64_t len, uint32_t *crc);

/* The CRC-32 (zip's) of buf[0, len) continued from crc (0 to start), like zlib's crc32:
 * carry-less multiply folding where the CPU has PCLMULQDQ (four 512-bit lanes at a time with
 * AVX-512 VPCLMULQDQ), else tables. */
uint32_t dgen4j_crc32(uint32_t crc, const uint8_t *buf, uint64_t len);

/* The CRC-32 of A followed by B from A's CRC, B's CRC and B's length (zlib's crc32_combine). */
uint32_t dgen4j_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/* ---- file I/O ---- */

/* Flags of dgen4j_file_open. */
#define DGEN4J_FILE_READ 1
#define DGEN4J_FILE_WRITE 2
#define DGEN4J_FILE_CREATE_NEW 4
#define DGEN4J_FILE_DIRECT 8
#define DGEN4J_FILE_REQUIRE_DIRECT 16
/* Alignment of buffers and offsets for O_DIRECT files. */
#define DGEN4J_DIRECT_ALIGN 4096

/* Opaque checkpoint file: an O_DIRECT descriptor (when the filesystem allows it) plus a
 * buffered one for unaligned tails, so no padding is ever written. */
typedef struct dgen4j_file dgen4j_file;

/* Opens path with DGEN4J_FILE_* flags: exactly one of READ and WRITE (WRITE creates or
 * truncates; with CREATE_NEW it fails if the file exists); DIRECT uses O_DIRECT when the
 * filesystem allows it and buffered I/O otherwise; REQUIRE_DIRECT fails (DGEN4J_ERR_IO)
 * when it does not. preallocate > 0 reserves that many bytes with fallocate, keeping the
 * size, so that a full disk fails here. On failure *out is NULL. */
int32_t dgen4j_file_open(const char *path, uint32_t flags, uint64_t preallocate,
                         dgen4j_file **out);

/* Closes the file (no fsync: call dgen4j_file_sync first). NULL is ignored. */
void dgen4j_file_close(dgen4j_file *file);

/* 1 when the data path uses O_DIRECT; 0 when buffered, or for NULL. */
int32_t dgen4j_file_is_direct(const dgen4j_file *file);

/* Writes buf[0, len) at offset, retrying short writes and EINTR. For O_DIRECT files the
 * offset and buf must be DGEN4J_DIRECT_ALIGN-aligned; len may have an unaligned tail.
 * Errors (ENOSPC, EIO, ...) are DGEN4J_ERR_IO with the path and offset in the message. */
int32_t dgen4j_file_pwrite(dgen4j_file *file, uint64_t offset, const uint8_t *buf,
                           uint64_t len);

/* Reads up to len bytes at offset into buf and stores the count in *done (short only at
 * end of file). Alignment as for dgen4j_file_pwrite. */
int32_t dgen4j_file_pread(dgen4j_file *file, uint64_t offset, uint8_t *buf, uint64_t len,
                          uint64_t *done);

/* posix_fadvise for a range (advice: 0 normal, 1 random, 2 sequential, 3 willneed,
 * 4 dontneed, 5 noreuse). */
int32_t dgen4j_file_fadvise(dgen4j_file *file, uint64_t offset, uint64_t len, int32_t advice);

/* Makes the written data durable (fsync). */
int32_t dgen4j_file_sync(dgen4j_file *file);

/* ---- NUMA topology, node-local memory, benchmarks ---- */

/* NUMA modes of dgen4j_generator_new_numa and dgen4j_numa_plan. */
#define DGEN4J_NUMA_AUTO 0  /* pin workers when the run spans several nodes or is bound to one */
#define DGEN4J_NUMA_FORCE 1 /* pin workers even on a single-node machine */
#define DGEN4J_NUMA_OFF 2   /* never pin */

/* The generation kernel chosen for this CPU, e.g. "avx2 (cpu supports avx2)": the first
 * word is scalar, avx2 or avx512 (DGEN4J_DISPATCH=scalar|avx2 lowers it). Copied like
 * dgen4j_last_error; returns the full length. */
size_t dgen4j_dispatch_level(char *buf, size_t cap);

/* The NUMA topology read from sysfs_root (NULL = this machine's /sys), one line per node:
 * "node ID cpus LIST distances D,D,... memory KIB" ("-" when unknown; offline CPUs are
 * left out). Copied like dgen4j_last_error; returns the full length. */
size_t dgen4j_numa_topology(const char *sysfs_root, char *buf, size_t cap);

/* The pinning plan a generator would use: "pinned yes|no", "mode M", "threads T", then per
 * node "group node N threads T cpus LIST" ("group node - ..." when unpinned). sysfs_root:
 * NULL = /sys; affinity: a CPU list such as "0-3,8", NULL = this process's mask; threads
 * 0 = the default (usable CPUs / MPI local ranks); node -1 = not bound to a node.
 * Copies the text like dgen4j_last_error and stores its full length in *len. */
int32_t dgen4j_numa_plan(const char *sysfs_root, const char *affinity, uint32_t threads,
                         int32_t mode, int32_t node, char *buf, size_t cap, size_t *len);

/* MPI ranks on this host: OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS or
 * MV2_COMM_WORLD_LOCAL_SIZE (the first set to a positive integer), else 1. */
uint32_t dgen4j_local_ranks(void);

/* Default thread count: CPUs of the affinity mask / MPI local ranks, at least 1. */
uint32_t dgen4j_default_threads(void);

/* Maps size bytes, page-aligned, not touched (no resident memory until written), bound
 * to NUMA node `node` with mbind when the machine has several nodes (node -1: no node).
 * Fills of the buffer by a pinned generator run on that node's workers. Stores the
 * address in *out (NULL on failure). Free it with dgen4j_numa_free. */
int32_t dgen4j_numa_alloc(uint64_t size, int32_t node, uint8_t **out);

/* dgen4j_numa_alloc on a memory file of its own (memfd_create, mapped shared): stores the
 * address in *out and the file's descriptor in *fd (offset 0 is the buffer's first byte;
 * open until dgen4j_numa_free), so that sendfile can send the buffer's pages without a
 * copy. NULL and -1 on failure. */
int32_t dgen4j_numa_alloc_shared(uint64_t size, int32_t node, uint8_t **out, int32_t *fd);

/* Unmaps a buffer of dgen4j_numa_alloc or dgen4j_numa_alloc_shared; size as allocated.
 * Closes the latter's descriptor. NULL is ignored. */
int32_t dgen4j_numa_free(uint8_t *ptr, uint64_t size);

/* dgen4j_generator_new with a NUMA mode (DGEN4J_NUMA_*) and a node to bind the workers
 * to (-1 = none). Pinned generators run `threads` workers pinned to their nodes' CPUs
 * (within the affinity mask); the calling thread then only waits. */
int32_t dgen4j_generator_new_numa(uint64_t seed, uint64_t size, uint64_t block_size,
                                  double dedup, double compress, uint32_t threads,
                                  int32_t mode, int32_t node, dgen4j_generator **out);

/* The pinning plan of a generator (the text of dgen4j_numa_plan), copied like
 * dgen4j_last_error; returns the full length, 0 for NULL. */
size_t dgen4j_generator_plan(const dgen4j_generator *gen, char *buf, size_t cap);

/* Runs dgen4j_generator_fill(gen, offset, buf, len) `iterations` times and stores the
 * elapsed nanoseconds in *nanos: the in-Rust side of the FFM overhead benchmark. */
int32_t dgen4j_bench_fill(dgen4j_generator *gen, uint64_t offset, uint8_t *buf, uint64_t len,
                          uint64_t iterations, uint64_t *nanos);

#endif /* DGEN4J_H */
