//! NUMA: the topology from sysfs, the pinning plan of a pool's workers, node-local
//! buffers (mmap + mbind) and the MPI-aware default thread count.
//!
//! Everything that reads the machine takes its inputs as parameters (a sysfs root, an
//! affinity CPU list, an environment lookup) so that the tests run on fixture trees;
//! [`Topology::current`] and friends bind them to the live system.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, ErrorKind};
use crate::sys;

/// Environment variables that MPI launchers set to the number of ranks on this host, in
/// the order they are consulted: Open MPI, MPICH/Hydra, MVAPICH2.
pub const LOCAL_RANK_VARS: [&str; 3] = ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_LOCAL_SIZE"];

/// One NUMA node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The node id (`nodeN`).
    pub id: usize,
    /// Its online CPUs, ascending.
    pub cpus: Vec<usize>,
    /// Distances to the nodes of the topology, in the order of [`Topology::nodes`]
    /// (empty when sysfs has none).
    pub distances: Vec<u32>,
    /// `MemTotal` of the node in KiB, when sysfs says.
    pub memory_kib: Option<u64>,
}

/// The NUMA nodes of the machine, ascending by id; at least one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// The nodes, ascending by id.
    pub nodes: Vec<Node>,
    /// Whether the nodes were read from sysfs (`false`: one node made up from the CPUs).
    pub from_sysfs: bool,
}

/// Parses a Linux CPU or node list such as `0-3,8,10-11` (whitespace tolerated; empty
/// is empty). Returns `None` for a malformed list.
pub fn parse_list(s: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in s.trim().split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if b < a || b - a > 1 << 20 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// Formats ascending ids as a Linux list (`0-3,8`); `-` when empty.
pub fn format_list(ids: &[usize]) -> String {
    if ids.is_empty() {
        return "-".to_string();
    }
    let mut s = String::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        if !s.is_empty() {
            s.push(',');
        }
        if j == i {
            let _ = write!(s, "{}", ids[i]);
        } else {
            let _ = write!(s, "{}-{}", ids[i], ids[j]);
        }
        i = j + 1;
    }
    s
}

impl Topology {
    /// Reads `<root>/devices/system/node` and `<root>/devices/system/cpu/online` (root is
    /// normally `/sys`). Offline CPUs are dropped from the nodes; with no node directory a
    /// single node 0 holds the online CPUs (or `fallback_cpus` when even those are unknown).
    pub fn read(root: &Path, fallback_cpus: usize) -> Topology {
        let sys = root.join("devices/system");
        let online = read_list(&sys.join("cpu/online"));
        let node_dir = sys.join("node");
        let wanted = read_list(&node_dir.join("online"));
        let mut ids: Vec<usize> = fs::read_dir(&node_dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().to_str()?.strip_prefix("node")?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        ids.sort_unstable();
        if let Some(w) = &wanted {
            ids.retain(|i| w.contains(i));
        }
        let mut nodes: Vec<Node> = ids
            .iter()
            .map(|&id| {
                let dir = node_dir.join(format!("node{id}"));
                let mut cpus = read_list(&dir.join("cpulist")).unwrap_or_default();
                if let Some(on) = &online {
                    cpus.retain(|c| on.contains(c));
                }
                let distances = fs::read_to_string(dir.join("distance"))
                    .ok()
                    .and_then(|s| s.split_whitespace().map(|d| d.parse().ok()).collect::<Option<Vec<u32>>>())
                    .unwrap_or_default();
                Node { id, cpus, distances, memory_kib: read_memtotal(&dir.join("meminfo")) }
            })
            .collect();
        // The distance file of a node lists every online node; keep those we report.
        let all_online: Vec<usize> = wanted.unwrap_or_else(|| ids.clone());
        for n in &mut nodes {
            if n.distances.len() == all_online.len() {
                n.distances = all_online
                    .iter()
                    .zip(&n.distances)
                    .filter(|(id, _)| ids.contains(id))
                    .map(|(_, &d)| d)
                    .collect();
            } else if n.distances.len() != ids.len() {
                n.distances.clear();
            }
        }
        if nodes.is_empty() {
            let cpus = online.unwrap_or_else(|| (0..fallback_cpus.max(1)).collect());
            return Topology {
                nodes: vec![Node { id: 0, cpus, distances: vec![10], memory_kib: None }],
                from_sysfs: false,
            };
        }
        Topology { nodes, from_sysfs: true }
    }

    /// The topology of this machine (`/sys`), read once.
    pub fn current() -> &'static Topology {
        static T: OnceLock<Topology> = OnceLock::new();
        T.get_or_init(|| Topology::read(Path::new("/sys"), crate::cpu::affinity_cpus()))
    }

