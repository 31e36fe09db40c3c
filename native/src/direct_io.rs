//! Positional file I/O for checkpoints, with O_DIRECT where the filesystem allows it.
//!
//! O_DIRECT moves data between the caller's buffer and the device without the page cache,
//! which is what a storage benchmark must measure. It needs the buffer address, the file
//! offset and the length aligned to [`ALIGN`]. The aligned body of a request goes through the
//! O_DIRECT descriptor; an unaligned tail (the end of a checkpoint whose size is not a
//! multiple of 4 KiB) goes through a second, buffered descriptor of the same file, so that
//! no padding is ever written. The two never touch the same page.
//!
//! Short writes and EINTR are retried (`write_all_at`); every error names the path, the
//! offset and the length.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::sys;

/// Alignment of buffer addresses, offsets and lengths for O_DIRECT.
pub const ALIGN: u64 = 4096;

/// Open for reading only.
pub const FLAG_READ: u32 = 1;
/// Open for writing: create, or truncate an existing file.
pub const FLAG_WRITE: u32 = 2;
/// With `FLAG_WRITE`: fail if the file exists.
pub const FLAG_CREATE_NEW: u32 = 4;
/// Use O_DIRECT when the filesystem allows it, buffered I/O otherwise.
pub const FLAG_DIRECT: u32 = 8;
/// Use O_DIRECT or fail.
pub const FLAG_REQUIRE_DIRECT: u32 = 16;
const KNOWN_FLAGS: u32 = FLAG_READ | FLAG_WRITE | FLAG_CREATE_NEW | FLAG_DIRECT | FLAG_REQUIRE_DIRECT;

/// An open checkpoint file.
#[derive(Debug)]
pub struct DirectFile {
    path: PathBuf,
    /// The O_DIRECT descriptor when `direct`, else the only (buffered) one.
    file: File,
    /// A buffered descriptor for unaligned tails, when `direct`.
    tail: Option<File>,
    direct: bool,
}

impl DirectFile {
    /// Opens `path` with `flags` (the `FLAG_*` bits); `preallocate` > 0 reserves that many
    /// bytes with `fallocate` (keeping the size), so a full disk fails here rather than midway.
    pub fn open(path: &Path, flags: u32, preallocate: u64) -> Result<DirectFile, Error> {
        if flags & !KNOWN_FLAGS != 0 {
            return Err(Error::invalid(format!("unknown flags {:#x} for {}", flags & !KNOWN_FLAGS, path.display())));
        }
        let write = flags & FLAG_WRITE != 0;
        if write == (flags & FLAG_READ != 0) {
            return Err(Error::invalid(format!("open {}: give exactly one of READ and WRITE", path.display())));
        }
        let mut opts = OpenOptions::new();
        opts.read(true).mode(0o644);
        if write {
            opts.write(true);
            if flags & FLAG_CREATE_NEW != 0 {
                opts.create_new(true);
            } else {
                opts.create(true).truncate(true);
            }
        }
        let what = if write { "create" } else { "open" };
        let file = opts.open(path).map_err(|e| Error::io(format!("cannot {what} {}: {e}", path.display())))?;
        let result = Self::prepare(path, file, flags, preallocate);
        if result.is_err() && flags & FLAG_CREATE_NEW != 0 {
            // We created it a moment ago: leave nothing behind.
            let _ = std::fs::remove_file(path);
        }
        result
    }

