//! `cargo xtask setup`: install what is missing, idempotently, saying what it does.
//!
//! Everything comes from package registries through their own clients: rustup for the target,
//! `cargo install` for trunk and wasm-bindgen-cli, `npm ci` for the e2e packages (including
//! binaryen's wasm-opt), and Debian's apt for chromium.

use crate::pins::{self, Pins};
use crate::{output, run, Ctx};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The browser the e2e tests drive; HERDLAB_CHROMIUM overrides it (setup and tests both read it).
pub const CHROMIUM: &str = "/usr/bin/chromium";

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// What `build` and `serve` use: the target, trunk, wasm-bindgen, wasm-opt.
    Build,
    /// Also rustfmt, clippy and the browser, for `test` and `setup`.
    Everything,
}

pub fn ensure(ctx: &Ctx, need: Need) -> Result<Pins, String> {
    println!("setup: checking tools (pins in Trunk.toml)");
    let pins = pins::load(&ctx.root)?;
    println!(
        "setup: pins: trunk {}, wasm-bindgen {}, binaryen {} (wasm-opt {})",
        pins.trunk, pins.wasm_bindgen, pins.binaryen_npm, pins.wasm_opt
    );
    wasm_target(ctx)?;
    if need == Need::Everything {
        components(ctx)?;
    }
    trunk(ctx, &pins)?;
    wasm_bindgen(ctx, &pins)?;
    npm_packages(ctx, &pins)?;
    match need {
        Need::Everything => chromium(ctx)?,
        Need::Build => {
            if chromium_path().is_none() {
                println!("setup: note: no chromium (only the browser tests need it; `cargo xtask setup` installs it)");
            }
        }
    }
    println!("setup: done");
    Ok(pins)
}

fn wasm_target(ctx: &Ctx) -> Result<(), String> {
    let Some(installed) = output(ctx.cmd("rustup").args(["target", "list", "--installed"])) else {
        // No rustup: accept a toolchain that already has the target's standard library.
        let sysroot = output(ctx.cmd("rustc").args(["--print", "sysroot"]))
            .ok_or("neither rustup nor rustc found on PATH; install the Rust toolchain first")?;
        let lib = Path::new(sysroot.trim())
            .join("lib/rustlib")
            .join(WASM_TARGET);
        return if lib.is_dir() {
            println!("setup: {WASM_TARGET}: present (no rustup)");
            Ok(())
        } else {
            Err(format!(
                "the Rust target {WASM_TARGET} is missing and rustup is not available to add it"
            ))
        };
    };
    if installed.lines().any(|l| l.trim() == WASM_TARGET) {
        println!("setup: {WASM_TARGET}: already installed");
        Ok(())
    } else {
        println!("setup: {WASM_TARGET}: missing, adding it");
        run(ctx.cmd("rustup").args(["target", "add", WASM_TARGET]))
    }
}

/// rustfmt and clippy, which `cargo xtask test` runs (a minimal rustup profile lacks them).
fn components(ctx: &Ctx) -> Result<(), String> {
    let Some(installed) = output(ctx.cmd("rustup").args(["component", "list", "--installed"]))
    else {
        println!("setup: no rustup: assuming rustfmt and clippy come with the toolchain");
        return Ok(());
    };
    let has = |name: &str| {
        installed
            .lines()
            .any(|l| l.trim().starts_with(&format!("{name}-")) || l.trim() == name)
    };
    let missing: Vec<&str> = ["rustfmt", "clippy"]
        .into_iter()
        .filter(|c| !has(c))
        .collect();
    if missing.is_empty() {
        println!("setup: rustfmt, clippy: already installed");
        Ok(())
    } else {
        println!("setup: {}: missing, adding", missing.join(", "));
        run(ctx.cmd("rustup").args(["component", "add"]).args(&missing))
    }
}

/// The second word of `<tool> --version`, if the tool runs.
fn tool_version(ctx: &Ctx, tool: &str) -> Option<String> {
    let out = output(ctx.cmd(tool).arg("--version"))?;
    out.split_whitespace().nth(1).map(str::to_string)
}

fn trunk(ctx: &Ctx, pins: &Pins) -> Result<(), String> {
    match tool_version(ctx, "trunk") {
        Some(v) if v == pins.trunk => {
            println!("setup: trunk {v}: already installed");
            return Ok(());
        }
        Some(v) => println!("setup: trunk {v} found, need {}: installing", pins.trunk),
        None => println!(
            "setup: trunk missing: installing {} with cargo install (compiles for several minutes)",
            pins.trunk
        ),
    }
    run(ctx.cargo().args([
        "install",
        "trunk",
        "--version",
        &pins.trunk,
        "--locked",
        "--force",
    ]))?;
    expect_version(ctx, "trunk", &pins.trunk)
}

fn wasm_bindgen(ctx: &Ctx, pins: &Pins) -> Result<(), String> {
    let cli = tool_version(ctx, "wasm-bindgen");
    let runner = tool_version(ctx, "wasm-bindgen-test-runner");
    if cli.as_deref() == Some(pins.wasm_bindgen.as_str())
        && runner.as_deref() == Some(pins.wasm_bindgen.as_str())
    {
        println!(
            "setup: wasm-bindgen-cli {}: already installed (with wasm-bindgen-test-runner)",
            pins.wasm_bindgen
        );
        return Ok(());
    }
    println!(
        "setup: wasm-bindgen-cli {} needed (found wasm-bindgen {}, wasm-bindgen-test-runner {}): installing",
        pins.wasm_bindgen,
        cli.as_deref().unwrap_or("none"),
        runner.as_deref().unwrap_or("none"),
    );
    // Not --locked: the crate's own lock file does not build with this toolchain.
    run(ctx.cargo().args([
        "install",
        "wasm-bindgen-cli",
        "--version",
        &pins.wasm_bindgen,
        "--force",
    ]))?;
    expect_version(ctx, "wasm-bindgen", &pins.wasm_bindgen)?;
    expect_version(ctx, "wasm-bindgen-test-runner", &pins.wasm_bindgen)
}

