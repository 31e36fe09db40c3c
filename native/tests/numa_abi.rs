//! The NUMA, node-local memory and benchmark functions of jextract/dgen4j.h, called
//! through the C ABI: fixture topologies, plans, errors, buffers, pinned generators.

use std::ffi::{c_char, CString};
use std::ptr;

use dgen4j::*;

fn text(f: impl Fn(*mut c_char, usize) -> usize) -> String {
    let len = f(ptr::null_mut(), 0);
    let mut buf = vec![0u8; len + 1];
    assert_eq!(f(buf.as_mut_ptr().cast(), buf.len()), len);
    String::from_utf8(buf[..len].to_vec()).unwrap()
}

fn last_error() -> String {
    // SAFETY: the buffers hold the capacities passed.
    text(|b, c| unsafe { dgen4j_last_error(b, c) })
}

fn fixture(name: &str) -> CString {
    CString::new(dgen4j::numa::fixture_root(name).to_str().unwrap()).unwrap()
}

fn plan(root: Option<&CString>, affinity: Option<&str>, threads: u32, mode: i32, node: i32) -> Result<String, (i32, String)> {
    let aff = affinity.map(|a| CString::new(a).unwrap());
    let root_p = root.map_or(ptr::null(), |r| r.as_ptr());
    let aff_p = aff.as_ref().map_or(ptr::null(), |a| a.as_ptr());
    let mut len = 0usize;
    // SAFETY: the strings are NUL-terminated, `len` is a valid place.
    let rc = unsafe { dgen4j_numa_plan(root_p, aff_p, threads, mode, node, ptr::null_mut(), 0, &mut len) };
    if rc != DGEN4J_OK {
        return Err((rc, last_error()));
    }
    let mut buf = vec![0u8; len + 1];
    // SAFETY: as above; `buf` holds `buf.len()` bytes.
    let rc = unsafe { dgen4j_numa_plan(root_p, aff_p, threads, mode, node, buf.as_mut_ptr().cast(), buf.len(), &mut len) };
    assert_eq!(rc, DGEN4J_OK);
    Ok(String::from_utf8(buf[..len].to_vec()).unwrap())
}

#[test]
fn topology_of_fixtures() {
    let two = fixture("two-nodes");
    // SAFETY: the root is NUL-terminated; the buffers hold the capacities passed.
    let t = text(|b, c| unsafe { dgen4j_numa_topology(two.as_ptr(), b, c) });
    assert_eq!(t, "node 0 cpus 0-5 distances 10,21 memory 16777216\nnode 1 cpus 8-13 distances 21,10 memory 16777216\n");
    // SAFETY: as above.
    let live = text(|b, c| unsafe { dgen4j_numa_topology(ptr::null(), b, c) });
    assert!(live.starts_with("node "), "{live}");
}

#[test]
fn plans_and_their_errors() {
    let four = fixture("four-nodes");
    assert_eq!(
        plan(Some(&four), Some("0-3,64-67,128-131"), 6, DGEN4J_NUMA_AUTO, -1).unwrap(),
        "pinned yes\nmode auto\nthreads 6\ngroup node 0 threads 2 cpus 0-3\ngroup node 1 threads 2 cpus 64-67\n\
         group node 4 threads 2 cpus 128-131\n"
    );
    assert_eq!(
        plan(Some(&four), Some("0-3,64-67"), 2, DGEN4J_NUMA_OFF, -1).unwrap(),
        "pinned no\nmode off\nthreads 2\ngroup node - threads 2 cpus -\n"
    );
    assert_eq!(
        plan(Some(&four), Some("64-67"), 0, DGEN4J_NUMA_AUTO, 1).unwrap(),
        "pinned yes\nmode auto\nthreads 4\ngroup node 1 threads 4 cpus 64-67\n"
    );
    assert_eq!(
        plan(Some(&four), Some("0-3"), 0, DGEN4J_NUMA_AUTO, 1),
        Err((DGEN4J_ERR_INVALID_ARGUMENT, "NUMA node 1 has no CPU this process may run on (node CPUs 64-67, affinity 0-3)".into()))
    );
    assert_eq!(
        plan(Some(&four), None, 0, 7, -1),
        Err((DGEN4J_ERR_INVALID_ARGUMENT, "NUMA mode 7 is not DGEN4J_NUMA_AUTO, _FORCE or _OFF".into()))
    );
    assert_eq!(
        plan(Some(&four), None, 0, DGEN4J_NUMA_AUTO, -2),
        Err((DGEN4J_ERR_INVALID_ARGUMENT, "node -2 is invalid (-1 = none, else a node id)".into()))
    );
    assert_eq!(
        plan(Some(&four), Some("x"), 0, DGEN4J_NUMA_AUTO, -1),
        Err((DGEN4J_ERR_INVALID_ARGUMENT, "affinity 'x' is not a CPU list such as 0-3,8".into()))
    );
    assert!(plan(None, None, 0, DGEN4J_NUMA_AUTO, -1).unwrap().starts_with("pinned "));
}

