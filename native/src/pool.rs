//! The persistent worker pool of a generator.
//!
//! A [`Pool`] owns the validated [`Spec`] and its worker threads, created once and reused
//! by every fill, placed by a NUMA [`Plan`]:
//!
//! - unpinned (one node, or mode `off`): `threads - 1` workers, the calling thread being
//!   the remaining participant;
//! - pinned (several nodes, a run bound to a node, or mode `force`): `threads` workers,
//!   each pinned with `sched_setaffinity` to the CPUs of its node within the process's
//!   affinity mask; the calling thread only waits. A fill of a node-local buffer
//!   ([`numa::alloc`]) runs on the workers of the node that owns the buffer, so that
//!   every page is first touched (and filled) by a CPU of its own node.
//!
//! A fill cuts its range into at most one piece per participant at 64 KiB-aligned
//! absolute stream offsets, publishes them and blocks until every piece is done. Fills of
//! less than 256 KiB, and every fill of an unpinned pool without workers, run inline on
//! the calling thread. Fills from several threads at once are serialised by a mutex.
//! [`Pool::first_mismatch`] (the fused verify) cuts its range the same way: each piece
//! reports its first mismatch, the job keeps the smallest, and pieces that start past a
//! mismatch already found are skipped.

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};

use crate::error::{Error, ErrorKind};
use crate::layout::{self, Spec};
use crate::numa::{self, Mode, Plan};
use crate::simd;
use crate::{crc32, crc32c, finite::Finite};

/// Most threads a pool may have.
pub const MAX_THREADS: usize = 4096;
/// Fills shorter than this run inline on the calling thread.
pub const MIN_PARALLEL_FILL: usize = 256 << 10;
/// Pieces of a parallel fill start at multiples of this absolute stream offset.
pub const PIECE_ALIGN: u64 = 64 << 10;

const WORKER_STACK: usize = 256 << 10;

/// A validated stream spec plus its persistent worker pool.
pub struct Pool {
    spec: Arc<Spec>,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// The node each worker is pinned to (`None`: unpinned).
    worker_nodes: Vec<Option<usize>>,
    plan: Plan,
    /// Serialises parallel fills: one job at a time is published to the workers.
    fill_lock: Mutex<()>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when a job is published or the pool shuts down.
    work: Condvar,
    /// Signalled when the last outstanding piece of a job finishes.
    done: Condvar,
}

#[derive(Default)]
struct State {
    /// Bumped for every published job; workers compare it with the last one they saw.
    generation: u64,
    job: Option<Job>,
    /// Index of the next unclaimed piece of `job`.
    next: usize,
    /// Pieces of `job` not finished yet (claimed or not).
    outstanding: usize,
    /// The first failure of a piece of `job`.
    error: Option<Error>,
    /// The smallest mismatching stream offset found by a verify job's pieces.
    mismatch: Option<u64>,
    /// The CRC-32 of each piece of a payload job, by piece.
    crcs: Vec<u32>,
    shutdown: bool,
}

/// What a job does with its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// Write the stream bytes, with non-temporal stores when `nt` (the whole fill is large).
    Fill { nt: bool },
    /// Compare the bytes with the stream (they are only read).
    Verify,
    /// Compare the bytes with the stream, its `finite` values made finite when set (`phase0`: the
    /// byte of its element that stream offset 0 is), and with `crc` compute each piece's CRC-32,
    /// a cache-sized block at a time right after its compare (they are only read).
    VerifyPayload { finite: Option<Finite>, phase0: usize, crc: bool },
    /// Write the stream bytes, make the values of `finite` finite (`phase`: the byte of its
    /// element that the job's first byte is) and, with `sum`, compute each piece's checksum
    /// as it is generated (`payload_piece`); `nt`: with non-temporal stores where one pass does.
    Payload { finite: Option<Finite>, phase: usize, sum: Option<Sum>, nt: bool },
}

/// The checksum a payload fill computes as it goes.
pub use crate::layout::Sum;

/// A parallel job: the `len` bytes at `ptr` receive (fill) or are compared with (verify)
/// stream bytes `[offset, offset + len)`.
#[derive(Clone, Copy)]
struct Job {
    ptr: *mut u8,
    offset: u64,
    len: usize,
    pieces: usize,
    /// Only workers of this node take pieces (`None`: every participant).
    node: Option<usize>,
    op: Op,
}

// SAFETY: a Job is a borrowed `&mut [u8]` (fill) or `&[u8]` (verify) with its lifetime
// erased. It is only dereferenced through `Job::piece`, for disjoint pieces each claimed by
// exactly one thread, and `Pool::run` keeps the borrow alive until every piece has finished
// (`JobGuard` waits for `outstanding == 0` even while unwinding) and then drops the Job.
unsafe impl Send for Job {}

impl Job {
    /// Absolute stream offset where piece `k` starts (`k == pieces` gives the end).
    fn boundary(&self, k: usize) -> u64 {
        let end = self.offset + self.len as u64;
        if k == 0 {
            return self.offset;
        }
        if k >= self.pieces {
            return end;
        }
        let even = self.offset + (self.len as u128 * k as u128 / self.pieces as u128) as u64;
        even.div_ceil(PIECE_ALIGN).saturating_mul(PIECE_ALIGN).min(end)
    }

