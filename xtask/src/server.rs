//! A small static file server (std only) for `dist/`.
//!
//! GET and HEAD only, `/` serves `index.html`, everything else is a plain file under the root or a
//! 404. It binds 127.0.0.1 only. One thread per connection, `Connection: close`.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// A server running in a background thread; dropped or [`Server::stop`]ped, it stops accepting.
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds `127.0.0.1:port` (port 0: a free port) and serves `root` in a background thread.
    pub fn start(root: &Path, port: u16) -> io::Result<Server> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let root = root.to_path_buf();
        let stop_flag = Arc::clone(&stop);
        let handle = thread::Builder::new()
            .name("static-server".into())
            .spawn(move || accept_loop(listener, root, stop_flag))?;
        Ok(Server {
            addr,
            stop,
            handle: Some(handle),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr())
    }

    /// Blocks until the server stops (in practice: until the process is interrupted).
    pub fn wait(mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }

    /// Stops accepting connections and waits for the accept loop to end.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept() so that it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(500));
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.shutdown();
        }
    }
}

fn accept_loop(listener: TcpListener, root: PathBuf, stop: Arc<AtomicBool>) {
    let root = Arc::new(root);
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let root = Arc::clone(&root);
        let _ = thread::Builder::new()
            .name("static-conn".into())
            .spawn(move || {
                let _ = handle_connection(stream, &root);
            });
    }
}

/// The answer to one request, before it is written out.
#[derive(Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

fn handle_connection(mut stream: TcpStream, root: &Path) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);

    // Request line, then headers up to the blank line (bounded, we need none of them).
    let mut request_line = String::new();
    if reader
        .by_ref()
        .take(8 * 1024)
        .read_line(&mut request_line)?
        == 0
    {
        return Ok(());
    }
    let mut header_bytes = 0usize;
    loop {
        let mut line = String::new();
        let n = reader.by_ref().take(8 * 1024).read_line(&mut line)?;
        header_bytes += n;
        if n == 0 || line == "\r\n" || line == "\n" || header_bytes > 64 * 1024 {
            break;
        }
    }

    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("");
    let head = method == "HEAD";
    let response = if method == "GET" || head {
        respond(root, target)
    } else {
        text(405, "method not allowed\n")
    };

    let reason = match response.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Error",
    };
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        response.status,
        reason,
        response.content_type,
        response.body.len()
    );
    if response.status == 405 {
        out.push_str("Allow: GET, HEAD\r\n");
    }
    out.push_str("\r\n");
    stream.write_all(out.as_bytes())?;
    if !head {
        stream.write_all(&response.body)?;
    }
    stream.flush()
}

fn text(status: u16, body: &str) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.as_bytes().to_vec(),
    }
}

/// Maps a request target to a file under `root` and reads it.
pub fn respond(root: &Path, target: &str) -> Response {
    let Some(path) = resolve(root, target) else {
        return text(400, "bad request\n");
    };
    match std::fs::read(&path) {
        Ok(body) if path.is_file() => Response {
            status: 200,
            content_type: mime_type(&path),
            body,
        },
        _ => text(404, "not found\n"),
    }
}

/// The file a request target names: `/` is `index.html`; the query and fragment are dropped;
/// `%XX` escapes are decoded; `..`, absolute components and NUL bytes are refused (None).
pub fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(path)?;
    if decoded.contains('\0') || decoded.contains('\\') {
        return None;
    }
    let relative = decoded.trim_start_matches('/');
    if relative.is_empty() {
        return Some(root.join("index.html"));
    }
    let mut out = root.to_path_buf();
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

fn percent_decode(input: &str) -> Option<String> {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = input.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The Content-Type for a file, by extension.
pub fn mime_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "txt" => "text/plain; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "xml" => "application/xml",
        "webmanifest" => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn temp_root(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-server-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("index.html"), "<!doctype html><p>hi</p>").unwrap();
        std::fs::write(dir.join("app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
        std::fs::write(dir.join("sub/a b.js"), "export {}").unwrap();
        dir
    }

    #[test]
    fn mime_types() {
        assert_eq!(mime_type(Path::new("x.wasm")), "application/wasm");
        assert_eq!(
            mime_type(Path::new("x.JS")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(mime_type(Path::new("x.html")), "text/html; charset=utf-8");
        assert_eq!(mime_type(Path::new("x.css")), "text/css; charset=utf-8");
        assert_eq!(mime_type(Path::new("x")), "application/octet-stream");
    }

    #[test]
    fn resolve_paths() {
        let root = Path::new("/srv");
        assert_eq!(resolve(root, "/"), Some(root.join("index.html")));
        assert_eq!(resolve(root, "/?x=1"), Some(root.join("index.html")));
        assert_eq!(resolve(root, "/a/b.js?v=2"), Some(root.join("a/b.js")));
        assert_eq!(resolve(root, "/a%20b.js"), Some(root.join("a b.js")));
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/a/%2e%2e/%2e%2e/x"), None);
        assert_eq!(resolve(root, "/a%00"), None);
        assert_eq!(resolve(root, "/%zz"), None);
        assert_eq!(resolve(root, "relative"), None);
    }

    #[test]
    fn responds_to_files_and_misses() {
        let root = temp_root("respond");
        let index = respond(&root, "/");
        assert_eq!(index.status, 200);
        assert_eq!(index.content_type, "text/html; charset=utf-8");
        let wasm = respond(&root, "/app_bg.wasm");
        assert_eq!(wasm.content_type, "application/wasm");
        assert_eq!(wasm.body, b"\0asm\x01\0\0\0");
        assert_eq!(respond(&root, "/sub/a%20b.js").status, 200);
        assert_eq!(respond(&root, "/missing.js").status, 404);
        assert_eq!(respond(&root, "/sub").status, 404);
        assert_eq!(respond(&root, "/../x").status, 400);
        let _ = std::fs::remove_dir_all(&root);
    }

    fn get(addr: SocketAddr, request: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut out = Vec::new();
        stream.read_to_end(&mut out).unwrap();
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn serves_over_tcp_on_localhost() {
        let root = temp_root("tcp");
        let server = Server::start(&root, 0).unwrap();
        let addr = server.addr();
        assert!(addr.ip().is_loopback());

        let index = get(addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(index.starts_with("HTTP/1.1 200 OK\r\n"), "{index}");
        assert!(index.contains("Content-Type: text/html; charset=utf-8\r\n"));
        assert!(index.ends_with("<p>hi</p>"));

        let wasm = get(addr, "GET /app_bg.wasm HTTP/1.1\r\n\r\n");
        assert!(wasm.contains("Content-Type: application/wasm\r\n"));
        assert!(wasm.contains("Content-Length: 8\r\n"));

        let head = get(addr, "HEAD /app_bg.wasm HTTP/1.1\r\n\r\n");
        assert!(head.contains("Content-Length: 8\r\n") && head.ends_with("\r\n\r\n"));

        assert!(get(addr, "GET /nope HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get(addr, "POST / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));

        server.stop();
        let _ = std::fs::remove_dir_all(&root);
    }
}