    /// Switches an opened file to O_DIRECT as asked and reserves its space.
    fn prepare(path: &Path, file: File, flags: u32, preallocate: u64) -> Result<DirectFile, Error> {
        let write = flags & FLAG_WRITE != 0;
        let mut direct = false;
        if flags & (FLAG_DIRECT | FLAG_REQUIRE_DIRECT) != 0 {
            match sys::set_direct(&file) {
                Ok(()) => direct = true,
                Err(e) if flags & FLAG_REQUIRE_DIRECT != 0 => {
                    return Err(Error::io(format!(
                        "O_DIRECT is not available for {} (the filesystem refused it: {e})",
                        path.display()
                    )));
                }
                Err(_) => {}
            }
        }
        let tail = if direct {
            let t = OpenOptions::new().read(true).write(write).open(path);
            Some(t.map_err(|e| Error::io(format!("cannot reopen {} for its unaligned tail: {e}", path.display())))?)
        } else {
            None
        };
        if write && preallocate > 0 {
            let len = i64::try_from(preallocate).map_err(|_| Error::invalid("preallocate exceeds 2^63"))?;
            // Filesystems without fallocate simply skip the reservation (Ok(false)).
            if let Err(e) = sys::reserve(&file, len) {
                return Err(Error::io(format!("cannot reserve {preallocate} bytes for {}: {e}", path.display())));
            }
        }
        Ok(DirectFile { path: path.to_path_buf(), file, tail, direct })
    }

    /// Whether the data path uses O_DIRECT.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    fn check_aligned(&self, offset: u64, addr: usize, op: &str) -> Result<(), Error> {
        if self.direct && (offset % ALIGN != 0 || addr as u64 % ALIGN != 0) {
            return Err(Error::invalid(format!(
                "{op} {}: O_DIRECT needs a {ALIGN}-aligned offset and buffer, got offset {offset} and address {addr:#x}",
                self.path.display()
            )));
        }
        Ok(())
    }

    /// Writes all of `buf` at `offset`.
    pub fn write_at(&self, offset: u64, buf: &[u8]) -> Result<(), Error> {
        self.check_aligned(offset, buf.as_ptr() as usize, "write to")?;
        let (body, tail) = self.split(buf.len());
        let err = |at: u64, len: usize, e: io::Error| {
            Error::io(format!("write of {len} bytes to {} at offset {at} failed: {e}", self.path.display()))
        };
        if body > 0 {
            self.file.write_all_at(&buf[..body], offset).map_err(|e| err(offset, body, e))?;
        }
        if tail > 0 {
            let at = offset + body as u64;
            self.tail_file().write_all_at(&buf[body..], at).map_err(|e| err(at, tail, e))?;
        }
        Ok(())
    }

    /// Reads up to `buf.len()` bytes at `offset`; returns the count (short only at end of file).
    pub fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<usize, Error> {
        self.check_aligned(offset, buf.as_ptr() as usize, "read from")?;
        let len = buf.len();
        let (body, _) = self.split(len);
        let err = |at: u64, e: io::Error| {
            Error::io(format!("read of {len} bytes from {} at offset {at} failed: {e}", self.path.display()))
        };
        let mut done = read_full(&self.file, &mut buf[..body], offset).map_err(|e| err(offset, e))?;
        if done == body && body < len {
            let at = offset + body as u64;
            done += read_full(self.tail_file(), &mut buf[body..], at).map_err(|e| err(at, e))?;
        }
        Ok(done)
    }

    /// Passes `advice` (POSIX_FADV_*) for the range to the kernel.
    pub fn fadvise(&self, offset: u64, len: u64, advice: i32) -> Result<(), Error> {
        let (Ok(off), Ok(n)) = (i64::try_from(offset), i64::try_from(len)) else {
            return Err(Error::invalid("fadvise range exceeds 2^63"));
        };
        sys::fadvise(&self.file, off, n, advice)
            .map_err(|e| Error::io(format!("fadvise({advice}) on {} failed: {e}", self.path.display())))
    }

    /// Makes written data durable (fsync).
    pub fn sync(&self) -> Result<(), Error> {
        self.file.sync_all().map_err(|e| Error::io(format!("fsync of {} failed: {e}", self.path.display())))
    }

    /// The O_DIRECT body and buffered tail lengths of a request of `len` bytes.
    fn split(&self, len: usize) -> (usize, usize) {
        if self.direct {
            let body = len - len % ALIGN as usize;
            (body, len - body)
        } else {
            (len, 0)
        }
    }

    fn tail_file(&self) -> &File {
        self.tail.as_ref().unwrap_or(&self.file)
    }
}