    /// Stream offset, address and length of piece `k` (inside the job's bytes, because the
    /// boundaries are monotone within `[offset, offset + len]`).
    fn piece(&self, k: usize) -> (u64, *mut u8, usize) {
        let (start, end) = (self.boundary(k), self.boundary(k + 1));
        let at = (start - self.offset) as usize;
        (start, self.ptr.wrapping_add(at), (end - start) as usize)
    }

    /// Runs piece `k`: fills it, or stores its first mismatch in `mismatch`, or its CRC in `crc`.
    ///
    /// # Safety
    /// The caller must have claimed piece `k` (each piece is handed to one thread only),
    /// and the buffer of the job must still be borrowed by the waiting `Pool::run`.
    unsafe fn run_piece(&self, spec: &Spec, k: usize, mismatch: &mut Option<u64>, crc: &mut u32) -> Result<(), Error> {
        let (offset, ptr, len) = self.piece(k);
        match self.op {
            Op::Payload { finite, phase, sum, nt } => {
                // SAFETY: as for Op::Fill: a disjoint piece of the job's exclusive buffer.
                let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
                let size = finite.map_or(1, Finite::size);
                let phase = (phase + (offset - self.offset) as usize % size) % size;
                *crc = payload_piece(spec, offset, bytes, finite, phase, sum, nt)?;
                Ok(())
            }
            Op::Fill { nt } => {
                // SAFETY: the piece lies inside the job's exclusive buffer; pieces are
                // disjoint and claimed once, so this is the only live reference to these
                // bytes (caller's contract).
                let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
                fill_piece(spec, offset, bytes, nt)
            }
            Op::Verify => {
                // SAFETY: the piece lies inside the job's buffer, borrowed shared for the
                // whole job (caller's contract); verify only reads it.
                let bytes = unsafe { std::slice::from_raw_parts(ptr.cast_const(), len) };
                *mismatch = verify_piece(spec, offset, bytes)?;
                Ok(())
            }
            Op::VerifyPayload { finite, phase0, crc: with_crc } => {
                // SAFETY: as for Op::Verify: a shared piece of the job's buffer, only read.
                let bytes = unsafe { std::slice::from_raw_parts(ptr.cast_const(), len) };
                (*mismatch, *crc) = verify_payload_piece(spec, offset, bytes, finite, phase0, with_crc)?;
                Ok(())
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // No code panics while holding these locks; tolerate poisoning anyway.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn wait<'a, T>(cv: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    cv.wait(guard).unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    /// A pool for `spec` with `threads` threads (0 = the default: the CPUs of the affinity
    /// mask divided by the MPI ranks on this host, at most [`MAX_THREADS`]) in NUMA mode
    /// `auto`, not bound to a node.
    pub fn new(spec: Spec, threads: usize) -> Result<Pool, Error> {
        Pool::with_numa(spec, threads, Mode::Auto, None)
    }

    /// A pool placed on this machine's NUMA nodes by `mode`, optionally bound to `node`
    /// (see [`numa::plan`]).
    pub fn with_numa(spec: Spec, threads: usize, mode: Mode, node: Option<usize>) -> Result<Pool, Error> {
        let plan = numa::plan(
            numa::Topology::current(),
            &numa::affinity_list(),
            threads,
            mode,
            node,
            numa::local_ranks(),
            MAX_THREADS,
        )?;
        Pool::with_plan(spec, plan)
    }

    /// A pool following `plan`: pinned workers per group, or `threads - 1` unpinned
    /// workers. Fails when a thread cannot start or cannot be pinned.
    pub fn with_plan(spec: Spec, plan: Plan) -> Result<Pool, Error> {
        let threads = plan.threads();
        if threads == 0 || threads > MAX_THREADS {
            return Err(Error::invalid(format!("threads {threads} is not in [1, {MAX_THREADS}]")));
        }
        let slots: Vec<(Option<usize>, Vec<usize>)> = if plan.pinned {
            plan.groups.iter().flat_map(|g| std::iter::repeat_n((g.node, g.cpus.clone()), g.threads)).collect()
        } else {
            vec![(None, Vec::new()); threads - 1]
        };
        let mut pool = Pool {
            spec: Arc::new(spec),
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                done: Condvar::new(),
            }),
            workers: Vec::with_capacity(slots.len()),
            worker_nodes: slots.iter().map(|(n, _)| *n).collect(),
            plan,
            fill_lock: Mutex::new(()),
        };
        let (tx, rx) = mpsc::channel::<Result<(), Error>>();
        let total = slots.len();
        for (k, (node, cpus)) in slots.into_iter().enumerate() {
            let (shared, spec, tx) = (Arc::clone(&pool.shared), Arc::clone(&pool.spec), tx.clone());
            let name = match node {
                Some(n) => format!("dgen4j-n{n}-{}", k + 1),
                None => format!("dgen4j-{}", k + 1),
            };
            let worker = thread::Builder::new()
                .name(name)
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    let pinned = if cpus.is_empty() { Ok(()) } else { numa::pin_current_thread(&cpus) };
                    let ok = pinned.is_ok();
                    let _ = tx.send(pinned);
                    if ok {
                        worker_main(&shared, &spec, node);
                    }
                })
                .map_err(|e| {
                    Error::new(ErrorKind::Resource, format!("cannot start worker thread {} of {total}: {e}", k + 1))
                })?; // on failure, dropping `pool` stops the workers started so far
            pool.workers.push(worker);
        }
        drop(tx);
        for _ in 0..total {
            match rx.recv() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(e),
                Err(_) => return Err(Error::new(ErrorKind::Resource, "a worker thread exited while starting")),
            }
        }
        Ok(pool)
    }

    /// The placement of the pool's threads.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The stream spec.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Number of threads that fills use: the workers, plus the calling thread when the
    /// pool is not pinned.
    pub fn threads(&self) -> usize {
        self.workers.len() + usize::from(!self.plan.pinned)
    }

    /// Writes stream bytes `[offset, offset + buf.len())` into `buf`, in parallel when the
    /// pool has workers and the range is at least [`MIN_PARALLEL_FILL`] bytes. A panic of a
    /// piece is reported as an error of kind `Panic`; the pool stays usable.
    pub fn fill(&self, offset: u64, buf: &mut [u8]) -> Result<(), Error> {
        self.spec.check_range(offset, buf.len() as u64)?;
        let nt = buf.len() as u64 >= simd::nt_threshold();
        if self.workers.is_empty() || buf.len() < MIN_PARALLEL_FILL {
            return fill_piece(&self.spec, offset, buf, nt);
        }
        self.run(buf.as_mut_ptr(), offset, buf.len(), Op::Fill { nt }).map(|_| ())
    }

    /// The stream offset of the first byte of `data` that differs from stream bytes
    /// `[offset, offset + data.len())`, or `None` when they are equal: the fused verify,
    /// which regenerates the stream in registers and compares as it goes (no store), in
    /// parallel like [`Pool::fill`].
    pub fn first_mismatch(&self, offset: u64, data: &[u8]) -> Result<Option<u64>, Error> {
        self.spec.check_range(offset, data.len() as u64)?;
        if self.workers.is_empty() || data.len() < MIN_PARALLEL_FILL {
            return verify_piece(&self.spec, offset, data);
        }
        // The pointer is only read: `Op::Verify` makes shared slices of it.
        self.run(data.as_ptr().cast_mut(), offset, data.len(), Op::Verify)
    }

    /// [`Pool::first_mismatch`], and the CRC-32 of `data` when every byte is equal (else 0):
    /// each piece is compared and summed a cache-sized block at a time, so the CRC reads the
    /// bytes from cache right after the compare did, on the same workers.
    pub fn first_mismatch_crc(&self, offset: u64, data: &[u8]) -> Result<(Option<u64>, u32), Error> {
        self.verify_payload(offset, data, None, 0, true)
    }

    /// [`Pool::first_mismatch`] of a payload whose `finite` values were made finite (`phase`: the
    /// byte of its element that `data[0]` is), in the fused compare's one pass (the kernels mask
    /// as they generate: [`Spec::with_finite`]); with `crc`, also the CRC-32 of `data` when every
    /// byte is equal (else 0), as [`Pool::first_mismatch_crc`] sums it.
    pub fn verify_payload(
        &self,
        offset: u64,
        data: &[u8],
        finite: Option<Finite>,
        phase: usize,
        crc: bool,
    ) -> Result<(Option<u64>, u32), Error> {
        self.spec.check_range(offset, data.len() as u64)?;
        let size = finite.map_or(1, Finite::size);
        if phase >= size {
            return Err(Error::invalid(format!("phase {phase} is not below the element size {size}")));
        }
        let phase0 = (phase + size - (offset % size as u64) as usize) % size;
        if self.workers.is_empty() || data.len() < MIN_PARALLEL_FILL {
            return verify_payload_piece(&self.spec, offset, data, finite, phase0, crc);
        }
        let len = data.len();
        let op = Op::VerifyPayload { finite, phase0, crc };
        // The pointer is only read: `Op::VerifyPayload` makes shared slices of it.
        let (mismatch, crcs) = self.run_collect(data.as_ptr().cast_mut(), offset, len, op)?;
        if mismatch.is_some() || !crc {
            return Ok((mismatch, 0));
        }
        let job = Job { ptr: data.as_ptr().cast_mut(), offset, len, pieces: crcs.len(), node: None, op };
        Ok((
            None,
            crcs.iter().enumerate().fold(0, |whole, (k, &c)| crc32::combine(whole, c, job.boundary(k + 1) - job.boundary(k))),
        ))
    }

    /// Writes stream bytes `[offset, offset + buf.len())` into `buf` like [`Pool::fill`], makes
    /// the values of `finite` finite (`phase`: the byte of its element that `buf[0]` is; see
    /// [`crate::finite::apply`]) and returns the CRC-32 of the result when `crc` (else 0).
    /// Each piece is generated, masked and summed in one pass (see `payload_piece`: in
    /// registers where the CPU can, else a cache-sized block at a time, so the bytes are read
    /// back from cache, not memory); the pieces' CRCs are combined in order.
    pub fn fill_payload(
        &self,
        offset: u64,
        buf: &mut [u8],
        finite: Option<Finite>,
        phase: usize,
        crc: bool,
    ) -> Result<u32, Error> {
        self.spec.check_range(offset, buf.len() as u64)?;
        if phase >= finite.map_or(1, Finite::size) {
            return Err(Error::invalid(format!("phase {phase} is not inside an element of {finite:?}")));
        }
        if finite.is_none() && !crc {
            return self.fill(offset, buf).map(|()| 0);
        }
        self.payload(offset, buf, finite, phase, crc.then_some(Sum::Crc32))
    }

    /// Writes stream bytes `[offset, offset + buf.len())` into `buf` like [`Pool::fill`] and
    /// returns their CRC-32C (S3's part checksum), each piece summed as it is generated (as
    /// [`Pool::fill_payload`] sums), the pieces' CRCs combined in order: no second pass over
    /// the buffer from memory.
    pub fn fill_crc32c(&self, offset: u64, buf: &mut [u8]) -> Result<u32, Error> {
        self.spec.check_range(offset, buf.len() as u64)?;
        self.payload(offset, buf, None, 0, Some(Sum::Crc32c))
    }

    /// A payload fill of the checked range on the workers (or this thread for a small one); the
    /// pieces' sums combined in order by `sum`'s rule (0 without a sum).
    fn payload(&self, offset: u64, buf: &mut [u8], finite: Option<Finite>, phase: usize, sum: Option<Sum>) -> Result<u32, Error> {
        let nt = buf.len() as u64 >= simd::nt_threshold();
        if self.workers.is_empty() || buf.len() < MIN_PARALLEL_FILL {
            return payload_piece(&self.spec, offset, buf, finite, phase, sum, nt);
        }
        let op = Op::Payload { finite, phase, sum, nt };
        let len = buf.len();
        let crcs = self.run_collect(buf.as_mut_ptr(), offset, len, op)?.1;
        let job = Job { ptr: buf.as_mut_ptr(), offset, len, pieces: crcs.len(), node: None, op };
        let combine = if sum == Some(Sum::Crc32c) { crc32c::combine } else { crc32::combine };
        Ok(crcs.iter().enumerate().fold(0, |whole, (k, &c)| {
            let (start, end) = (job.boundary(k), job.boundary(k + 1));
            combine(whole, c, end - start)
        }))
    }

    /// Publishes a job over the `len` bytes at `ptr` to the workers (and, unpinned, the
    /// calling thread) and waits for every piece; returns the smallest mismatch of a verify.
    fn run(&self, ptr: *mut u8, offset: u64, len: usize, op: Op) -> Result<Option<u64>, Error> {
        self.run_collect(ptr, offset, len, op).map(|(m, _)| m)
    }

    /// [`Pool::run`], also returning the CRC of each piece (payload jobs).
    fn run_collect(&self, ptr: *mut u8, offset: u64, len: usize, op: Op) -> Result<(Option<u64>, Vec<u32>), Error> {
        let pinned = self.plan.pinned;
        // A node-local buffer is filled (or read) by the workers of its node.
        let node = if pinned {
            numa::node_of(ptr.cast_const(), len).filter(|n| self.worker_nodes.contains(&Some(*n)))
        } else {
            None
        };
        let participants = match node {
            Some(n) => self.worker_nodes.iter().filter(|w| **w == Some(n)).count(),
            None => self.threads(),
        };
        let pieces = (len as u64).div_ceil(PIECE_ALIGN).min(participants as u64) as usize;
        let job = Job { ptr, offset, len, pieces, node, op };
        let _serial = lock(&self.fill_lock);
        {
            let mut st = lock(&self.shared.state);
            st.generation = st.generation.wrapping_add(1);
            st.job = Some(job);
            st.next = 0;
            st.outstanding = pieces;
            st.error = None;
            st.mismatch = None;
            st.crcs.clear();
            st.crcs.resize(pieces, 0);
        }
        let guard = JobGuard { shared: &self.shared };
        self.shared.work.notify_all();
        if pinned {
            // The workers take every piece; wait for them.
            let mut st = lock(&self.shared.state);
            while st.outstanding > 0 {
                st = wait(&self.shared.done, st);
            }
        } else {
            drop(run_pieces(&self.shared, &self.spec, lock(&self.shared.state), None));
        }
        drop(guard); // waits for the pieces claimed by workers
        let mut st = lock(&self.shared.state);
        match st.error.take() {
            Some(e) => Err(e),
            None => Ok((st.mismatch.take(), std::mem::take(&mut st.crcs))),
        }
    }
}

