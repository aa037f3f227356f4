//! A scratch file for benchmarks that do real blocking reads: bounded in size, in a fresh
//! directory of the system's temp dir, removed on every exit path.
//!
//! - Normal return and unwinding: [`ScratchFile`]'s `Drop` removes the file and its directory.
//! - A panic, whether it unwinds or aborts: a panic hook removes them before anything else runs.
//! - Ctrl-C, `SIGTERM`, `SIGHUP`: while a scratch file exists, a handler (installed once with
//!   `sigaction`) unlinks every registered file and removes its directory with the async-signal-safe
//!   `unlink(2)` and `rmdir(2)` on paths prepared beforehand, then hands the signal to the handler
//!   that was there before (`platform::interrupt`'s, which prints the partial report and exits
//!   with 128 + the signal), or, where there was none, restores the default action and re-raises
//!   the signal, so the process still dies of it (exit status 130 for Ctrl-C in a shell).
//!
//! Reads go to the disk where they can: after the file is written it is flushed (`fsync`) and its
//! pages dropped from the page cache (`posix_fadvise(POSIX_FADV_DONTNEED)`, which drops clean pages
//! without privileges), readahead is turned off (`POSIX_FADV_RANDOM`), and [`ScratchFile::read_next`]
//! visits the blocks in a scattered order, each once before any repeats. A file of at most
//! [`MAX_BYTES`] fits in most page caches, so once every block has been read the reads are cache
//! hits; [`ScratchFile::drop_cache`] drops the pages again.
//!
//! Generic: names no mechanism.

use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst};

/// The largest scratch file, bytes (64 MiB).
pub const MAX_BYTES: u64 = 64 << 20;

/// The size of one read, bytes.
pub const BLOCK: u64 = 4096;

/// Scratch files registered for the signal handler at once.
const SLOTS: usize = 4;

/// The file and directory paths the signal handler removes, as leaked C strings (null: free).
static FILES: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
static DIRS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// The handler each of [`SIGNALS`] had before ours (a function address; 0: the default, 1: ignored),
/// called after the files are gone, so `platform::interrupt`'s partial report still happens.
static PREVIOUS: [AtomicUsize; 3] = [const { AtomicUsize::new(0) }; 3];
static SEQ: AtomicU64 = AtomicU64::new(0);

/// The signals after which the scratch files are removed.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Remove every registered file and directory (async-signal-safe: swaps, `unlink`, `rmdir`).
fn remove_registered() {
    for i in 0..SLOTS {
        let f = FILES[i].swap(std::ptr::null_mut(), SeqCst);
        let d = DIRS[i].swap(std::ptr::null_mut(), SeqCst);
        // SAFETY: non-null pointers in the slots are leaked, NUL-terminated C strings that are
        // never freed while registered (unregister swaps them out before freeing); unlink and
        // rmdir are async-signal-safe.
        unsafe {
            if !f.is_null() {
                libc::unlink(f);
            }
            if !d.is_null() {
                libc::rmdir(d);
            }
        }
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    remove_registered();
    let previous = SIGNALS
        .iter()
        .position(|&s| s == sig)
        .map_or(libc::SIG_DFL, |i| PREVIOUS[i].load(SeqCst));
    if previous == libc::SIG_IGN {
        return;
    }
    if previous != libc::SIG_DFL {
        // SAFETY: `previous` is the address of the plain (not SA_SIGINFO) handler that sigaction
        // reported for `sig` before ours was installed; calling it as the kernel would is what it
        // expects.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(previous) };
        f(sig);
        return;
    }
    // SAFETY: restoring the default disposition and re-raising are async-signal-safe; the process
    // then ends as the signal would have ended it.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

fn install_handler() -> io::Result<()> {
    if INSTALLED.swap(true, SeqCst) {
        return Ok(());
    }
    // a panic may abort (no unwinding, no `Drop`): clean up first
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        remove_registered();
        previous(info);
    }));
    for (i, sig) in SIGNALS.into_iter().enumerate() {
        let mut sa = std::mem::MaybeUninit::<libc::sigaction>::zeroed();
        let mut old = std::mem::MaybeUninit::<libc::sigaction>::zeroed();
        // SAFETY: `sa` is a zeroed sigaction (a valid, empty one); we fill the handler and an empty
        // mask, then install it for `sig`, a catchable signal.
        let r = unsafe {
            let p = sa.as_mut_ptr();
            (*p).sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut (*p).sa_mask);
            (*p).sa_flags = 0;
            libc::sigaction(sig, p, old.as_mut_ptr())
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: sigaction succeeded, so it filled `old` (it was zeroed before, valid either way).
        let old = unsafe { old.assume_init() };
        let chained = if old.sa_flags & libc::SA_SIGINFO != 0 {
            libc::SIG_DFL
        } else {
            old.sa_sigaction
        };
        PREVIOUS[i].store(chained, SeqCst);
    }
    Ok(())
}

fn c_path(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
}

