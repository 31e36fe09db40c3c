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
 * <p>Two ABIs exist. Open MPI's handles are pointers: {@code MPI_COMM_WORLD} is the address of the
 * symbol {@code ompi_mpi_comm_world}, {@code MPI_DOUBLE} of {@code ompi_mpi_double}, and so on
 * ({@code OMPI_PREDEFINED_GLOBAL} in its {@code mpi.h}). MPICH's (and Intel MPI's, MVAPICH's) handles
 * are {@code int} constants ({@code MPI_COMM_WORLD} = {@code 0x44000000}). Only the ABI this class
 * has been tested with is bound: Open MPI (4.x, {@code libmpi.so.40}); a library of the other ABI is
 * reported as unsupported rather than called with the wrong handle types.
 */
final class MpiBindings {
    /** {@code MPI_SUCCESS}, the same in every implementation. */
    static final int MPI_SUCCESS = 0;
    /** {@code MPI_THREAD_SERIALIZED}: calls from any thread, one at a time ({@link Mpi} holds a lock). */
    static final int MPI_THREAD_SERIALIZED = 2;
    /** {@code MPI_MAX_LIBRARY_VERSION_STRING} of Open MPI (MPICH's is 8192: the buffer takes the larger). */
    static final int MAX_LIBRARY_VERSION = 8192;

    /** The library names tried, in order, when {@value Mpi#PROP_LIBRARY} does not name one. */
    static final List<String> CANDIDATES = List.of("libmpi.so.40", "libmpi.so");

    final String library;
    final MemorySegment commWorld;
    final MemorySegment typeDouble;
    final MemorySegment typeInt64;
    final MemorySegment typeByte;
    final MemorySegment opSum;
    final MemorySegment opMax;
    final MemorySegment opMin;

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

    private MpiBindings(String library, SymbolLookup lookup) {
        this.library = library;
        this.commWorld = symbol(lookup, "ompi_mpi_comm_world");
        this.typeDouble = symbol(lookup, "ompi_mpi_double");
        this.typeInt64 = symbol(lookup, "ompi_mpi_int64_t");
        this.typeByte = symbol(lookup, "ompi_mpi_byte");
        this.opSum = symbol(lookup, "ompi_mpi_op_sum");
        this.opMax = symbol(lookup, "ompi_mpi_op_max");
        this.opMin = symbol(lookup, "ompi_mpi_op_min");
        // MPI_Comm, MPI_Datatype and MPI_Op are pointers in Open MPI's ABI
        MemoryLayout handle = ADDRESS;
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
     * Binds the library {@code explicit} names, or the first of {@link #CANDIDATES} that loads.
     *
     * @throws LinkageError naming every library tried and why each failed, or the missing symbol
     */
    static MpiBindings load(String explicit) {
        List<String> names = explicit != null && !explicit.isBlank() ? List.of(explicit) : CANDIDATES;
        List<String> failures = new ArrayList<>();
        for (String name : names) {
            SymbolLookup lookup;
            try {
                // the global arena: MPI is never unloaded (it keeps threads and handlers after init)
                lookup = SymbolLookup.libraryLookup(name.contains("/") ? java.nio.file.Path.of(name).toString() : name,
                        Arena.global());
            } catch (IllegalArgumentException e) {
                failures.add(name + ": " + e.getMessage());
                continue;
            }
            if (lookup.find("ompi_mpi_comm_world").isEmpty()) {
                if (lookup.find("MPI_Init_thread").isPresent()) {
                    throw new LinkageError(String.format("%s is not Open MPI (no ompi_mpi_comm_world): only Open MPI's "
                            + "ABI is supported (MPICH's int handles are not bound)", name));
                }
                failures.add(name + ": no MPI symbols");
                continue;
            }
            return new MpiBindings(name, lookup);
        }
        throw new LinkageError("no MPI library: tried " + String.join("; ", failures));
    }

    private static MemorySegment symbol(SymbolLookup lookup, String name) {
        return lookup.find(name).orElseThrow(() -> new LinkageError("libmpi has no symbol " + name));
    }

    private static MethodHandle downcall(SymbolLookup lookup, String name, FunctionDescriptor fd) {
        return Linker.nativeLinker().downcallHandle(symbol(lookup, name), fd);
    }
}