    /// The node with `id`.
    pub fn node(&self, id: usize) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// One line per node: `node ID cpus LIST distances D,D,... memory KIB` (`-` when
    /// unknown), the text of `dgen4j_numa_topology`.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for n in &self.nodes {
            let d: Vec<String> = n.distances.iter().map(u32::to_string).collect();
            let _ = writeln!(
                s,
                "node {} cpus {} distances {} memory {}",
                n.id,
                format_list(&n.cpus),
                if d.is_empty() { "-".to_string() } else { d.join(",") },
                n.memory_kib.map_or("-".to_string(), |m| m.to_string())
            );
        }
        s
    }
}

fn read_list(path: &Path) -> Option<Vec<usize>> {
    parse_list(&fs::read_to_string(path).ok()?)
}

fn read_memtotal(path: &Path) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.contains("MemTotal:"))?;
    line.split_whitespace().rev().nth(1)?.parse().ok()
}

/// When workers are pinned to their nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Pin only when the run spans several nodes or is bound to one (default).
    Auto,
    /// Pin even on a single-node machine.
    Force,
    /// Never pin.
    Off,
}

impl Mode {
    /// The mode of a `DGEN4J_NUMA_*` code.
    pub fn from_code(code: i32) -> Option<Mode> {
        match code {
            0 => Some(Mode::Auto),
            1 => Some(Mode::Force),
            2 => Some(Mode::Off),
            _ => None,
        }
    }

    /// `auto`, `force` or `off`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Force => "force",
            Mode::Off => "off",
        }
    }
}

/// Workers of one node in a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The node, or `None` for unpinned workers.
    pub node: Option<usize>,
    /// The CPUs the workers are pinned to (the node's CPUs within the affinity mask);
    /// empty when unpinned.
    pub cpus: Vec<usize>,
    /// Number of threads of the group.
    pub threads: usize,
}

/// Where a pool's threads run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Whether workers are pinned (then the calling thread only waits for them).
    pub pinned: bool,
    /// The groups; one unpinned group when not pinned.
    pub groups: Vec<Group>,
    /// The mode asked for.
    pub mode: Mode,
    /// The node the run is bound to, if any.
    pub node: Option<usize>,
}

impl Plan {
    /// Total threads.
    pub fn threads(&self) -> usize {
        self.groups.iter().map(|g| g.threads).sum()
    }

    /// Lines `pinned yes|no`, `mode M`, `threads T`, then per group
    /// `group node N|- threads T cpus LIST`: the text of `dgen4j_numa_plan`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "pinned {}\nmode {}\nthreads {}\n",
            if self.pinned { "yes" } else { "no" },
            self.mode.name(),
            self.threads()
        );
        for g in &self.groups {
            let _ = writeln!(
                s,
                "group node {} threads {} cpus {}",
                g.node.map_or("-".to_string(), |n| n.to_string()),
                g.threads,
                format_list(&g.cpus)
            );
        }
        s
    }
}

