//! Every lesson that exists, in reading order: (slug, file under `lessons/`).
//!
//! Used by `web/build.rs` (which compiles each lesson's slug, title and summary into the site, for
//! the lesson list) and `cargo xtask lessons` (which writes the lesson files the site fetches, see
//! [`crate::file`](mod@crate::file)).

/// (slug, file under `lessons/`), in reading order.
pub const LESSON_FILES: &[(&str, &str)] = &[
    ("thundering-herd", "thundering-herd.md"),
    ("nginx-shmtx", "nginx-shmtx.md"),
    ("epoll-herd", "epoll-herd.md"),
    ("nginx-accept-mutex", "nginx-accept-mutex.md"),
    ("nginx-thread-pool", "nginx-thread-pool.md"),
    ("go-scheduler", "go-scheduler.md"),
    ("mysql-thread-per-connection", "mysql-thread-per-connection.md"),
];

/// A version tag of one lesson file: FNV-1a (64 bits, hex) over `parts` (the lesson's Markdown and
/// the code that splits and writes it, [`crate::lesson_version`]). `web/build.rs` compiles each
/// lesson's in and the page fetches
/// `lessons/<slug>.txt?v=<tag>`, so that a browser never reuses a cached file of another build.
pub fn version_tag(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}
