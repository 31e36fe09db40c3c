//! The constants of `native/src/sys` against the C headers, since a constant typed by hand
//! is typed wrong somewhere (O_DIRECT was, on aarch64).
//!
//! One C file names every constant of a table. The table of the host architecture is checked
//! against the machine's own headers: the file is compiled with `cc`, run, and prints each
//! value. The table of the other architecture is checked against that architecture's headers
//! through Debian's cross compiler (`aarch64-linux-gnu-gcc`, package gcc-aarch64-linux-gnu,
//! installed by .ci/run; `x86_64-linux-gnu-gcc` on an aarch64 host): the file is compiled to
//! assembly, where each value is the operand of its symbol's data directive. A missing
//! compiler fails the test with the package to install.
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dgen4j::sys::{linux_aarch64, linux_x86_64, Constant};

const PREFIX: &str = "dgen4j_const_";

/// The C file: one `long long` per constant, and a main that prints `NAME VALUE` lines.
fn c_source(table: &[Constant]) -> String {
    let mut s = String::from(
        "#define _GNU_SOURCE\n\
         #include <errno.h>\n#include <fcntl.h>\n#include <stdio.h>\n#include <sys/mman.h>\n\
         #include <sys/syscall.h>\n#include <unistd.h>\n#include <linux/falloc.h>\n\
         #include <linux/mempolicy.h>\n",
    );
    for c in table {
        s.push_str(&format!("const long long {PREFIX}{0} = (long long)({0});\n", c.name));
    }
    s.push_str("int main(void) {\n");
    for c in table {
        s.push_str(&format!("    printf(\"%s %lld\\n\", \"{0}\", {PREFIX}{0});\n", c.name));
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// A scratch directory, removed when dropped (a failing compiler leaves nothing behind).
struct WorkDir(PathBuf);

impl WorkDir {
    fn new(arch: &str) -> WorkDir {
        let dir = std::env::temp_dir().join(format!("dgen4j-sys-constants-{}-{arch}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        WorkDir(dir)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs `program`, failing with `install` as the remedy when it is not on the PATH.
fn run(program: &str, args: &[&str], dir: &Path, install: &str) -> Output {
    let out = Command::new(program).args(args).current_dir(dir).output().unwrap_or_else(|e| {
        if e.kind() == ErrorKind::NotFound {
            panic!(
                "{program} was not found on the PATH: this test compares native/src/sys with the C \
                 headers and needs it ({install})"
            )
        }
        panic!("cannot run {program}: {e}")
    });
    assert!(
        out.status.success(),
        "{program} {args:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The values of the host's headers: compiled with `cc`, run.
fn host_values(arch: &str, table: &[Constant]) -> BTreeMap<String, i64> {
    let work = WorkDir::new(arch);
    let dir = &work.0;
    fs::write(dir.join("constants.c"), c_source(table)).unwrap();
    run("cc", &["-std=gnu11", "-o", "constants", "constants.c"], dir, "Debian: apt-get install gcc");
    let out = run(dir.join("constants").to_str().unwrap(), &[], dir, "built a moment ago");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (name, value) = l.split_once(' ').unwrap_or_else(|| panic!("bad line {l:?}"));
            (name.to_string(), value.parse().unwrap_or_else(|_| panic!("bad value in {l:?}")))
        })
        .collect()
}

/// The values of another architecture's headers: compiled to assembly by `compiler`, read
/// from the directive after each `dgen4j_const_NAME:` label (`.quad N`, `.xword N`, `.zero 8`).
fn cross_values(arch: &str, compiler: &str, package: &str, table: &[Constant]) -> BTreeMap<String, i64> {
    let work = WorkDir::new(arch);
    let dir = &work.0;
    fs::write(dir.join("constants.c"), c_source(table)).unwrap();
    let install = format!("Debian package {package}; .ci/run installs it");
    run(compiler, &["-std=gnu11", "-S", "-o", "constants.s", "constants.c"], dir, &install);
    parse_assembly(&fs::read_to_string(dir.join("constants.s")).unwrap())
}

fn parse_assembly(asm: &str) -> BTreeMap<String, i64> {
    let mut values = BTreeMap::new();
    let mut pending: Option<String> = None;
    for line in asm.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix(PREFIX).and_then(|l| l.strip_suffix(':')) {
            pending = Some(name.to_string());
            continue;
        }
        let Some(name) = pending.as_ref() else { continue };
        let mut words = line.split_whitespace();
        let value = match (words.next(), words.next()) {
            (Some(".quad" | ".xword" | ".8byte" | ".dword"), Some(v)) => {
                v.parse().unwrap_or_else(|_| panic!("{name}: cannot read {line:?}"))
            }
            (Some(".zero"), Some("8")) => 0,
            (Some(d), _) if d.starts_with('.') && !d.starts_with(".zero") => continue, // .size, .type...
            _ => panic!("{name}: unexpected assembly after its label: {line:?}"),
        };
        values.insert(name.clone(), value);
        pending = None;
    }
    values
}

/// Every constant of `table` has the headers' value; all differences in one message.
fn compare(file: &str, table: &[Constant], headers: &BTreeMap<String, i64>) {
    assert!(!table.is_empty());
    let wrong: Vec<String> = table
        .iter()
        .filter(|c| headers.get(c.name) != Some(&c.value))
        .map(|c| match headers.get(c.name) {
            Some(h) => format!(
                "{} is {} ({:#o}) in native/src/sys/{file} but {h} ({h:#o}) in the headers ({})",
                c.name, c.value, c.value, c.header
            ),
            None => format!("{}: the headers printed no value", c.name),
        })
        .collect();
    assert!(wrong.is_empty(), "native/src/sys/{file} disagrees with the C headers:\n{}", wrong.join("\n"));
}

/// Checks the table of `arch` with the host compiler on that architecture, else with the
/// cross compiler.
fn check(arch: &str, table: &[Constant]) {
    let file = format!("linux_{arch}.rs");
    let values = if std::env::consts::ARCH == arch {
        host_values(arch, table)
    } else {
        let compiler = format!("{arch}-linux-gnu-gcc");
        let package = format!("gcc-{}-linux-gnu", arch.replace('_', "-"));
        cross_values(arch, &compiler, &package, table)
    };
    assert_eq!(values.len(), table.len(), "one value per constant: {values:?}");
    compare(&file, table, &values);
}

#[test]
fn x86_64_constants_are_the_x86_64_headers() {
    check("x86_64", linux_x86_64::ALL);
}

#[test]
fn aarch64_constants_are_the_aarch64_headers() {
    check("aarch64", linux_aarch64::ALL);
}

#[test]
fn the_assembly_of_both_compilers_is_read() {
    let x86 = "dgen4j_const_O_DIRECT:\n\t.quad\t16384\n\t.globl\tdgen4j_const_X\n\t.section\t.rodata\n\
               \t.align 8\n\t.type\tdgen4j_const_X, @object\n\t.size\tdgen4j_const_X, 8\ndgen4j_const_X:\n\t.zero\t8\n";
    let arm = "dgen4j_const_O_DIRECT:\n\t.xword\t65536\n";
    assert_eq!(parse_assembly(x86), BTreeMap::from([("O_DIRECT".into(), 16384), ("X".into(), 0)]));
    assert_eq!(parse_assembly(arm), BTreeMap::from([("O_DIRECT".into(), 65536)]));
}

#[test]
fn a_wrong_constant_is_reported_with_its_header() {
    let mut table = linux_aarch64::ALL.to_vec();
    table[0].value = 0o40000; // the x86-64 O_DIRECT, which is O_DIRECTORY on aarch64
    let mut headers: BTreeMap<String, i64> = table.iter().map(|c| (c.name.to_string(), c.value)).collect();
    headers.insert("O_DIRECT".into(), 0o200000);
    let e = std::panic::catch_unwind(|| compare("linux_aarch64.rs", &table, &headers)).unwrap_err();
    let msg = e.downcast_ref::<String>().unwrap();
    let want = "O_DIRECT is 16384 (0o40000) in native/src/sys/linux_aarch64.rs but 65536 (0o200000)";
    assert!(msg.contains(want), "{msg}");
    assert!(msg.contains("arch/arm64/include/uapi/asm/fcntl.h"), "{msg}");
}

#[test]
fn the_exported_constants_are_the_targets() {
    let table = match std::env::consts::ARCH {
        "x86_64" => linux_x86_64::ALL,
        "aarch64" => linux_aarch64::ALL,
        other => panic!("no table for {other}"),
    };
    assert_eq!(dgen4j::sys::arch::ALL, table);
    let get = |n: &str| table.iter().find(|c| c.name == n).unwrap().value;
    assert_eq!(i64::from(dgen4j::sys::O_DIRECT), get("O_DIRECT"));
    assert_eq!(dgen4j::sys::SYS_mbind, get("SYS_mbind"));
}