#[test]
fn local_ranks_and_default_threads() {
    // The test process has no MPI launcher variables (cargo test does not set them).
    if dgen4j::numa::LOCAL_RANK_VARS.iter().all(|v| std::env::var(v).is_err()) {
        assert_eq!(dgen4j_local_ranks(), 1);
        assert_eq!(dgen4j_default_threads(), dgen4j_affinity_cpus());
    }
    assert!(dgen4j_default_threads() >= 1);
}

#[test]
fn dispatch_names_a_level() {
    // SAFETY: the buffers hold the capacities passed.
    let d = text(|b, c| unsafe { dgen4j_dispatch_level(b, c) });
    let level = d.split_whitespace().next().unwrap();
    assert!(["scalar", "avx2", "avx512"].contains(&level), "{d}");
}

#[test]
fn node_buffers_and_pinned_generators() {
    let size = (3 << 20) + 5;
    let mut p: *mut u8 = ptr::null_mut();
    // SAFETY: `p` is a valid place for the out pointer.
    assert_eq!(unsafe { dgen4j_numa_alloc(size, 0, &mut p) }, DGEN4J_OK);
    assert!(!p.is_null() && p as usize % 4096 == 0);
    let mut gen: *mut dgen4j_generator = ptr::null_mut();
    let mut plain: *mut dgen4j_generator = ptr::null_mut();
    // SAFETY: valid out pointers; the buffers hold the lengths passed; generators are live
    // until freed at the end.
    unsafe {
        assert_eq!(dgen4j_generator_new_numa(7, size, 4096, 2.0, 3.0, 2, DGEN4J_NUMA_FORCE, 0, &mut gen), DGEN4J_OK);
        assert_eq!(dgen4j_generator_new(7, size, 4096, 2.0, 3.0, 1, &mut plain), DGEN4J_OK);
        let plan = text(|b, c| dgen4j_generator_plan(gen, b, c));
        assert!(plan.starts_with("pinned yes\nmode force\nthreads 2\ngroup node 0 threads 2 cpus "), "{plan}");
        assert_eq!(dgen4j_generator_threads(gen), 2);
        assert_eq!(dgen4j_generator_fill(gen, 0, p, size), DGEN4J_OK);
        let mut want = vec![0u8; size as usize];
        assert_eq!(dgen4j_generator_fill(plain, 0, want.as_mut_ptr(), size), DGEN4J_OK);
        assert!(std::slice::from_raw_parts(p, size as usize) == &want[..]);
        let mut ns = 0u64;
        assert_eq!(dgen4j_bench_fill(gen, 0, p, 65536, 10, &mut ns), DGEN4J_OK);
        assert!(ns > 0);
        assert_eq!(dgen4j_bench_fill(gen, 0, p, 65536, 1, ptr::null_mut()), DGEN4J_ERR_INVALID_ARGUMENT);
        assert_eq!(dgen4j_bench_fill(gen, size, p, 1, 1, &mut ns), DGEN4J_ERR_OUT_OF_RANGE);
        assert_eq!(dgen4j_generator_plan(ptr::null(), ptr::null_mut(), 0), 0);
        let mut bad: *mut dgen4j_generator = 1usize as *mut dgen4j_generator;
        assert_eq!(dgen4j_generator_new_numa(7, size, 4096, 1.0, 1.0, 0, DGEN4J_NUMA_AUTO, 4000, &mut bad), DGEN4J_ERR_INVALID_ARGUMENT);
        assert!(bad.is_null());
        assert!(last_error().starts_with("NUMA node 4000 does not exist"), "{}", last_error());
        dgen4j_generator_free(gen);
        dgen4j_generator_free(plain);
        assert_eq!(dgen4j_numa_free(p, size + 4096), DGEN4J_ERR_INVALID_ARGUMENT);
        assert_eq!(dgen4j_numa_free(p, size), DGEN4J_OK);
        assert_eq!(dgen4j_numa_free(p, size), DGEN4J_ERR_INVALID_ARGUMENT);
        assert_eq!(dgen4j_numa_free(ptr::null_mut(), 0), DGEN4J_OK);
        assert_eq!(dgen4j_numa_alloc(0, -1, &mut p), DGEN4J_ERR_INVALID_ARGUMENT);
        assert!(p.is_null());
        assert_eq!(dgen4j_numa_alloc(4096, 9999, &mut p), DGEN4J_ERR_INVALID_ARGUMENT);
    }
}

