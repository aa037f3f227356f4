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
//!
//! The files are read with real parsers: `toml` for `Trunk.toml` and `Cargo.lock`, `serde_json`
//! for the npm manifests.

use std::fs;
use std::path::Path;

use serde::Deserialize;

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
    let trunk_toml: toml::Table = trunk_toml
        .parse()
        .map_err(|e| format!("Trunk.toml is not valid TOML: {e}"))?;
    let tools = trunk_toml.get("tools").and_then(toml::Value::as_table);
    let tool = |key: &str| tools.and_then(|t| t.get(key)).map(value_text);

    let trunk_req = trunk_toml
        .get("trunk-version")
        .map(value_text)
        .ok_or("Trunk.toml: missing top-level `trunk-version = \"=X.Y.Z\"`")?;
    let trunk = trunk_req
        .strip_prefix('=')
        .map(str::trim)
        .filter(|v| is_version(v))
        .ok_or_else(|| {
            format!("Trunk.toml: trunk-version must be an exact pin like \"=0.21.14\", found {trunk_req:?}")
        })?
        .to_string();

    let wasm_bindgen =
        tool("wasm_bindgen").ok_or("Trunk.toml: missing `[tools] wasm_bindgen = \"X.Y.Z\"`")?;
    let lock_versions = lock_versions(cargo_lock, "wasm-bindgen")?;
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

    let wasm_opt =
        tool("wasm_opt").ok_or("Trunk.toml: missing `[tools] wasm_opt = \"version_N\"`")?;
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

/// A TOML value as the pins read it: a string's own text, anything else as TOML writes it (so a
/// message can show what is there instead of a version string).
fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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

/// A Cargo.lock, as far as the pins read it.
#[derive(Deserialize)]
struct Lockfile {
    #[serde(default)]
    package: Vec<LockedPackage>,
}

/// One `[[package]]` of a Cargo.lock.
#[derive(Deserialize)]
struct LockedPackage {
    name: String,
    version: String,
}

/// Versions of the package `name` in a Cargo.lock.
fn lock_versions(lock: &str, name: &str) -> Result<Vec<String>, String> {
    let lock: Lockfile =
        toml::from_str(lock).map_err(|e| format!("Cargo.lock is not valid TOML: {e}"))?;
    Ok(lock
        .package
        .into_iter()
        .filter(|p| p.name == name)
        .map(|p| p.version)
        .collect())
}

/// The version an npm manifest (`package.json`) asks for of the dependency `name`: its entry in
/// `devDependencies`, else in `dependencies`. `None` when it has none or is not JSON.
pub fn json_dependency(json: &str, name: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    ["devDependencies", "dependencies"]
        .iter()
        .find_map(|deps| v.get(deps)?.get(name)?.as_str())
        .map(str::to_string)
}

/// The version an npm manifest (`package.json`) gives its own package (its top-level
/// `version`); `None` when it has none or is not JSON.
pub fn json_version(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v.get("version")?.as_str().map(str::to_string)
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
    fn the_files_are_parsed_not_scanned() {
        // what a line scanner got wrong: a `#` inside a string, keys of another table with the
        // same name, an inline [tools] table, a package named like the one we want in a string
        let trunk =
            "trunk-version = \"=0.21.14\"\n[build]\nwasm_bindgen = \"0.0.1\"\nnote = \"a # b\"\n\
                     [serve]\nwasm_opt = \"version_1\"\n";
        let trunk =
            format!("{trunk}[tools]\nwasm_bindgen = \"0.2.130\"\nwasm_opt = \"version_132\"\n");
        assert_eq!(check(&trunk, LOCK, PKG).unwrap().wasm_bindgen, "0.2.130");
        let inline = "trunk-version = \"=0.21.14\"\ntools = { wasm_bindgen = \"0.2.130\", wasm_opt = \"version_132\" }\n";
        assert_eq!(check(inline, LOCK, PKG).unwrap().wasm_opt, "version_132");
        let lock = format!(
            "version = 4\n\n[[package]]\nname = \"wasm-bindgen-shim\"\nversion = \"9.9.9\"\n\
             dependencies = [\n \"wasm-bindgen\",\n]\n\n{LOCK}"
        );
        assert_eq!(check(TRUNK, &lock, PKG).unwrap().wasm_bindgen, "0.2.130");
        let two = format!("{LOCK}\n[[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.99\"\n");
        assert_eq!(
            check(TRUNK, &two, PKG).unwrap_err(),
            "Cargo.lock has several wasm-bindgen versions (0.2.130, 0.2.99); herdlab needs exactly one"
        );
        // "binaryen" first named in the description, then as the dependency
        let pkg = PKG.replace("{\n", "{\n  \"description\": \"binaryen\",\n");
        assert_eq!(check(TRUNK, LOCK, &pkg).unwrap().binaryen_npm, "132.0.0");
        assert_eq!(
            json_version("{\"name\": \"binaryen\", \"version\": \"132.0.0\"}").as_deref(),
            Some("132.0.0")
        );
        assert_eq!(
            json_version("{\"dependencies\": {\"version\": \"1.0.0\"}}"),
            None
        );
    }

    #[test]
    fn the_messages_name_the_file_to_fix() {
        assert_eq!(
            check("[tools]\n", LOCK, PKG).unwrap_err(),
            "Trunk.toml: missing top-level `trunk-version = \"=X.Y.Z\"`"
        );
        assert_eq!(
            check("trunk-version = 21\n", LOCK, PKG).unwrap_err(),
            "Trunk.toml: trunk-version must be an exact pin like \"=0.21.14\", found \"21\""
        );
        let no_opt = TRUNK.replace("wasm_opt = \"version_132\"\n", "");
        assert_eq!(
            check(&no_opt, LOCK, PKG).unwrap_err(),
            "Trunk.toml: missing `[tools] wasm_opt = \"version_N\"`"
        );
        let no_bg = TRUNK.replace("wasm_bindgen = \"0.2.130\" # lock\n", "");
        assert_eq!(
            check(&no_bg, LOCK, PKG).unwrap_err(),
            "Trunk.toml: missing `[tools] wasm_bindgen = \"X.Y.Z\"`"
        );
        assert_eq!(
            check(TRUNK, "", PKG).unwrap_err(),
            "Cargo.lock has no `wasm-bindgen` package (run a cargo build of herdlab-web first)"
        );
        assert_eq!(
            check(TRUNK, LOCK, "{}").unwrap_err(),
            "tests/e2e/package.json: missing devDependency \"binaryen\" pinned to an exact version"
        );
        assert!(check("trunk-version = ", LOCK, PKG)
            .unwrap_err()
            .starts_with("Trunk.toml is not valid TOML: "));
        assert!(check(TRUNK, "[[package]]\nname = 1\n", PKG)
            .unwrap_err()
            .starts_with("Cargo.lock is not valid TOML: "));
    }

    /// The repository's own three files agree (what `cargo xtask setup` checks first).
    #[test]
    fn the_repository_pins_agree() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let pins = load(&root).unwrap();
        let trunk_toml = read(&root.join("Trunk.toml")).unwrap();
        assert!(trunk_toml.contains(&format!("trunk-version = \"={}\"", pins.trunk)));
        assert!(trunk_toml.contains(&format!("wasm_opt = \"{}\"", pins.wasm_opt)));
        assert_eq!(pins.wasm_opt, wasm_opt_version_for_npm(&pins.binaryen_npm));
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