/// The plan for `threads` threads (0 = the default: the usable CPUs of the nodes in
/// scope divided by `local_ranks`, at least 1) on `topo`, within the CPUs of `affinity`,
/// optionally bound to `node`. Fails when `node` does not exist or has no CPU of the
/// affinity mask, or when `threads` exceeds `max_threads`.
pub fn plan(
    topo: &Topology,
    affinity: &[usize],
    threads: usize,
    mode: Mode,
    node: Option<usize>,
    local_ranks: usize,
    max_threads: usize,
) -> Result<Plan, Error> {
    if threads > max_threads {
        return Err(Error::invalid(format!("threads {threads} exceeds the maximum {max_threads}")));
    }
    let usable = |n: &Node| -> Vec<usize> { n.cpus.iter().copied().filter(|c| affinity.contains(c)).collect() };
    let mut scope: Vec<(usize, Vec<usize>)> = Vec::new();
    if let Some(id) = node {
        let Some(n) = topo.node(id) else {
            let ids: Vec<usize> = topo.nodes.iter().map(|n| n.id).collect();
            return Err(Error::invalid(format!("NUMA node {id} does not exist (nodes: {})", format_list(&ids))));
        };
        let cpus = usable(n);
        if cpus.is_empty() {
            return Err(Error::invalid(format!(
                "NUMA node {id} has no CPU this process may run on (node CPUs {}, affinity {})",
                format_list(&n.cpus),
                format_list(affinity)
            )));
        }
        scope.push((id, cpus));
    } else {
        scope = topo.nodes.iter().map(|n| (n.id, usable(n))).filter(|(_, c)| !c.is_empty()).collect();
    }
    let usable_cpus: usize = scope.iter().map(|(_, c)| c.len()).sum();
    // Affinity CPUs that no node lists (an incomplete sysfs) still count when unbound.
    let cpus_in_scope = if node.is_some() { usable_cpus } else { usable_cpus.max(affinity.len()) };
    let threads = if threads == 0 { default_threads(cpus_in_scope, local_ranks).min(max_threads) } else { threads };
    let pinned = !scope.is_empty()
        && match mode {
            Mode::Off => false,
            Mode::Force => true,
            Mode::Auto => scope.len() > 1 || node.is_some(),
        };
    if !pinned {
        return Ok(Plan { pinned, groups: vec![Group { node, cpus: Vec::new(), threads }], mode, node });
    }
    // Threads go to nodes in proportion to their usable CPUs.
    let mut counts = vec![0usize; scope.len()];
    for _ in 0..threads {
        let k = (0..scope.len())
            .min_by(|&a, &b| (counts[a] * scope[b].1.len()).cmp(&(counts[b] * scope[a].1.len())).then(a.cmp(&b)))
            .unwrap_or(0);
        counts[k] += 1;
    }
    let groups = scope
        .into_iter()
        .zip(counts)
        .filter(|(_, t)| *t > 0)
        .map(|((id, cpus), t)| Group { node: Some(id), cpus, threads: t })
        .collect();
    Ok(Plan { pinned, groups, mode, node })
}

/// The number of MPI ranks on this host according to `get` (an environment lookup):
/// the first of [`LOCAL_RANK_VARS`] that holds a positive integer, else 1. The world
/// size (`OMPI_COMM_WORLD_SIZE`, `PMI_SIZE`, ...) is never used.
pub fn local_ranks_from(get: impl Fn(&str) -> Option<String>) -> usize {
    LOCAL_RANK_VARS
        .iter()
        .filter_map(|v| get(v)?.trim().parse::<usize>().ok())
        .find(|&n| n > 0)
        .unwrap_or(1)
}

/// [`local_ranks_from`] the process environment.
pub fn local_ranks() -> usize {
    local_ranks_from(|v| std::env::var(v).ok())
}

/// CPUs shared by `local_ranks` ranks: `cpus / local_ranks`, at least 1.
pub fn default_threads(cpus: usize, local_ranks: usize) -> usize {
    (cpus / local_ranks.max(1)).max(1)
}

/// The default thread count of this process: affinity CPUs / local ranks, at least 1.
pub fn process_default_threads() -> usize {
    default_threads(crate::cpu::affinity_cpus(), local_ranks())
}

// ---- node-local buffers ----

/// A registered buffer: its mapped length, node and, for [`alloc_shared`], its memory file.
struct Mapping {
    len: usize,
    node: Option<usize>,
    /// Kept open while the buffer lives (closed when the mapping is dropped): the descriptor
    /// [`alloc_shared`] hands out.
    _file: Option<fs::File>,
}

/// Registered buffers by start address.
fn registry() -> &'static Mutex<BTreeMap<usize, Mapping>> {
    static R: OnceLock<Mutex<BTreeMap<usize, Mapping>>> = OnceLock::new();
    R.get_or_init(|| Mutex::new(BTreeMap::new()))
}

/// The node of the buffer allocated by [`alloc`] that contains `[ptr, ptr + len)`, if any.
pub fn node_of(ptr: *const u8, len: usize) -> Option<usize> {
    let a = ptr as usize;
    let r = registry().lock().unwrap_or_else(|e| e.into_inner());
    let (&start, m) = r.range(..=a).next_back()?;
    (a.checked_add(len)? <= start + m.len).then_some(m.node).flatten()
}