fn expect_version(ctx: &Ctx, tool: &str, want: &str) -> Result<(), String> {
    match tool_version(ctx, tool) {
        Some(v) if v == want => Ok(()),
        found => Err(format!(
            "after installing, `{tool} --version` on PATH reports {} instead of {want}; \
             another {tool} may shadow the one in ~/.cargo/bin",
            found.as_deref().unwrap_or("nothing")
        )),
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).ok()?.modified().ok()
}

/// The version an installed npm package reports, from node_modules/<name>/package.json.
fn installed_npm_version(e2e: &Path, name: &str) -> Option<String> {
    let json =
        std::fs::read_to_string(e2e.join("node_modules").join(name).join("package.json")).ok()?;
    pins::json_version(&json)
}

fn npm_packages(ctx: &Ctx, pins: &Pins) -> Result<(), String> {
    let node = output(ctx.cmd("node").arg("--version")).ok_or(
        "node is not on PATH; the browser tests and wasm-opt (npm binaryen) need Node.js 20 or newer",
    )?;
    let major: u32 = node
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major < 20 {
        return Err(format!(
            "Node.js {} is too old; playwright-core needs 20 or newer",
            node.trim()
        ));
    }

    let e2e = ctx.root.join("tests/e2e");
    let package_json = std::fs::read_to_string(e2e.join("package.json"))
        .map_err(|e| format!("cannot read tests/e2e/package.json: {e}"))?;
    let lock = e2e.join("package-lock.json");
    let hidden_lock = e2e.join("node_modules/.package-lock.json");
    let wanted: Vec<(&str, Option<String>)> = ["binaryen", "playwright-core"]
        .into_iter()
        .map(|name| (name, pins::json_dependency(&package_json, name)))
        .collect();
    let versions_match = wanted
        .iter()
        .all(|(name, want)| want.is_some() && installed_npm_version(&e2e, name) == *want);
    // npm rewrites node_modules/.package-lock.json on every install; older than the manifests
    // means they changed since.
    let fresh = match (
        modified(&hidden_lock),
        modified(&lock),
        modified(&e2e.join("package.json")),
    ) {
        (Some(installed), Some(l), Some(p)) => installed >= l && installed >= p,
        (Some(installed), None, Some(p)) => installed >= p,
        _ => false,
    };
    if versions_match && fresh {
        println!("setup: npm packages in tests/e2e: up to date");
    } else {
        let verb = if lock.is_file() { "ci" } else { "install" };
        println!("setup: npm packages in tests/e2e: installing (npm {verb})");
        run(ctx
            .cmd("npm")
            .arg(verb)
            .current_dir(&e2e)
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"))?;
    }

    let found = output(ctx.cmd("wasm-opt").arg("--version"));
    let version = found
        .as_deref()
        .and_then(pins::wasm_opt_version_from_output);
    if version.as_deref() != Some(pins.wasm_opt.as_str()) {
        return Err(format!(
            "`wasm-opt --version` on PATH gives {:?}, trunk is pinned to {} (expected from tests/e2e/node_modules/.bin)",
            found.unwrap_or_default().trim(),
            pins.wasm_opt
        ));
    }
    println!(
        "setup: wasm-opt {}: from npm binaryen {}",
        pins.wasm_opt, pins.binaryen_npm
    );
    Ok(())
}

/// The chromium the tests will launch, if it exists.
pub fn chromium_path() -> Option<PathBuf> {
    let path = std::env::var_os("HERDLAB_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(CHROMIUM));
    path.is_file().then_some(path)
}

fn is_root(ctx: &Ctx) -> bool {
    output(ctx.cmd("id").arg("-u")).is_some_and(|uid| uid.trim() == "0")
}

fn chromium(ctx: &Ctx) -> Result<(), String> {
    if let Some(path) = chromium_path() {
        println!("setup: chromium: {}", path.display());
        return Ok(());
    }
    if std::env::var_os("HERDLAB_CHROMIUM").is_some() {
        return Err("HERDLAB_CHROMIUM is set but does not name a file".into());
    }
    if !is_root(ctx) {
        return Err(format!(
            "chromium is missing ({CHROMIUM}); the browser tests need it. Install Debian's package as root \
             (`apt-get update && apt-get install -y chromium`) or set HERDLAB_CHROMIUM to a Chromium binary"
        ));
    }
    if output(ctx.cmd("apt-get").arg("--version")).is_none() {
        return Err(format!(
            "chromium is missing ({CHROMIUM}) and apt-get is not available; install Chromium and set HERDLAB_CHROMIUM"
        ));
    }
    println!("setup: chromium missing: installing Debian's package with apt-get");
    run(ctx
        .cmd("apt-get")
        .arg("update")
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    run(ctx
        .cmd("apt-get")
        .args(["install", "-y", "chromium"])
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    chromium_path()
        .map(|_| ())
        .ok_or_else(|| format!("apt-get installed chromium but {CHROMIUM} is still missing"))
}
