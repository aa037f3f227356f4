//! Pinned tool versions.
//!
//! The one place they are written is `Trunk.toml` at the repository root:
//! - `trunk-version = "=X.Y.Z"`: the trunk that `cargo xtask setup` installs (and trunk enforces);
//! - `[tools] wasm_bindgen = "X.Y.Z"`: must equal the `wasm-bindgen` package in `Cargo.lock`
//!   (wasm-bindgen-cli and the library must match exactly); setup installs that wasm-bindgen-cli;
//! - `[tools] wasm_opt = "version_N"`: must match the npm `binaryen` package pinned in
//!   `tests/e2e/package.json` (major version N), which provides `wasm-opt`.
//!
//! Setup reads all three sources and stops with a clear message if they disagree.

use std::fs;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pins {
    /// e.g. "0.21.14"
    pub trunk: String,
    /// e.g. "0.2.130"
    pub wasm_bindgen: String,
    /// e.g. "version_132", as trunk formats `wasm-opt --version`
    pub wasm_opt: String,
    /// e.g. "132.0.0", from tests/e2e/package.json
    pub binaryen_npm: String,
}

pub fn load(root: &Path) -> Result<Pins, String> {
    let trunk_toml = read(&root.join("Trunk.toml"))?;
    let cargo_lock = read(&root.join("Cargo.lock"))?;
    let package_json = read(&root.join("tests/e2e/package.json"))?;
    check(&trunk_toml, &cargo_lock, &package_json)
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Cross-checks the three files; the error names the file to fix.
pub fn check(trunk_toml: &str, cargo_lock: &str, package_json: &str) -> Result<Pins, String> {
    let trunk_req = toml_value(trunk_toml, None, "trunk-version")
        .ok_or("Trunk.toml: missing top-level `trunk-version = \"=X.Y.Z\"`")?;
    let trunk = trunk_req
        .strip_prefix('=')
        .map(str::trim)
        .filter(|v| is_version(v))
        .ok_or_else(|| {
            format!("Trunk.toml: trunk-version must be an exact pin like \"=0.21.14\", found {trunk_req:?}")
        })?
        .to_string();

    let wasm_bindgen = toml_value(trunk_toml, Some("tools"), "wasm_bindgen")
        .ok_or("Trunk.toml: missing `[tools] wasm_bindgen = \"X.Y.Z\"`")?;
    let lock_versions = lock_versions(cargo_lock, "wasm-bindgen");
    match lock_versions.as_slice() {
        [only] if *only == wasm_bindgen => {}
        [only] => {
            return Err(format!(
                "Trunk.toml pins wasm_bindgen = {wasm_bindgen:?} but Cargo.lock has wasm-bindgen {only}; \
                 set [tools] wasm_bindgen = \"{only}\" in Trunk.toml"
            ))
        }
        [] => return Err("Cargo.lock has no `wasm-bindgen` package (run a cargo build of herdlab-web first)".into()),
        many => {
            return Err(format!(
                "Cargo.lock has several wasm-bindgen versions ({}); herdlab needs exactly one",
                many.join(", ")
            ))
        }
    }

    let wasm_opt = toml_value(trunk_toml, Some("tools"), "wasm_opt")
        .ok_or("Trunk.toml: missing `[tools] wasm_opt = \"version_N\"`")?;
    let binaryen_npm = json_dependency(package_json, "binaryen").ok_or(
        "tests/e2e/package.json: missing devDependency \"binaryen\" pinned to an exact version",
    )?;
    if !is_version(&binaryen_npm) {
        return Err(format!(
            "tests/e2e/package.json: binaryen must be pinned exactly (like \"132.0.0\"), found {binaryen_npm:?}"
        ));
    }
    let expected = wasm_opt_version_for_npm(&binaryen_npm);
    if wasm_opt != expected {
        return Err(format!(
            "Trunk.toml pins wasm_opt = {wasm_opt:?} but tests/e2e/package.json has binaryen {binaryen_npm}, \
             whose wasm-opt reports {expected:?}; make them agree"
        ));
    }

    Ok(Pins {
        trunk,
        wasm_bindgen,
        wasm_opt,
        binaryen_npm,
    })
}

/// npm binaryen "132.0.0" ships wasm-opt that prints "wasm-opt version 132 (version_132)";
/// trunk turns that into "version_132".
pub fn wasm_opt_version_for_npm(npm_version: &str) -> String {
    format!(
        "version_{}",
        npm_version.split('.').next().unwrap_or(npm_version)
    )
}

/// What trunk makes of `wasm-opt --version` output: the third space-separated word.
pub fn wasm_opt_version_from_output(output: &str) -> Option<String> {
    output
        .trim()
        .split(' ')
        .nth(2)
        .map(|v| format!("version_{v}"))
}

fn is_version(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A `key = "value"` string in a simple TOML file, in `section` (None: before any section).
fn toml_value(toml: &str, section: Option<&str>, key: &str) -> Option<String> {
    let mut current: Option<String> = None;
    for raw in toml.lines() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            current = Some(
                line.trim_matches(|c| c == '[' || c == ']')
                    .trim()
                    .to_string(),
            );
            continue;
        }
        if current.as_deref() != section {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            if k.trim() == key {
                return Some(v.trim().trim_matches('"').to_string());
            }
        }
    }
    None
}