/// Waits, when dropped, until no piece of the current job is outstanding, then retires
/// the job: the buffer borrowed by `Pool::fill` outlives every worker access to it, even
/// if the caller unwinds.
struct JobGuard<'a> {
    shared: &'a Shared,
}

impl Drop for JobGuard<'_> {
    fn drop(&mut self) {
        let mut st = lock(&self.shared.state);
        // Claim what nobody claimed so that no worker starts one after we return.
        st.outstanding -= st.job.map_or(0, |j| j.pieces.saturating_sub(st.next));
        st.next = usize::MAX;
        while st.outstanding > 0 {
            st = wait(&self.shared.done, st);
        }
        st.job = None;
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        lock(&self.shared.state).shutdown = true;
        self.shared.work.notify_all();
        for worker in self.workers.drain(..) {
            // A worker never panics outside catch_unwind; nothing to report if it did.
            let _ = worker.join();
        }
    }
}

fn worker_main(shared: &Shared, spec: &Spec, node: Option<usize>) {
    let mut seen = 0u64;
    let mut st = lock(&shared.state);
    loop {
        if st.shutdown {
            return;
        }
        if st.generation != seen {
            seen = st.generation;
            st = run_pieces(shared, spec, st, node);
        } else {
            st = wait(&shared.work, st);
        }
    }
}