/// The page size.
pub fn page_size() -> usize {
    sys::page_size()
}

/// A page-aligned anonymous mapping of `size` bytes (rounded up to pages), untouched (no
/// resident memory until written), bound to `node` with `MPOL_BIND` when `bind`, with
/// transparent huge pages asked for from 2 MiB on. The node must exist in `topo`.
pub fn alloc_with(topo: &Topology, size: usize, node: Option<usize>, bind: bool) -> Result<*mut u8, Error> {
    map_with(topo, size, node, bind, false).map(|(p, _)| p)
}

/// [`alloc_with`] on a memory file of its own (`memfd_create`, mapped shared; transparent huge
/// pages only where the system's shmem setting allows them): the buffer's pages can be sent to
/// a socket by `sendfile` on the returned descriptor (offset 0 is the buffer's first byte)
/// without a copy. The descriptor stays open until [`free`].
pub fn alloc_shared_with(
    topo: &Topology,
    size: usize,
    node: Option<usize>,
    bind: bool,
) -> Result<(*mut u8, i32), Error> {
    map_with(topo, size, node, bind, true).map(|(p, fd)| (p, fd.unwrap_or(-1)))
}

fn map_with(
    topo: &Topology,
    size: usize,
    node: Option<usize>,
    bind: bool,
    shared: bool,
) -> Result<(*mut u8, Option<i32>), Error> {
    if size == 0 {
        return Err(Error::invalid("size is 0"));
    }
    if let Some(id) = node {
        if topo.node(id).is_none() {
            let ids: Vec<usize> = topo.nodes.iter().map(|n| n.id).collect();
            return Err(Error::invalid(format!("NUMA node {id} does not exist (nodes: {})", format_list(&ids))));
        }
    }
    let page = page_size();
    let len = size.checked_next_multiple_of(page).ok_or_else(|| Error::invalid(format!("size {size} is too large")))?;
    let file = if shared {
        Some(sys::memory_file(len).map_err(|e| Error::new(ErrorKind::Resource, format!("memory file of {len} bytes: {e}")))?)
    } else {
        None
    };
    let ptr = match &file {
        Some(f) => sys::map_file(f, len),
        None => sys::map(len),
    }
    .map_err(|e| Error::new(ErrorKind::Resource, format!("mmap of {len} bytes failed: {e}")))?;
    // A memory file gets huge pages only where /sys/kernel/mm/transparent_hugepage/shmem_enabled
    // allows (`advise`, `within_size`, `always`): then sendfile looks up 512 x fewer pages.
    if len >= 2 << 20 {
        sys::advise_hugepages(ptr, len);
    }
    if let (Some(id), true) = (node, bind) {
        if let Err(e) = sys::bind(ptr, len, id) {
            sys::unmap(ptr, len);
            return Err(Error::new(ErrorKind::Resource, format!("mbind of {len} bytes to node {id} failed: {e}")));
        }
    }
    let fd = file.as_ref().map(std::os::fd::AsRawFd::as_raw_fd);
    registry().lock().unwrap_or_else(|e| e.into_inner()).insert(ptr as usize, Mapping { len, node, _file: file });
    Ok((ptr, fd))
}

/// [`alloc_with`] on this machine, bound when it has several nodes.
pub fn alloc(size: usize, node: Option<usize>) -> Result<*mut u8, Error> {
    let topo = Topology::current();
    alloc_with(topo, size, node, topo.nodes.len() > 1)
}

/// [`alloc_shared_with`] on this machine, bound when it has several nodes.
pub fn alloc_shared(size: usize, node: Option<usize>) -> Result<(*mut u8, i32), Error> {
    let topo = Topology::current();
    alloc_shared_with(topo, size, node, topo.nodes.len() > 1)
}