/// Reads until `buf` is full or end of file, retrying EINTR and short reads.
fn read_full(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4 KiB-aligned buffer (Vec<u8> gives no alignment guarantee).
    struct Aligned {
        storage: Vec<u8>,
        start: usize,
        len: usize,
    }

    impl Aligned {
        fn new(len: usize) -> Aligned {
            let storage = vec![0u8; len + ALIGN as usize];
            let start = (ALIGN as usize - storage.as_ptr() as usize % ALIGN as usize) % ALIGN as usize;
            Aligned { storage, start, len }
        }
        fn bytes(&mut self) -> &mut [u8] {
            &mut self.storage[self.start..self.start + self.len]
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dgen4j-direct-io-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("f")
    }

    #[test]
    fn direct_write_with_unaligned_tail_reads_back() {
        let path = temp("tail");
        let mut buf = Aligned::new(3 * 4096 + 123);
        for (i, b) in buf.bytes().iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8;
        }
        let f = DirectFile::open(&path, FLAG_WRITE | FLAG_DIRECT, 1 << 20).unwrap();
        f.write_at(8192, buf.bytes()).unwrap();
        f.sync().unwrap();
        drop(f);
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len(), 8192 + 3 * 4096 + 123, "no padding written, fallocate kept the size");
        assert_eq!(&data[8192..], &buf.storage[buf.start..buf.start + buf.len]);

        let r = DirectFile::open(&path, FLAG_READ | FLAG_DIRECT, 0).unwrap();
        let mut back = Aligned::new(4 * 4096);
        let n = r.read_at(8192, back.bytes()).unwrap();
        assert_eq!(n, 3 * 4096 + 123);
        assert_eq!(&back.bytes()[..n], &data[8192..]);
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn misaligned_direct_requests_are_refused_with_the_path() {
        let path = temp("misaligned");
        let f = DirectFile::open(&path, FLAG_WRITE | FLAG_DIRECT, 0).unwrap();
        if f.is_direct() {
            let mut buf = Aligned::new(8192);
            let e = f.write_at(100, buf.bytes()).unwrap_err();
            assert!(e.message().contains("O_DIRECT needs a 4096-aligned offset"), "{}", e.message());
            assert!(e.message().contains(path.to_str().unwrap()));
            let e = f.write_at(0, &buf.bytes()[1..]).unwrap_err();
            assert!(e.message().contains("address"), "{}", e.message());
        }
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn flags_are_validated() {
        let path = temp("flags");
        assert!(DirectFile::open(&path, FLAG_READ | FLAG_WRITE, 0).is_err());
        assert!(DirectFile::open(&path, 0, 0).is_err());
        assert!(DirectFile::open(&path, FLAG_WRITE | 1024, 0).unwrap_err().message().contains("unknown flags"));
        DirectFile::open(&path, FLAG_WRITE | FLAG_CREATE_NEW, 0).unwrap();
        let e = DirectFile::open(&path, FLAG_WRITE | FLAG_CREATE_NEW, 0).unwrap_err();
        assert!(e.message().starts_with("cannot create "), "{}", e.message());
        let missing = path.parent().unwrap().join("no/such/dir/f");
        let e = DirectFile::open(&missing, FLAG_READ, 0).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Io);
        assert!(e.message().contains("No such file or directory"), "{}", e.message());
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }

    #[test]
    fn buffered_files_take_any_alignment() {
        let path = temp("buffered");
        let f = DirectFile::open(&path, FLAG_WRITE, 0).unwrap();
        assert!(!f.is_direct());
        f.write_at(3, b"hello").unwrap();
        f.fadvise(0, 0, 4).unwrap();
        f.sync().unwrap();
        let mut back = [0u8; 16];
        assert_eq!(f.read_at(0, &mut back).unwrap(), 8);
        assert_eq!(&back[3..8], b"hello");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    }
}