/// Versions of the package `name` in a Cargo.lock.
fn lock_versions(lock: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current_name: Option<String> = None;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            current_name = None;
        } else if let Some(v) = line.strip_prefix("name = ") {
            current_name = Some(v.trim_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("version = ") {
            if current_name.as_deref() == Some(name) {
                out.push(v.trim_matches('"').to_string());
            }
        }
    }
    out
}

/// The version string of `"name": "version"` in a package.json (first occurrence).
pub fn json_dependency(json: &str, name: &str) -> Option<String> {
    let needle = format!("\"{name}\"");
    let start = json.find(&needle)? + needle.len();
    let rest = json[start..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUNK: &str = "# pins\ntrunk-version = \"=0.21.14\"\n[build]\noffline = true\n[tools]\nwasm_bindgen = \"0.2.130\" # lock\nwasm_opt = \"version_132\"\n";
    const LOCK: &str = "[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\n\n[[package]]\nname = \"wasm-bindgen-macro\"\nversion = \"0.2.130\"\n";
    const PKG: &str = "{\n  \"devDependencies\": {\n    \"binaryen\": \"132.0.0\",\n    \"playwright-core\": \"1.65.1\"\n  }\n}\n";

    #[test]
    fn agreeing_pins_load() {
        let pins = check(TRUNK, LOCK, PKG).unwrap();
        assert_eq!(pins.trunk, "0.21.14");
        assert_eq!(pins.wasm_bindgen, "0.2.130");
        assert_eq!(pins.wasm_opt, "version_132");
        assert_eq!(pins.binaryen_npm, "132.0.0");
    }

    #[test]
    fn disagreeing_pins_are_named() {
        let lock = LOCK.replace("0.2.130", "0.2.131");
        assert!(check(TRUNK, &lock, PKG).unwrap_err().contains("Cargo.lock"));
        let pkg = PKG.replace("132.0.0", "133.0.0");
        assert!(check(TRUNK, LOCK, &pkg)
            .unwrap_err()
            .contains("version_133"));
        let pkg = PKG.replace("132.0.0", "^132.0.0");
        assert!(check(TRUNK, LOCK, &pkg).unwrap_err().contains("exactly"));
        let trunk = TRUNK.replace("=0.21.14", "0.21");
        assert!(check(&trunk, LOCK, PKG).unwrap_err().contains("exact pin"));
    }

    #[test]
    fn wasm_opt_version_strings() {
        assert_eq!(
            wasm_opt_version_from_output("wasm-opt version 132 (version_132)\n").as_deref(),
            Some("version_132")
        );
        assert_eq!(wasm_opt_version_for_npm("132.0.0"), "version_132");
    }
}