/// Claims and fills pieces of the current job until none is left; returns with the lock.
/// A thread of node `me` takes no piece of a job for another node.
fn run_pieces<'a>(
    shared: &'a Shared,
    spec: &Spec,
    mut st: MutexGuard<'a, State>,
    me: Option<usize>,
) -> MutexGuard<'a, State> {
    loop {
        let Some(job) = st.job else { return st };
        if st.next >= job.pieces || (job.node.is_some() && job.node != me) {
            return st;
        }
        let k = st.next;
        st.next += 1;
        // A verify piece that starts past a mismatch already found cannot hold the first one.
        if matches!(st.mismatch, Some(m) if job.boundary(k) > m) {
            st.outstanding -= 1;
            if st.outstanding == 0 {
                shared.done.notify_all();
            }
            continue;
        }
        drop(st);
        let mut mismatch = None;
        let mut crc = 0u32;
        // SAFETY: piece `k` was claimed just above under the lock, by this thread only,
        // and the job is current, so its `Pool::run` waits in `JobGuard` for us.
        let result =
            panic::catch_unwind(AssertUnwindSafe(|| unsafe { job.run_piece(spec, k, &mut mismatch, &mut crc) }))
            .unwrap_or_else(|payload| Err(Error::from_panic("fill worker", payload.as_ref())));
        st = lock(&shared.state);
        if let Err(e) = result {
            st.error.get_or_insert(e);
        }
        if let Some(m) = mismatch {
            st.mismatch = Some(st.mismatch.map_or(m, |old| old.min(m)));
        }
        if let Some(slot) = st.crcs.get_mut(k) {
            *slot = crc;
        }
        st.outstanding -= 1;
        if st.outstanding == 0 {
            shared.done.notify_all();
        }
    }
}

