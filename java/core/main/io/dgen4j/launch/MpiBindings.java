package io.dgen4j.launch;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The few MPI calls dgen4j makes, bound through FFM to the {@code libmpi} found at run time: one
 * downcall handle per function, and the ABI's predefined handles (communicator, datatypes, ops).
 *
 * <p>Two ABIs exist, both bound. Open MPI's handles are pointers: {@code MPI_COMM_WORLD} is the address
 * of the symbol {@code ompi_mpi_comm_world}, {@code MPI_DOUBLE} of {@code ompi_mpi_double}, and so on
 * ({@code OMPI_PREDEFINED_GLOBAL} in its {@code mpi.h}; tested with Open MPI 4.1, {@code libmpi.so.40}).
 * MPICH's handles (shared by the implementations of the MPICH ABI initiative: Intel MPI, MVAPICH) are
 * {@code int} constants from its {@code mpi.h} ({@code MPI_COMM_WORLD} = {@code 0x44000000}; tested with
 * MPICH 4.0, {@code libmpich.so.12}). The handles' Java types therefore differ ({@link MemorySegment} or
 * {@link Integer}); callers use {@link MethodHandle#invoke}, which adapts them.
 */
final class MpiBindings {
    /** {@code MPI_SUCCESS}, the same in every implementation. */
    static final int MPI_SUCCESS = 0;
    /** {@code MPI_THREAD_SERIALIZED}: calls from any thread, one at a time ({@link Mpi} holds a lock). */
    static final int MPI_THREAD_SERIALIZED = 2;
    /** {@code MPI_MAX_LIBRARY_VERSION_STRING}: Open MPI's is 256, MPICH's 8192; the buffer takes the larger. */
    static final int MAX_LIBRARY_VERSION = 8192;

    /** Open MPI's library, then the MPICH ABI's ({@code libmpich.so.12}; {@code libmpi.so.12} of Intel MPI, MVAPICH). */
    static final List<String> OPEN_MPI = List.of("libmpi.so.40");
    static final List<String> MPICH = List.of("libmpich.so.12", "libmpi.so.12");

    /** The ABI of a library. */
    enum Abi { OPEN_MPI, MPICH }

    final String library;
    final Abi abi;
    final Object commWorld;
    final Object typeDouble;
    final Object typeInt64;
    final Object typeByte;
    final Object opSum;
    final Object opMax;
    final Object opMin;

    final MethodHandle initialized;   // int MPI_Initialized(int *flag)
    final MethodHandle finalized;     // int MPI_Finalized(int *flag)
    final MethodHandle initThread;    // int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
    final MethodHandle commRank;      // int MPI_Comm_rank(MPI_Comm comm, int *rank)
    final MethodHandle commSize;      // int MPI_Comm_size(MPI_Comm comm, int *size)
    final MethodHandle barrier;       // int MPI_Barrier(MPI_Comm comm)
    final MethodHandle allreduce;     // int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype, MPI_Op, MPI_Comm)
    final MethodHandle bcast;         // int MPI_Bcast(void *buffer, int count, MPI_Datatype, int root, MPI_Comm)
    final MethodHandle finalizeMpi;   // int MPI_Finalize(void)
    final MethodHandle libraryVersion; // int MPI_Get_library_version(char *version, int *resultlen)

    private MpiBindings(String library, Abi abi, SymbolLookup lookup) {
        this.library = library;
        this.abi = abi;
        MemoryLayout handle;
        if (abi == Abi.OPEN_MPI) {
            // MPI_Comm, MPI_Datatype and MPI_Op are pointers to predefined objects
            handle = ADDRESS;
            this.commWorld = symbol(lookup, "ompi_mpi_comm_world");
            this.typeDouble = symbol(lookup, "ompi_mpi_double");
            this.typeInt64 = symbol(lookup, "ompi_mpi_int64_t");
            this.typeByte = symbol(lookup, "ompi_mpi_byte");
            this.opSum = symbol(lookup, "ompi_mpi_op_sum");
            this.opMax = symbol(lookup, "ompi_mpi_op_max");
            this.opMin = symbol(lookup, "ompi_mpi_op_min");
        } else {
            // ints, from MPICH's mpi.h (the MPICH ABI)
            handle = JAVA_INT;
            this.commWorld = 0x44000000;
            this.typeDouble = 0x4c00080b;
            this.typeInt64 = 0x4c00083a;
            this.typeByte = 0x4c00010d;
            this.opMax = 0x58000001;
            this.opMin = 0x58000002;
            this.opSum = 0x58000003;
        }
        this.initialized = downcall(lookup, "MPI_Initialized", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        this.finalized = downcall(lookup, "MPI_Finalized", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        this.initThread = downcall(lookup, "MPI_Init_thread",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        this.commRank = downcall(lookup, "MPI_Comm_rank", FunctionDescriptor.of(JAVA_INT, handle, ADDRESS));
        this.commSize = downcall(lookup, "MPI_Comm_size", FunctionDescriptor.of(JAVA_INT, handle, ADDRESS));
        this.barrier = downcall(lookup, "MPI_Barrier", FunctionDescriptor.of(JAVA_INT, handle));
        this.allreduce = downcall(lookup, "MPI_Allreduce",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, handle, handle, handle));
        this.bcast = downcall(lookup, "MPI_Bcast", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, handle, JAVA_INT,
                handle));
        this.finalizeMpi = downcall(lookup, "MPI_Finalize", FunctionDescriptor.of(JAVA_INT));
        this.libraryVersion = downcall(lookup, "MPI_Get_library_version",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /**
     * The libraries to try for a launch, in order: the launcher's own implementation first (Open MPI's
     * {@code mpirun} sets {@code OMPI_*}; Hydra, MVAPICH's launchers set {@code PMI_*}, {@code MV2_*}), so
     * that a host with both installed initializes the one that started it.
     */
    static List<String> candidates(LaunchInfo launch) {
        List<String> names = new ArrayList<>();
        if ("openmpi".equals(launch.launcher()) || "slurm".equals(launch.launcher())) {
            names.addAll(OPEN_MPI);
            names.addAll(MPICH);
        } else {
            names.addAll(MPICH);
            names.addAll(OPEN_MPI);
        }
        return names;
    }

    /**
     * Binds the library {@code explicit} names, or the first of {@code candidates} that loads.
     *
     * @throws LinkageError naming every library tried and why each failed, or the missing symbol
     */
    static MpiBindings load(String explicit, List<String> candidates) {
        List<String> names = explicit != null && !explicit.isBlank() ? List.of(explicit) : candidates;
        List<String> failures = new ArrayList<>();
        for (String name : names) {
            SymbolLookup lookup;
            try {
                // the global arena: MPI is never unloaded (it keeps threads and handlers after init)
                lookup = SymbolLookup.libraryLookup(name, Arena.global());
            } catch (IllegalArgumentException e) {
                failures.add(name + ": " + e.getMessage());
                continue;
            }
            if (lookup.find("ompi_mpi_comm_world").isPresent()) {
                return new MpiBindings(name, Abi.OPEN_MPI, lookup);
            }
            if (lookup.find("MPI_Init_thread").isEmpty()) {
                failures.add(name + ": no MPI symbols");
                continue;
            }
            String version = version(lookup);
            if (!version.matches("(?s).*(MPICH|MVAPICH|Intel\\(R\\) MPI).*")) {
                failures.add(String.format("%s: neither Open MPI's nor the MPICH ABI (%s)", name, version));
                continue;
            }
            return new MpiBindings(name, Abi.MPICH, lookup);
        }
        throw new LinkageError("no MPI library: tried " + String.join("; ", failures));
    }

    /** {@code MPI_Get_library_version}, which MPI allows before {@code MPI_Init}. */
    private static String version(SymbolLookup lookup) {
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle h = downcall(lookup, "MPI_Get_library_version", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            MemorySegment text = arena.allocate(MAX_LIBRARY_VERSION);
            MemorySegment len = arena.allocate(JAVA_INT);
            int rc = (int) h.invokeExact(text, len);
            return rc == MPI_SUCCESS ? text.getString(0).strip() : "MPI_Get_library_version failed: " + rc;
        } catch (Throwable t) {
            return "MPI_Get_library_version failed: " + t;
        }
    }

    private static MemorySegment symbol(SymbolLookup lookup, String name) {
        return lookup.find(name).orElseThrow(() -> new LinkageError("libmpi has no symbol " + name));
    }

    private static MethodHandle downcall(SymbolLookup lookup, String name, FunctionDescriptor fd) {
        return Linker.nativeLinker().downcallHandle(symbol(lookup, name), fd);
    }
}