/// Register the paths for the signal handler; the slot, or an error when every slot is taken.
fn register(file: &Path, dir: &Path) -> io::Result<usize> {
    let f = c_path(file)?.into_raw();
    let d = c_path(dir)?.into_raw();
    for i in 0..SLOTS {
        if FILES[i]
            .compare_exchange(std::ptr::null_mut(), f, SeqCst, SeqCst)
            .is_ok()
        {
            DIRS[i].store(d, SeqCst);
            return Ok(i);
        }
    }
    // SAFETY: both were made by `CString::into_raw` above and never shared.
    unsafe {
        drop(CString::from_raw(f));
        drop(CString::from_raw(d));
    }
    Err(io::Error::other(format!(
        "at most {SLOTS} scratch files at once"
    )))
}

fn unregister(slot: usize) {
    let f = FILES[slot].swap(std::ptr::null_mut(), SeqCst);
    let d = DIRS[slot].swap(std::ptr::null_mut(), SeqCst);
    // SAFETY: non-null values were made by `CString::into_raw` in `register`; swapping them out
    // first means the handler can no longer see them.
    unsafe {
        if !f.is_null() {
            drop(CString::from_raw(f));
        }
        if !d.is_null() {
            drop(CString::from_raw(d));
        }
    }
}

/// Removes a scratch file and its directory, and unregisters them from the signal handler.
#[derive(Debug)]
struct Cleanup {
    dir: PathBuf,
    path: PathBuf,
    slot: usize,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        unregister(self.slot);
        let _ = fs::remove_file(&self.path);
        let _ = fs::remove_dir(&self.dir);
    }
}

/// A file of `len` bytes in a fresh temp directory, read one [`BLOCK`] at a time with `pread(2)`.
#[derive(Debug)]
pub struct ScratchFile {
    file: File,
    blocks: u64,
    next: AtomicU64,
    /// Last: the file is closed before it is removed.
    cleanup: Cleanup,
}

impl ScratchFile {
    /// Create the directory `herdlab-<pid>-<n>` in the system's temp dir (`TMPDIR`) and a file of
    /// `len` bytes in it (1 block to [`MAX_BYTES`], a multiple of [`BLOCK`]); flush it and drop it
    /// from the page cache. On any error nothing is left behind.
    pub fn create(len: u64) -> io::Result<Self> {
        if !(BLOCK..=MAX_BYTES).contains(&len) || len % BLOCK != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a scratch file is {BLOCK} to {MAX_BYTES} bytes, a multiple of {BLOCK}; not {len}"
                ),
            ));
        }
        install_handler()?;
        let dir = std::env::temp_dir().join(format!(
            "herdlab-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, SeqCst)
        ));
        let path = dir.join("blocks");
        // registered before anything exists, so a signal at any point finds the paths
        let slot = register(&path, &dir)?;
        // from here on, dropping `cleanup` removes whatever exists
        let cleanup = Cleanup { dir, path, slot };
        fs::create_dir(&cleanup.dir)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&cleanup.path)?;
        let mut chunk = vec![0u8; 1 << 20];
        let mut left = len;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            for b in chunk[..n].chunks_mut(8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b.copy_from_slice(&x.to_le_bytes()[..b.len()]);
            }
            file.write_all(&chunk[..n])?;
            left -= n as u64;
        }
        file.sync_all()?;
        let me = ScratchFile {
            file,
            blocks: len / BLOCK,
            next: AtomicU64::new(0),
            cleanup,
        };
        me.advise(libc::POSIX_FADV_RANDOM)?;
        me.drop_cache()?;
        Ok(me)
    }

    fn advise(&self, advice: libc::c_int) -> io::Result<()> {
        // SAFETY: the descriptor is this open file's; offset 0 and length 0 mean the whole file.
        let r = unsafe { libc::posix_fadvise(self.file.as_raw_fd(), 0, 0, advice) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        Ok(())
    }

    /// Drop the file's pages from the page cache, so the next reads go to the disk.
    pub fn drop_cache(&self) -> io::Result<()> {
        self.advise(libc::POSIX_FADV_DONTNEED)
    }

    /// Read the next block (a scattered order that visits every block once before repeating) with
    /// one blocking `pread(2)`; the bytes read.
    pub fn read_next(&self) -> io::Result<usize> {
        let i = self.next.fetch_add(1, SeqCst);
        let mut buf = [0u8; BLOCK as usize];
        self.file.read_at(&mut buf, self.offset(i))
    }

    /// The offset of the `i`-th read: blocks in the order of a stride coprime with the count.
    pub fn offset(&self, i: u64) -> u64 {
        let n = self.blocks;
        let mut stride = (n / 2 + 1) | 1;
        while gcd(stride, n) != 1 {
            stride += 2;
        }
        ((i % n) * stride % n) * BLOCK
    }

    /// The file's blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The directory the file is in.
    pub fn dir(&self) -> &Path {
        &self.cleanup.dir
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_block_once_then_cleans_up() {
        let f = ScratchFile::create(16 * BLOCK).expect("a scratch file");
        let dir = f.dir().to_path_buf();
        assert!(dir.exists());
        let mut seen: Vec<u64> = (0..16).map(|i| f.offset(i) / BLOCK).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..16).collect::<Vec<_>>());
        for _ in 0..20 {
            assert_eq!(f.read_next().unwrap(), BLOCK as usize);
        }
        drop(f);
        assert!(!dir.exists());
    }

    #[test]
    fn refuses_sizes_out_of_bounds() {
        for len in [0, BLOCK - 1, MAX_BYTES + BLOCK, BLOCK + 1] {
            let e = ScratchFile::create(len).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{len}");
        }
    }
}