/// Seed whose pieces starting at 1 MiB panic, to test panic handling (tests only).
#[cfg(test)]
const PANIC_SEED: u64 = 0x0BAD_5EED;

/// Seed whose pieces are recorded with the name of the thread that filled them (tests only).
#[cfg(test)]
const TRACE_SEED: u64 = 0x7124_CE;

#[cfg(test)]
static TRACE: Mutex<Vec<(u64, String)>> = Mutex::new(Vec::new());

fn fill_piece(spec: &Spec, offset: u64, buf: &mut [u8], nt: bool) -> Result<(), Error> {
    #[cfg(test)]
    if spec.seed() == PANIC_SEED && offset == 1 << 20 {
        panic!("test panic at offset {offset}");
    }
    #[cfg(test)]
    if spec.seed() == TRACE_SEED {
        lock(&TRACE).push((offset, thread::current().name().unwrap_or("?").to_string()));
    }
    layout::fill_with(spec, offset, buf, simd::Dispatch::get().level, nt)
}

/// Bytes generated, masked and summed at a time where the CPU cannot sum in registers
/// ([`layout::sums_in_registers`]): small enough to stay in the second-level cache between the
/// generator's stores and the CRC's loads, large enough that the per-call cost of a fill is
/// small (on an EPYC here 64 KiB gave 18 GB/s for fill + CRC on one thread, 16 KiB 12 to 17).
const PAYLOAD_BLOCK: usize = 64 << 10;

