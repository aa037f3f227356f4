//! herdlab's set-up, build, serve and test tasks: `cargo xtask <setup|build|serve|test|lessons|fuzz>`.
//!
//! std only, besides the site's lesson splitter (crate `herdlab-lessons`, for `lessons.rs`), core's charts
//! (`herdlab_core::chart`, for the lessons' charts, `lesson_charts.rs`) and
//! serde with toml and serde_json (for the pinned versions, `pins.rs`). Tool versions are pinned in
//! `Trunk.toml` (see `pins.rs`).

mod fuzz;
mod lesson_charts;
mod lessons;
mod pins;
mod server;
mod setup;

use std::env;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  setup               install what is missing: the wasm32 target, trunk, wasm-bindgen-cli,
                      the npm packages in tests/e2e (playwright-core, binaryen's wasm-opt), chromium
  build               setup, then `trunk build --release` into dist/
  serve [--port N]    setup, build, then serve dist/ on http://127.0.0.1:N (default 8080)
  test                setup, fmt, clippy (native and wasm), cargo test, core's tests on wasm,
                      trunk build (and the wasm size budget), browser tests; stops at the first
                      failure
  lessons             write the lesson files the site fetches (web/generated/lessons/*.txt);
                      trunk runs this itself before each build (Trunk.toml's pre_build hook)
  fuzz [--minutes N] [--scale S]
                      the parsers' fuzz properties (query, JSON, trace and results files,
                      command line, route, blocks, lesson files) at S times the cases
                      of `cargo test` (default 50), round after round for N minutes
                      (default 10, at most 1440)
";

/// The most the site's main wasm (`dist/herdlab-web-*_bg.wasm`) may weigh gzipped (`gzip -9`):
/// 300 KiB, a target of the project's foundation issue. `cargo xtask test` fails above it.
pub const MAIN_WASM_BUDGET: u64 = 300 * 1024;

pub const DEFAULT_PORT: u16 = 8080;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let ctx = Ctx::new();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup::ensure(&ctx, setup::Need::Everything).map(|_| ()),
        Some("build") => build(&ctx),
        Some("serve") => parse_port(&args[1..]).and_then(|port| serve(&ctx, port)),
        Some("test") => test(&ctx),
        Some("lessons") => lessons::write(&ctx).map(|_| ()),
        Some("fuzz") => {
            fuzz::parse_args(&args[1..]).and_then(|(min, scale)| fuzz::fuzz(&ctx, min, scale))
        }
        Some("help" | "-h" | "--help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
        None => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("\nxtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Where things are, and how to run tools.
pub struct Ctx {
    pub root: PathBuf,
    pub cargo: OsString,
}

impl Ctx {
    fn new() -> Ctx {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives one level below the repository root")
            .to_path_buf();

        // Tools that setup installs live in ~/.cargo/bin (trunk, wasm-bindgen, the test runner)
        // and tests/e2e/node_modules/.bin (wasm-opt from npm binaryen). Put both first on PATH
        // for us and every child process (trunk looks wasm-opt and wasm-bindgen up on PATH).
        let first = [root.join("tests/e2e/node_modules/.bin"), cargo_bin()];
        let mut path = first.to_vec();
        if let Some(old) = env::var_os("PATH") {
            path.extend(env::split_paths(&old).filter(|p| !first.contains(p)));
        }
        let joined = env::join_paths(path).expect("PATH entries without ':'");
        // Single-threaded at this point: nothing else reads the environment concurrently.
        env::set_var("PATH", joined);

        let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        Ctx { root, cargo }
    }

    /// A command that runs in the repository root.
    pub fn cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root);
        cmd
    }

    pub fn cargo(&self) -> Command {
        self.cmd(&self.cargo)
    }
}

fn cargo_bin() -> PathBuf {
    match env::var_os("CARGO_HOME") {
        Some(home) => PathBuf::from(home).join("bin"),
        None => {
            PathBuf::from(env::var_os("HOME").unwrap_or_else(|| "/root".into())).join(".cargo/bin")
        }
    }
}

/// Prints the command, runs it with inherited stdio, and fails unless it exits 0.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = show(cmd);
    println!("$ {shown}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// Runs a command quietly and returns its stdout if it exited 0.
pub fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn show(cmd: &Command) -> String {
    let mut parts: Vec<String> = cmd
        .get_envs()
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_string_lossy(), v?.to_string_lossy())))
        .filter(|kv| !kv.starts_with("PATH="))
        .collect();
    parts.push(cmd.get_program().to_string_lossy().into_owned());
    parts.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

fn parse_port(args: &[String]) -> Result<u16, String> {
    let mut port = DEFAULT_PORT;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = if arg == "--port" || arg == "-p" {
            it.next().ok_or("--port needs a value")?.clone()
        } else if let Some(v) = arg.strip_prefix("--port=") {
            v.to_string()
        } else {
            return Err(format!("unknown argument `{arg}` for serve\n\n{USAGE}"));
        };
        port = value
            .parse()
            .map_err(|_| format!("--port: `{value}` is not a port number"))?;
    }
    Ok(port)
}

/// `trunk build --release` (offline, tools from PATH) into dist/, then the wasm sizes: over
/// [`MAIN_WASM_BUDGET`] is an error when `enforce_budget`, else a warning.
fn trunk_build(ctx: &Ctx, enforce_budget: bool) -> Result<(), String> {
    // trunk passes --offline to cargo (Trunk.toml `offline = true`), so fetch crates first.
    run(ctx.cargo().arg("fetch"))?;
    run(ctx
        .cmd("trunk")
        .args(["build", "--release"])
        .env("TRUNK_SKIP_VERSION_CHECK", "true"))?;
    let index = ctx.root.join("dist/index.html");
    if !index.is_file() {
        return Err(format!("trunk finished but {} is missing", index.display()));
    }
    let dist = ctx.root.join("dist");
    report_dist(&dist);
    wasm_budget(&dist, enforce_budget)
}

fn report_dist(dist: &Path) {
    let Ok(entries) = std::fs::read_dir(dist) else {
        return;
    };
    let mut files: Vec<(String, u64)> = entries
        .flatten()
        .filter_map(|e| {
            let mut name = e.file_name().to_string_lossy().into_owned();
            let meta = e.metadata().ok()?;
            if !meta.is_dir() {
                return Some((name, meta.len()));
            }
            // A folder (lessons/): its files' total.
            let (mut n, mut len) = (0, 0);
            for f in std::fs::read_dir(e.path()).ok()?.flatten() {
                n += 1;
                len += f.metadata().map_or(0, |m| m.len());
            }
            name.push_str(&format!("/ ({n} files)"));
            Some((name, len))
        })
        .collect();
    files.sort();
    println!("dist/:");
    for (name, len) in files {
        println!("  {name:<48} {:>10} bytes", len);
    }
}

/// Prints the raw and gzipped (`gzip -9`) sizes of the main wasm, the check worker's and the lazy
/// bundle's (loaded by a page that needs it, no budget), and checks
/// the main one against [`MAIN_WASM_BUDGET`].
fn wasm_budget(dist: &Path, enforce: bool) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dist).map_err(|e| format!("cannot read {}: {e}", dist.display()))?;
    let mut mains: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("herdlab-web-") && n.ends_with("_bg.wasm"))
        })
        .collect();
    let main = match mains.as_mut_slice() {
        [one] => one.clone(),
        [] => return Err(format!("no herdlab-web-*_bg.wasm in {}", dist.display())),
        many => {
            many.sort();
            return Err(format!(
                "several herdlab-web-*_bg.wasm in {}: {many:?}",
                dist.display()
            ));
        }
    };
    let worker = dist.join("check_worker_bg.wasm");
    // the lazily loaded bundle (web/src/bin/lazy.rs): no budget, its size is reported
    let lazy = dist.join("lazy_bg.wasm");
    println!("wasm sizes (gzip -9):");
    let mut main_gz = 0;
    for (path, is_main) in [(&main, true), (&worker, false), (&lazy, false)] {
        let raw = std::fs::metadata(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .len();
        let gz = gzip_size(path)?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let note = if is_main {
            main_gz = gz;
            format!("  (budget {MAIN_WASM_BUDGET} B gzipped)")
        } else {
            String::new()
        };
        println!("  {name:<40} {raw:>9} B raw {gz:>9} B gzipped{note}");
    }
    if main_gz <= MAIN_WASM_BUDGET {
        println!(
            "wasm budget: ok, the main wasm is {} B under {MAIN_WASM_BUDGET} B gzipped",
            MAIN_WASM_BUDGET - main_gz
        );
        return Ok(());
    }
    let message = format!(
        "the main wasm {} is {main_gz} B gzipped (gzip -9), {} B over its budget of {MAIN_WASM_BUDGET} B \
         (300 KiB; see \"Size budget\" in README.md)",
        main.display(),
        main_gz - MAIN_WASM_BUDGET
    );
    if enforce {
        Err(message)
    } else {
        println!("wasm budget: warning: {message}");
        Ok(())
    }
}

/// The size of `path` compressed by `gzip -9`.
fn gzip_size(path: &Path) -> Result<u64, String> {
    let out = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run gzip (needed for the wasm size budget): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`gzip -9 -c {}` failed ({})",
            path.display(),
            out.status
        ));
    }
    Ok(out.stdout.len() as u64)
}

fn build(ctx: &Ctx) -> Result<(), String> {
    setup::ensure(ctx, setup::Need::Build)?;
    trunk_build(ctx, false)
}

fn serve(ctx: &Ctx, port: u16) -> Result<(), String> {
    build(ctx)?;
    let dist = ctx.root.join("dist");
    let server = server::Server::start(&dist, port)
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e} (try --port N)"))?;
    println!(
        "\nserving {} on {}/  (Ctrl-C to stop)",
        dist.display(),
        server.url()
    );
    server.wait();
    Ok(())
}

struct Stage {
    name: &'static str,
    outcome: Option<(bool, Duration)>,
}

fn test(ctx: &Ctx) -> Result<(), String> {
    type Step<'a> = Box<dyn Fn() -> Result<(), String> + 'a>;
    let stages: Vec<(&'static str, Step)> = vec![
        (
            "setup",
            Box::new(|| setup::ensure(ctx, setup::Need::Everything).map(|_| ())),
        ),
        (
            "fmt",
            Box::new(|| run(ctx.cargo().args(["fmt", "--all", "--", "--check"]))),
        ),
        (
            "clippy (native)",
            Box::new(|| {
                run(ctx.cargo().args([
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ]))
            }),
        ),
        (
            "clippy (web, wasm32)",
            Box::new(|| {
                run(ctx.cargo().args([
                    "clippy",
                    "-p",
                    "herdlab-web",
                    "--target",
                    "wasm32-unknown-unknown",
                    "--",
                    "-D",
                    "warnings",
                ]))
            }),
        ),
        (
            "clippy (web's lazy bundle, wasm32)",
            Box::new(|| {
                run(ctx.cargo().args([
                    "clippy",
                    "-p",
                    "herdlab-web",
                    "--bin",
                    "lazy",
                    "--features",
                    "lazy",
                    "--target",
                    "wasm32-unknown-unknown",
                    "--",
                    "-D",
                    "warnings",
                ]))
            }),
        ),
        (
            "cargo test",
            Box::new(|| run(ctx.cargo().args(["test", "--workspace"]))),
        ),
        (
            "cargo test (web, lazy feature)",
            // the site code only the lazy bundle carries (lazy-only mechanisms' folders, the
            // results and trace pages) is compiled out of the plain `cargo test`
            Box::new(|| {
                run(ctx
                    .cargo()
                    .args(["test", "-p", "herdlab-web", "--features", "lazy"]))
            }),
        ),
        (
            "core tests (wasm32, node)",
            Box::new(|| core_wasm_tests(ctx)),
        ),
        ("trunk build", Box::new(|| trunk_build(ctx, true))),
        ("browser tests", Box::new(|| browser_tests(ctx))),
    ];

    let mut summary: Vec<Stage> = stages
        .iter()
        .map(|(name, _)| Stage {
            name,
            outcome: None,
        })
        .collect();
    let started = Instant::now();
    let mut failure = None;
    for (i, (name, step)) in stages.iter().enumerate() {
        println!("\n=== [{}/{}] {name}", i + 1, stages.len());
        let t = Instant::now();
        let result = step();
        let took = t.elapsed();
        let ok = result.is_ok();
        summary[i].outcome = Some((ok, took));
        println!(
            "=== {name}: {} in {}",
            if ok { "ok" } else { "FAILED" },
            secs(took)
        );
        if let Err(e) = result {
            failure = Some(format!("stage `{name}` failed: {e}"));
            break;
        }
    }

    println!("\n=== summary");
    for stage in &summary {
        let (status, took) = match stage.outcome {
            Some((true, d)) => ("ok", secs(d)),
            Some((false, d)) => ("FAILED", secs(d)),
            None => ("skipped", String::new()),
        };
        println!("  {:<28} {:<8} {:>8}", stage.name, status, took);
    }
    println!("  {:<28} {:<8} {:>8}", "total", "", secs(started.elapsed()));
    match failure {
        Some(e) => Err(e),
        None => {
            println!("\nall stages passed");
            Ok(())
        }
    }
}

/// `cargo test -p herdlab-core --features eevdf,coherence,mutex-spin,futex-entry --target wasm32-unknown-unknown` under wasm-bindgen-test-runner
/// (Node). Its output is passed through and read: the runner only sees `#[wasm_bindgen_test]`
/// functions and skips plain `#[test]` ones with "no tests to run!", so a run in which it executed
/// no test at all is a failure, not a pass.
fn core_wasm_tests(ctx: &Ctx) -> Result<(), String> {
    let mut cmd = ctx.cargo();
    cmd.args([
        "test",
        "-p",
        "herdlab-core",
        // (the EEVDF policy, the coherence cost and the mutexes' spin phase and futex_wait's entry too: the site's
        // lazy bundle runs them)
        "--features",
        "eevdf,coherence,mutex-spin,futex-entry",
        "--target",
        "wasm32-unknown-unknown",
    ])
    .env(
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
        "wasm-bindgen-test-runner",
    )
    .stdout(Stdio::piped());
    let shown = show(&cmd);
    println!("$ {shown}");
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    let stdout = child.stdout.take().expect("piped stdout");
    let mut ran = 0u64;
    let mut empty_binaries = 0u64;
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading the output of `{shown}`: {e}"))?;
        println!("{line}");
        if let Some(n) = runner_passed(&line) {
            ran += n;
        }
        if line.trim() == "no tests to run!" {
            empty_binaries += 1;
        }
    }
    let status = child.wait().map_err(|e| format!("`{shown}`: {e}"))?;
    if !status.success() {
        return Err(format!("`{shown}` failed ({status})"));
    }
    println!("wasm-bindgen-test-runner ran {ran} test(s); {empty_binaries} test binary(ies) had none it could run");
    if ran == 0 {
        return Err(
            "core's tests compiled to wasm32 ran 0 tests under wasm-bindgen-test-runner: it runs only \
             #[wasm_bindgen_test] functions. In each test module (and at the top of each core/tests/*.rs) add \
             `#[cfg(target_arch = \"wasm32\")] use wasm_bindgen_test::wasm_bindgen_test as test;` \
             (this also covers proptest!), and give core the wasm32 dev-dependency \
             `getrandom = { version = \"0.4\", features = [\"wasm_js\"] }` if proptest is used"
                .into(),
        );
    }
    Ok(())
}

/// The passed count of a wasm-bindgen-test-runner summary line, e.g.
/// "test result: ok. 2 passed; 0 failed; 0 ignored; 0 filtered out; finished in 0.02s".
/// libtest's own summary (doctests) also says "measured"; the runner's does not.
fn runner_passed(line: &str) -> Option<u64> {
    let rest = line.trim().strip_prefix("test result: ok. ")?;
    if rest.contains(" measured") {
        return None;
    }
    rest.split(" passed").next()?.trim().parse().ok()
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

/// Serves dist/ on a free port and runs `node --test` on tests/e2e/*.test.mjs against it.
fn browser_tests(ctx: &Ctx) -> Result<(), String> {
    let dir = ctx.root.join("tests/e2e");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no *.test.mjs files in {}", dir.display()));
    }
    let server = server::Server::start(&ctx.root.join("dist"), 0)
        .map_err(|e| format!("cannot start the static server: {e}"))?;
    println!("static server for dist/ on {}", server.url());
    let mut cmd = ctx.cmd("node");
    cmd.arg("--test")
        .args(files.iter().map(|f| f.strip_prefix(&ctx.root).unwrap_or(f)))
        .env("HERDLAB_URL", server.url());
    let result = run(&mut cmd);
    server.stop();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_summary_lines() {
        assert_eq!(
            runner_passed(
                "test result: ok. 2 passed; 0 failed; 0 ignored; 0 filtered out; finished in 0.02s"
            ),
            Some(2)
        );
        assert_eq!(
            runner_passed("test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.06s"),
            None
        );
        assert_eq!(runner_passed("no tests to run!"), None);
    }

    #[test]
    fn ports() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(parse_port(&args(&[])), Ok(DEFAULT_PORT));
        assert_eq!(parse_port(&args(&["--port", "9000"])), Ok(9000));
        assert_eq!(parse_port(&args(&["--port=9001"])), Ok(9001));
        assert!(parse_port(&args(&["--port", "x"])).is_err());
        assert!(parse_port(&args(&["--bogus"])).is_err());
    }
}