/// Unmaps a buffer of [`alloc`] or [`alloc_shared`] (closing the latter's descriptor); `size`
/// is the size asked for. Fails for a pointer that neither returned (or already freed) or a
/// size that does not match.
pub fn free(ptr: *mut u8, size: usize) -> Result<(), Error> {
    let mut r = registry().lock().unwrap_or_else(|e| e.into_inner());
    let len = size.checked_next_multiple_of(page_size()).unwrap_or(0);
    match r.get(&(ptr as usize)).map(|m| m.len) {
        Some(l) if l == len => {
            let m = r.remove(&(ptr as usize));
            drop(r);
            sys::unmap(ptr, len);
            drop(m); // closes a memory file's descriptor, after the unmap
            Ok(())
        }
        Some(l) => Err(Error::invalid(format!("size {size} does not match the buffer's {l} bytes"))),
        None => Err(Error::invalid(format!("{ptr:p} is not a live dgen4j node buffer"))),
    }
}

/// Pins the calling thread to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> Result<(), Error> {
    sys::set_affinity(cpus).map_err(|e| {
        Error::new(ErrorKind::Resource, format!("sched_setaffinity to CPUs {} failed: {e}", format_list(cpus)))
    })
}

/// The CPUs of the calling thread's affinity mask.
pub fn affinity_list() -> Vec<usize> {
    sys::affinity_list().unwrap_or_else(|| (0..crate::cpu::affinity_cpus()).collect())
}

/// How many of the pages of `[ptr, ptr + len)` are resident (`mincore`).
pub fn resident_pages(ptr: *const u8, len: usize) -> Option<usize> {
    sys::resident_pages(ptr, len)
}

/// The policy and nodes of the page at `ptr` (`get_mempolicy` with `MPOL_F_ADDR`):
/// `(mode, nodes)`, mode 2 being `MPOL_BIND`.
pub fn policy_of(ptr: *const u8) -> Option<(i32, Vec<usize>)> {
    sys::policy_of(ptr)
}