/// [`Pool::fill_payload`] of one piece on this thread, the kernels masking as they generate:
/// without a sum in one pass; with one, summed in registers as the bytes are stored where the
/// CPU can ([`layout::fill_summed`]), else block by block with ordinary stores, each block
/// summed from cache right after it is written. `nt`: the whole buffer is large enough to
/// bypass the caches (a one-pass fill only).
fn payload_piece(
    spec: &Spec,
    offset: u64,
    buf: &mut [u8],
    finite: Option<Finite>,
    phase: usize,
    sum: Option<Sum>,
    nt: bool,
) -> Result<u32, Error> {
    #[cfg(test)]
    if spec.seed() == PANIC_SEED && offset == 1 << 20 {
        panic!("test panic at offset {offset}");
    }
    let level = simd::Dispatch::get().level;
    let size = finite.map_or(1, Finite::size);
    // The kernels mask as they generate (the compare's masked spec): no pass over the block after it.
    let masked;
    let spec = match finite {
        Some(kind) => {
            masked = spec.with_finite(kind, (phase + size - (offset % size as u64) as usize) % size);
            &masked
        }
        None => spec,
    };
    let sum = match sum {
        // Nothing is read back: one pass, bypassing the caches when the buffer is large.
        None => return layout::fill_with(spec, offset, buf, level, nt).map(|()| 0),
        // Summed in registers as it is generated: nothing is read back either.
        Some(sum) if layout::sums_in_registers(level) => return layout::fill_summed(spec, offset, buf, level, nt, sum, 0),
        Some(sum) => sum,
    };
    // Summed after it is written: a cache-sized block at a time. Blocks after the first start
    // on element boundaries.
    let head = (size - phase) % size;
    let mut crc = 0u32;
    let mut at = 0usize;
    while at < buf.len() {
        let n = if at == 0 { (head + PAYLOAD_BLOCK).min(buf.len()) } else { PAYLOAD_BLOCK.min(buf.len() - at) };
        let pos = offset + at as u64;
        let block = &mut buf[at..at + n];
        layout::fill_with(spec, pos, block, level, false)?;
        crc = sum.update(crc, block);
        at += n;
    }
    Ok(crc)
}

/// [`Pool::first_mismatch_crc`] of one piece on this thread: block by block, compared, then
/// summed while the block is still in cache; stops at the first block that differs. Blocks
/// after the first start on stream offsets that are multiples of the block size (so of every
/// stripe size): only the piece's own ends go through the compare's partial-stripe path.
fn verify_crc_piece(spec: &Spec, offset: u64, data: &[u8]) -> Result<(Option<u64>, u32), Error> {
    let mut crc = 0u32;
    let mut at = 0usize;
    while at < data.len() {
        let pos = offset + at as u64;
        let to_edge = (PAYLOAD_BLOCK as u64 - pos % PAYLOAD_BLOCK as u64) as usize;
        let block = &data[at..at + to_edge.min(data.len() - at)];
        if let Some(m) = verify_piece(spec, pos, block)? {
            return Ok((Some(m), 0));
        }
        crc = crc32::update(crc, block);
        at += block.len();
    }
    Ok((None, crc))
}

/// [`Pool::verify_payload`] of one piece on this thread.
fn verify_payload_piece(
    spec: &Spec,
    offset: u64,
    data: &[u8],
    finite: Option<Finite>,
    phase0: usize,
    with_crc: bool,
) -> Result<(Option<u64>, u32), Error> {
    let masked;
    let spec = match finite {
        Some(kind) => {
            masked = spec.with_finite(kind, phase0);
            &masked
        }
        None => spec,
    };
    if with_crc {
        verify_crc_piece(spec, offset, data)
    } else {
        Ok((verify_piece(spec, offset, data)?, 0))
    }
}