#[test]
fn shared_node_buffers_are_memory_files_sendfile_can_read() {
    use std::io::{Read, Seek, SeekFrom};
    let size = (2 << 20) + 4096;
    let mut p: *mut u8 = ptr::null_mut();
    let mut fd = -1;
    // SAFETY: valid out pointers.
    assert_eq!(unsafe { dgen4j_numa_alloc_shared(size, -1, &mut p, &mut fd) }, DGEN4J_OK);
    assert!(!p.is_null() && p as usize % 4096 == 0 && fd >= 0);
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
    assert!(link.to_string_lossy().starts_with("/memfd:dgen4j-buffer"), "{link:?}");
    // Bytes written through the mapping are the file's bytes at the same offsets.
    // SAFETY: the buffer holds `size` writable bytes until freed below.
    let buf = unsafe { std::slice::from_raw_parts_mut(p, size as usize) };
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i * 7 % 251) as u8;
    }
    let mut f = std::fs::File::open(format!("/proc/self/fd/{fd}")).unwrap();
    assert_eq!(f.metadata().unwrap().len(), size);
    let mut back = vec![0u8; 8192];
    f.seek(SeekFrom::Start(size - 8192)).unwrap();
    f.read_exact(&mut back).unwrap();
    assert!(back[..] == buf[buf.len() - 8192..]);
    drop(f);
    // SAFETY: freed once with its size; `buf` is not used after.
    unsafe {
        assert_eq!(dgen4j_numa_free(p, size), DGEN4J_OK);
    }
    // free closed the descriptor (no other file of this test reuses it in between)
    assert!(std::fs::read_link(format!("/proc/self/fd/{fd}")).map_or(true, |l| !l.to_string_lossy().contains("dgen4j-buffer")));
    let (mut q, mut qfd) = (1usize as *mut u8, 5);
    // SAFETY: valid out pointers; a NULL one is refused.
    unsafe {
        assert_eq!(dgen4j_numa_alloc_shared(0, -1, &mut q, &mut qfd), DGEN4J_ERR_INVALID_ARGUMENT);
        assert!(q.is_null() && qfd == -1);
        assert_eq!(dgen4j_numa_alloc_shared(4096, -1, &mut q, ptr::null_mut()), DGEN4J_ERR_INVALID_ARGUMENT);
    }
}