/// The fixture sysfs trees of the tests (`native/tests/fixtures/sysfs/<name>`).
pub fn fixture_root(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysfs").join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(name: &str) -> Topology {
        Topology::read(&fixture_root(name), 1)
    }

    #[test]
    fn lists_parse_and_format() {
        assert_eq!(parse_list("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_list(""), Some(vec![]));
        assert_eq!(parse_list(" 5 "), Some(vec![5]));
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("a"), None);
        assert_eq!(format_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(format_list(&[]), "-");
        assert_eq!(format_list(&[64]), "64");
    }

    #[test]
    fn one_node() {
        let t = topo("one-node");
        assert!(t.from_sysfs);
        assert_eq!(t.nodes.len(), 1);
        assert_eq!(t.nodes[0].cpus, vec![0, 1]);
        assert_eq!(t.nodes[0].distances, vec![10]);
        assert_eq!(t.nodes[0].memory_kib, Some(24_610_776));
        assert_eq!(t.describe(), "node 0 cpus 0-1 distances 10 memory 24610776\n");
    }

    #[test]
    fn two_nodes_with_offline_cpus() {
        // cpu/online is 0-5,8-13: CPUs 6, 7, 14 and 15 are offline.
        let t = topo("two-nodes");
        assert_eq!(t.nodes.iter().map(|n| n.id).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(t.nodes[0].cpus, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(t.nodes[1].cpus, vec![8, 9, 10, 11, 12, 13]);
        assert_eq!(t.nodes[0].distances, vec![10, 21]);
        assert_eq!(t.nodes[1].distances, vec![21, 10]);
    }

    #[test]
    fn four_nodes_sparse_ids_and_a_memory_only_node() {
        // Nodes 0, 1, 4 and 5 online (2 and 3 absent); node 5 has memory but no CPU;
        // CPU ids are sparse (0-3, 64-67, 128-131).
        let t = topo("four-nodes");
        assert_eq!(t.nodes.iter().map(|n| n.id).collect::<Vec<_>>(), vec![0, 1, 4, 5]);
        assert_eq!(t.nodes[1].cpus, vec![64, 65, 66, 67]);
        assert_eq!(t.nodes[2].cpus, vec![128, 129, 130, 131]);
        assert!(t.nodes[3].cpus.is_empty());
        assert_eq!(t.nodes[2].distances, vec![32, 32, 10, 11]);
        assert_eq!(
            t.describe().lines().nth(3),
            Some("node 5 cpus - distances 32,32,11,10 memory 8388608")
        );
    }

    #[test]
    fn no_node_directory_is_one_node_of_the_online_cpus() {
        let t = topo("no-numa");
        assert!(!t.from_sysfs);
        assert_eq!(t.nodes.len(), 1);
        assert_eq!(t.nodes[0].cpus, vec![0, 1, 2]);
        let t = Topology::read(Path::new("/nonexistent"), 3);
        assert_eq!(t.nodes[0].cpus, vec![0, 1, 2]);
    }

    #[test]
    fn the_live_topology_reads() {
        let t = Topology::current();
        assert!(!t.nodes.is_empty());
        assert!(!t.describe().is_empty());
    }

    fn all(t: &Topology) -> Vec<usize> {
        t.nodes.iter().flat_map(|n| n.cpus.clone()).collect()
    }

    #[test]
    fn plans_on_one_node() {
        let t = topo("one-node");
        let p = plan(&t, &[0, 1], 0, Mode::Auto, None, 1, 4096).unwrap();
        assert!(!p.pinned);
        assert_eq!(p.threads(), 2);
        assert_eq!(p.describe(), "pinned no\nmode auto\nthreads 2\ngroup node - threads 2 cpus -\n");
        let p = plan(&t, &[0, 1], 3, Mode::Force, None, 1, 4096).unwrap();
        assert!(p.pinned);
        assert_eq!(p.groups, vec![Group { node: Some(0), cpus: vec![0, 1], threads: 3 }]);
        // Bound to a node: pinned in auto mode too.
        assert!(plan(&t, &[0, 1], 0, Mode::Auto, Some(0), 1, 4096).unwrap().pinned);
        assert!(!plan(&t, &[0, 1], 0, Mode::Off, Some(0), 1, 4096).unwrap().pinned);
    }

    #[test]
    fn plans_on_two_nodes() {
        let t = topo("two-nodes");
        let p = plan(&t, &all(&t), 0, Mode::Auto, None, 1, 4096).unwrap();
        assert!(p.pinned);
        assert_eq!(
            p.describe(),
            "pinned yes\nmode auto\nthreads 12\ngroup node 0 threads 6 cpus 0-5\ngroup node 1 threads 6 cpus 8-13\n"
        );
        // Within the affinity mask only: 2 CPUs of node 0, 4 of node 1.
        let p = plan(&t, &[4, 5, 8, 9, 10, 11], 3, Mode::Auto, None, 1, 4096).unwrap();
        assert_eq!(
            p.groups,
            vec![
                Group { node: Some(0), cpus: vec![4, 5], threads: 1 },
                Group { node: Some(1), cpus: vec![8, 9, 10, 11], threads: 2 }
            ]
        );
        // Bound to node 1, two local ranks: 6 CPUs / 2.
        let p = plan(&t, &all(&t), 0, Mode::Auto, Some(1), 2, 4096).unwrap();
        assert_eq!(p.groups, vec![Group { node: Some(1), cpus: (8..14).collect(), threads: 3 }]);
        let p = plan(&t, &all(&t), 0, Mode::Off, None, 4, 4096).unwrap();
        assert_eq!((p.pinned, p.threads()), (false, 3));
        let e = plan(&t, &all(&t), 0, Mode::Auto, Some(2), 1, 4096).unwrap_err();
        assert_eq!(e.message(), "NUMA node 2 does not exist (nodes: 0-1)");
        let e = plan(&t, &[0, 1], 0, Mode::Auto, Some(1), 1, 4096).unwrap_err();
        assert_eq!(e.message(), "NUMA node 1 has no CPU this process may run on (node CPUs 8-13, affinity 0-1)");
        let e = plan(&t, &[0, 1], 5000, Mode::Auto, None, 1, 4096).unwrap_err();
        assert_eq!(e.message(), "threads 5000 exceeds the maximum 4096");
    }

    #[test]
    fn plans_on_four_sparse_nodes() {
        let t = topo("four-nodes");
        let p = plan(&t, &all(&t), 0, Mode::Auto, None, 1, 4096).unwrap();
        // The memory-only node 5 gets no thread.
        assert_eq!(
            p.describe(),
            "pinned yes\nmode auto\nthreads 12\ngroup node 0 threads 4 cpus 0-3\n\
             group node 1 threads 4 cpus 64-67\ngroup node 4 threads 4 cpus 128-131\n"
        );
        let p = plan(&t, &all(&t), 2, Mode::Auto, None, 1, 4096).unwrap();
        assert_eq!(p.groups.iter().map(|g| (g.node, g.threads)).collect::<Vec<_>>(), vec![(Some(0), 1), (Some(1), 1)]);
        let e = plan(&t, &all(&t), 0, Mode::Auto, Some(5), 1, 4096).unwrap_err();
        assert!(e.message().starts_with("NUMA node 5 has no CPU"), "{}", e.message());
        // Six local ranks on 12 CPUs: 2 threads each.
        assert_eq!(plan(&t, &all(&t), 0, Mode::Off, None, 6, 4096).unwrap().threads(), 2);
    }

    #[test]
    fn local_ranks_come_from_the_launcher_never_the_world_size() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(local_ranks_from(env(&[])), 1);
        assert_eq!(local_ranks_from(env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", "4"), ("OMPI_COMM_WORLD_SIZE", "64")])), 4);
        assert_eq!(local_ranks_from(env(&[("MPI_LOCALNRANKS", "2"), ("PMI_SIZE", "16")])), 2);
        assert_eq!(local_ranks_from(env(&[("MV2_COMM_WORLD_LOCAL_SIZE", " 8\n")])), 8);
        assert_eq!(local_ranks_from(env(&[("OMPI_COMM_WORLD_SIZE", "64"), ("PMI_SIZE", "64")])), 1);
        assert_eq!(local_ranks_from(env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", "x"), ("MPI_LOCALNRANKS", "3")])), 3);
        assert_eq!(local_ranks_from(env(&[("OMPI_COMM_WORLD_LOCAL_SIZE", "0")])), 1);
        assert_eq!(default_threads(16, 4), 4);
        assert_eq!(default_threads(2, 4), 1);
        assert_eq!(default_threads(7, 2), 3);
        assert_eq!(default_threads(2, 0), 2);
    }

    #[test]
    fn buffers_are_aligned_untouched_and_registered() {
        let t = Topology::current();
        let size = (8 << 20) + 100;
        let p = alloc_with(t, size, Some(t.nodes[0].id), false).unwrap();
        assert_eq!(p as usize % page_size(), 0);
        assert_eq!(resident_pages(p, size), Some(0), "a new buffer must not be resident");
        assert_eq!(node_of(p, size), Some(t.nodes[0].id));
        assert_eq!(node_of(p.wrapping_add(4096), 4096), Some(t.nodes[0].id));
        assert_eq!(node_of(p, size + page_size()), None);
        // SAFETY: the buffer holds `size` bytes.
        unsafe { std::ptr::write_bytes(p, 1, size) };
        assert_eq!(resident_pages(p, size), Some(size.div_ceil(page_size())));
        assert!(free(p, size + page_size()).is_err());
        free(p, size).unwrap();
        assert_eq!(node_of(p, 1), None);
        assert!(free(p, size).unwrap_err().message().contains("is not a live dgen4j node buffer"));
        assert!(alloc_with(t, 0, None, false).is_err());
        let e = alloc_with(t, 4096, Some(999), false).unwrap_err();
        assert!(e.message().starts_with("NUMA node 999 does not exist"), "{}", e.message());
    }

    #[test]
    fn mbind_binds_the_buffer_to_its_node() {
        let t = Topology::current();
        let node = t.nodes[0].id;
        let p = alloc_with(t, 1 << 20, Some(node), true).unwrap();
        // SAFETY: the buffer holds 1 MiB.
        unsafe { std::ptr::write_bytes(p, 7, 1 << 20) };
        assert_eq!(policy_of(p), Some((2, vec![node])), "MPOL_BIND to node {node}");
        free(p, 1 << 20).unwrap();
        let q = alloc_with(t, 1 << 20, None, true).unwrap();
        assert_ne!(policy_of(q).map(|(m, _)| m), Some(2));
        free(q, 1 << 20).unwrap();
    }

    #[test]
    fn pinning_stays_within_the_affinity_mask() {
        let mine = affinity_list();
        std::thread::spawn(move || {
            pin_current_thread(&mine[..1]).unwrap();
            assert_eq!(affinity_list(), vec![mine[0]]);
            assert!(pin_current_thread(&[1 << 19]).is_err());
        })
        .join()
        .unwrap();
    }
}