fn verify_piece(spec: &Spec, offset: u64, data: &[u8]) -> Result<Option<u64>, Error> {
    #[cfg(test)]
    if spec.seed() == PANIC_SEED && offset == 1 << 20 {
        panic!("test panic at offset {offset}");
    }
    layout::first_mismatch_with(spec, offset, data, simd::Dispatch::get().level)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(spec: &Spec, offset: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        layout::fill(spec, offset, &mut v).unwrap();
        v
    }

    #[test]
    fn payload_fills_mask_and_sum_like_the_parts() {
        use crate::finite::{self, Finite};
        let spec = Spec::new(77, 8 << 20, 4096, 1.0, 1.5).unwrap();
        let pool = Pool::new(spec.clone(), 4).unwrap();
        let single = Pool::new(spec.clone(), 1).unwrap();
        for (offset, len) in [(0u64, 3usize << 20), (1, (3 << 20) + 5), (4097, 300_001), (123, 7), (8 << 20, 0)] {
            let want = reference(&spec, offset, len);
            for kind in [None, Some(Finite::F16), Some(Finite::Bf16), Some(Finite::F32), Some(Finite::F64)] {
                let size = kind.map_or(1, Finite::size);
                // every phase: a payload's elements need not line up with the stream's offsets
                for phase in 0..size {
                    let mut masked = want.clone();
                    if let Some(k) = kind {
                        finite::apply(k, phase, &mut masked);
                    }
                    for p in [&pool, &single] {
                        let mut got = vec![0xA5u8; len];
                        let crc = p.fill_payload(offset, &mut got, kind, phase, true).unwrap();
                        assert!(got == masked, "{kind:?} at {offset} len {len} phase {phase}");
                        assert_eq!(crc, crc32::update_table(0, &masked), "{kind:?} at {offset} len {len}");
                        let mut plain = vec![0u8; len];
                        assert_eq!(p.fill_payload(offset, &mut plain, kind, phase, false).unwrap(), 0);
                        assert!(plain == masked);
                    }
                }
            }
        }
        assert!(pool.fill_payload(0, &mut [0u8; 8], Some(Finite::F32), 4, true).is_err());
    }

    #[test]
    fn buffers_past_the_non_temporal_threshold_fill_mask_and_sum_like_the_parts() {
        use crate::finite::{self, Finite};
        // 64-byte aligned and at least the threshold: one-pass fills bypass the caches.
        let len = simd::nt_threshold().max(1 << 20) as usize + 3 * 4096 + 100;
        let mut backing = vec![0u8; len + 64];
        let at = backing.as_ptr().align_offset(64);
        let got = &mut backing[at..at + len];
        let spec = Spec::new(78, 1 << 30, 4096, 1.0, 1.5).unwrap();
        for offset in [0u64, 4096 * 5 + 17] {
            let want = reference(&spec, offset, len);
            let mut masked = want.clone();
            finite::apply(Finite::Bf16, 1, &mut masked);
            for threads in [1, 3] {
                let pool = Pool::new(spec.clone(), threads).unwrap();
                got.fill(0xA5);
                let crc = pool.fill_crc32c(offset, got).unwrap();
                assert!(*got == want[..], "crc32c fill, {threads} threads at {offset}");
                assert_eq!(crc, crc32c::update_table(0, &want), "crc32c, {threads} threads at {offset}");
                got.fill(0xA5);
                let crc = pool.fill_payload(offset, got, Some(Finite::Bf16), 1, true).unwrap();
                assert!(*got == masked[..], "bf16 payload, {threads} threads at {offset}");
                assert_eq!(crc, crc32::update_table(0, &masked), "crc32, {threads} threads at {offset}");
                got.fill(0xA5);
                assert_eq!(pool.fill_payload(offset, got, Some(Finite::Bf16), 1, false).unwrap(), 0);
                assert!(*got == masked[..], "bf16 payload without a sum, {threads} threads at {offset}");
            }
        }
    }

    #[test]
    fn boundaries_are_aligned_and_cover_the_range() {
        for (offset, len, pieces) in [(0u64, 1usize << 20, 4usize), (12345, 3 << 20, 3), (65535, 300_000, 5)] {
            let job = Job { ptr: std::ptr::null_mut(), offset, len, pieces, node: None, op: Op::Verify };
            assert_eq!(job.boundary(0), offset);
            assert_eq!(job.boundary(pieces), offset + len as u64);
            for k in 1..pieces {
                let b = job.boundary(k);
                assert!(b >= job.boundary(k - 1) && b <= offset + len as u64);
                assert!(b % PIECE_ALIGN == 0 || b == offset + len as u64);
            }
        }
    }

    #[test]
    fn thread_counts() {
        let spec = Spec::new(3, 1 << 20, 4096, 1.0, 1.0).unwrap();
        assert_eq!(Pool::new(spec.clone(), 1).unwrap().threads(), 1);
        assert_eq!(Pool::new(spec.clone(), 3).unwrap().threads(), 3);
        assert_eq!(Pool::new(spec.clone(), 0).unwrap().threads(), numa::process_default_threads());
        let e = Pool::new(spec, MAX_THREADS + 1).err().unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(e.message(), "threads 4097 exceeds the maximum 4096");
    }

    #[test]
    fn parallel_fill_equals_inline_fill() {
        let spec = Spec::new(9, 5 << 20, 4096, 2.0, 3.0).unwrap();
        let want = reference(&spec, 0, 5 << 20);
        let pool = Pool::new(spec, 3).unwrap();
        for (a, b) in [(0usize, 5 << 20), (1, (5 << 20) - 1), (70_000, 70_000 + (300 << 10)), (4 << 20, 5 << 20)] {
            let mut got = vec![0u8; b - a];
            pool.fill(a as u64, &mut got).unwrap();
            assert!(got == want[a..b], "[{a}, {b})");
        }
        let e = pool.fill(1, &mut vec![0u8; 5 << 20]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::OutOfRange);
    }

    #[test]
    fn parallel_verify_finds_the_smallest_mismatch() {
        let spec = Spec::new(9, 6 << 20, 4096, 2.0, 3.0).unwrap();
        let mut data = reference(&spec, 0, 6 << 20);
        for threads in [1usize, 2, 3, 5] {
            let pool = Pool::new(spec.clone(), threads).unwrap();
            for (a, b) in [(0usize, 6 << 20), (1, (6 << 20) - 1), (70_000, 70_000 + (300 << 10)), (4 << 20, 6 << 20)] {
                assert_eq!(pool.first_mismatch(a as u64, &data[a..b]).unwrap(), None, "threads {threads} [{a}, {b})");
                let len = b - a;
                // First, last, middle, and two flips in different pieces: the smaller wins.
                for at in [a, b - 1, a + len / 2, a + 65_536, b - 70_000] {
                    data[at] ^= 4;
                    assert_eq!(pool.first_mismatch(a as u64, &data[a..b]).unwrap(), Some(at as u64));
                    let later = b - 1;
                    if later != at {
                        data[later] ^= 2;
                        assert_eq!(pool.first_mismatch(a as u64, &data[a..b]).unwrap(), Some(at as u64));
                        data[later] ^= 2;
                    }
                    data[at] ^= 4;
                }
            }
            let e = pool.first_mismatch(1, &data).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::OutOfRange);
        }
        // Bytes equal to the stream, so that no piece is skipped: the one at 1 MiB panics.
        let spec = Spec::new(PANIC_SEED, 4 << 20, 4096, 1.0, 1.0).unwrap();
        let data = reference(&spec, 0, 4 << 20);
        let pool = Pool::new(spec, 4).unwrap();
        let e = pool.first_mismatch(0, &data).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Panic);
    }

    #[test]
    fn concurrent_callers_are_serialised() {
        let spec = Spec::new(5, 8 << 20, 1024, 1.5, 2.0).unwrap();
        let want = reference(&spec, 0, 8 << 20);
        let pool = Pool::new(spec, 4).unwrap();
        thread::scope(|s| {
            for t in 0..4usize {
                let (pool, want) = (&pool, &want);
                s.spawn(move || {
                    for round in 0..6usize {
                        let a = (t * 977_000 + round * 131_071) % (4 << 20);
                        let len = (512 << 10) + round * 100_003;
                        let mut got = vec![0u8; len];
                        pool.fill(a as u64, &mut got).unwrap();
                        assert!(got == want[a..a + len], "thread {t} round {round}");
                    }
                });
            }
        });
    }

    #[test]
    fn pools_start_and_stop_cleanly() {
        let spec = Spec::new(6, 1 << 20, 4096, 1.0, 1.0).unwrap();
        let want = reference(&spec, 0, 1 << 20);
        for round in 0..40 {
            let pool = Pool::new(spec.clone(), 2 + round % 15).unwrap();
            if round % 2 == 0 {
                let mut got = vec![0u8; 1 << 20];
                pool.fill(0, &mut got).unwrap();
                assert!(got == want, "round {round}");
            }
        }
    }

    #[test]
    fn worker_panic_is_an_error_and_the_pool_survives() {
        let spec = Spec::new(PANIC_SEED, 4 << 20, 4096, 1.0, 1.0).unwrap();
        let want = reference(&spec, 2 << 20, 2 << 20);
        let pool = Pool::new(spec, 4).unwrap();
        for _ in 0..3 {
            let e = pool.fill(0, &mut vec![0u8; 4 << 20]).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Panic);
            assert!(e.message().contains("test panic at offset 1048576"), "{}", e.message());
            let mut got = vec![0u8; 2 << 20];
            pool.fill(2 << 20, &mut got).unwrap();
            assert!(got == want);
        }
    }

    #[test]
    fn pinned_pools_fill_on_their_workers() {
        let spec = Spec::new(9, 5 << 20, 4096, 2.0, 3.0).unwrap();
        let want = reference(&spec, 0, 5 << 20);
        let pool = Pool::with_numa(spec, 2, Mode::Force, None).unwrap();
        assert!(pool.plan().pinned);
        assert_eq!(pool.threads(), 2);
        let mut got = vec![0u8; 5 << 20];
        pool.fill(0, &mut got).unwrap();
        assert!(got == want);
        // A node-local buffer of this machine's first node.
        let node = numa::Topology::current().nodes[0].id;
        let p = numa::alloc(5 << 20, Some(node)).unwrap();
        // SAFETY: the buffer holds 5 MiB and nothing else uses it.
        let buf = unsafe { std::slice::from_raw_parts_mut(p, 5 << 20) };
        pool.fill(0, buf).unwrap();
        assert!(buf[..] == want[..]);
        numa::free(p, 5 << 20).unwrap();
        let e = Pool::with_numa(Spec::new(9, 1, 4096, 1.0, 1.0).unwrap(), 1, Mode::Auto, Some(999)).err().unwrap();
        assert!(e.message().starts_with("NUMA node 999 does not exist"), "{}", e.message());
    }

    #[test]
    fn a_node_local_buffer_is_filled_by_its_nodes_workers() {
        // Two made-up nodes over this process's CPUs: node 0 and node 1 get two workers each.
        let cpus = numa::affinity_list();
        let plan = Plan {
            pinned: true,
            groups: vec![
                numa::Group { node: Some(0), cpus: cpus.clone(), threads: 2 },
                numa::Group { node: Some(1), cpus: cpus.clone(), threads: 2 },
            ],
            mode: Mode::Force,
            node: None,
        };
        let spec = Spec::new(TRACE_SEED, 4 << 20, 4096, 1.0, 1.0).unwrap();
        let want = reference(&spec, 0, 4 << 20);
        let pool = Pool::with_plan(spec, plan).unwrap();
        assert_eq!(pool.threads(), 4);
        let two = numa::Topology::read(&numa::fixture_root("two-nodes"), 1);
        for node in [1usize, 0] {
            let p = numa::alloc_with(&two, 4 << 20, Some(node), false).unwrap();
            // SAFETY: the buffer holds 4 MiB and nothing else uses it.
            let buf = unsafe { std::slice::from_raw_parts_mut(p, 4 << 20) };
            lock(&TRACE).clear();
            pool.fill(0, buf).unwrap();
            let trace = std::mem::take(&mut *lock(&TRACE));
            assert!(buf[..] == want[..]);
            numa::free(p, 4 << 20).unwrap();
            assert_eq!(trace.len(), 2, "{trace:?}");
            for (_, name) in &trace {
                assert!(name.starts_with(&format!("dgen4j-n{node}-")), "node {node}: {trace:?}");
            }
        }
    }
}
