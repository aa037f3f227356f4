//! The `herdlab` command line, on clap.
//!
//! The command tree (`sim`, `bench`, `check`, `completions`, `help`) is clap's derive; under `sim`,
//! `bench` and `check` each mechanism of [`crate::mechanisms::REGISTRY`] adds its subcommands. A
//! mechanism's scenario flags are made here, from core's key table
//! (`herdlab_core::mechanism::Mechanism::KEYS`), with core's `Mechanism::set` as the value parser,
//! so the command and the site give the same ranges and the same messages.
//!
//! Every refusal exits 2 with one line per problem that names the flag and the allowed values:
//! a bad value (`--mode: 'bogus' is not allowed; allowed: wake-all, exclusive, lifo-exclusive`), a
//! missing one (`--workers: missing value; allowed: 1-64`), an unknown flag (the subcommand's flags
//! listed), an unknown command or mechanism. `--help` (and `help`, `-h`) exits 0.
//!
//! Generic: this file names no mechanism.

use std::ffi::OsStr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::builder::TypedValueParser;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, CommandFactory, Parser, Subcommand};
use herdlab_core::mechanism::{shown, KeyKind, Mechanism};
use herdlab_core::scenario::ParamError;

use crate::mechanisms::{Verb, REGISTRY};

/// A refused command line (exit status 2). The message has one line per problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl core::fmt::Display for CliError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `Err(CliError(msg))`.
pub fn err<T>(msg: impl Into<String>) -> Result<T, CliError> {
    Err(CliError(msg.into()))
}

/// The most states `--max-states` accepts.
pub const MAX_CHECK_STATES: u64 = 1_000_000_000;
/// The largest `--preemption-bound`.
pub const MAX_PREEMPTION_BOUND: u64 = 10_000;

/// herdlab: the thundering herd, nginx's ngx_shmtx and accept strategies, simulated,
/// model-checked and on real threads.
#[derive(Parser, Debug)]
#[command(
    name = "herdlab",
    about = "herdlab: how concurrent servers put threads to sleep and wake them, simulated, \
             model-checked and on real threads",
    subcommand_required = true,
    disable_version_flag = true
)]
struct Cli {
    #[command(subcommand)]
    command: Top,
}

#[derive(Subcommand, Debug)]
enum Top {
    /// Run a scenario headless on the simulated platform and print its counters.
    #[command(subcommand_required = true)]
    Sim,
    /// Run core's machines on real threads (Linux) and measure them.
    #[command(subcommand_required = true)]
    Bench,
    /// Model-check a scenario: every interleaving of its threads, every invariant.
    #[command(subcommand_required = true)]
    Check,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "example:\n  herdlab completions bash > ~/.local/share/bash-completion/completions/herdlab"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// What the mechanisms' subcommands are called under each verb (for the refusals).
fn noun(verb: &str) -> &'static str {
    if verb == Verb::Check.name() {
        "lock or mechanism"
    } else {
        "mechanism"
    }
}

/// What a missing subcommand of `verb` is called.
fn missing_noun(verb: &str) -> &'static str {
    if verb == Verb::Check.name() {
        "lock"
    } else {
        "mechanism"
    }
}

/// The whole command tree: the derive's, with every mechanism's subcommands; `herdlab --help`
/// ends with every subcommand's synopsis and description.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let mut examples = Vec::new();
    for verb in Verb::ALL {
        // the mechanisms' own order (display_order), kept by the help too
        let mut subs: Vec<clap::Command> =
            REGISTRY.iter().flat_map(|m| (m.commands)(verb)).collect();
        subs.sort_by_key(|s| s.get_display_order());
        let example = subs.first().map_or_else(String::new, example_of);
        examples.push(example.clone());
        let subs = subs
            .into_iter()
            .enumerate()
            .map(|(i, s)| s.display_order(i));
        // every benchmark writes its run as a trace and its rows as charts on request
        let subs = subs.map(|s| {
            if verb == Verb::Bench {
                s.args(bench_outputs())
            } else {
                s
            }
        });
        cmd = cmd.mut_subcommand(verb.name(), |c| {
            c.subcommands(subs)
                .after_help(format!("example:\n  {example}"))
        });
    }
    let examples = format!(
        "examples:\n  {}\n  herdlab <command> <name> --help    (its flags, ranges and defaults)",
        examples.join("\n  ")
    );
    let reference = reference(&cmd, &examples);
    cmd.after_help(examples).after_long_help(reference)
}

/// A subcommand's example line (its help ends with `example:` and the line).
fn example_of(c: &clap::Command) -> String {
    let help = c
        .get_after_help()
        .map(|h| h.to_string())
        .unwrap_or_default();
    help.rsplit("\n  ").next().unwrap_or_default().to_string()
}

/// The synopsis of a subcommand: `herdlab <path> [--flag VALUE] [--switch] ...`, wrapped at 100
/// columns under its first flag.
fn synopsis(path: &str, c: &clap::Command) -> String {
    let head = format!("  herdlab {path} ");
    let indent = " ".repeat(head.len());
    let mut out = head.clone();
    let mut col = head.len();
    for a in c.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = a.get_long() else { continue };
        let takes = a.get_num_args().is_some_and(|n| n.takes_values());
        let item = match a.get_value_names() {
            Some([v, ..]) if takes => format!("[--{long} {v}]"),
            _ if takes => format!("[--{long} {}]", long.to_uppercase()),
            _ => format!("[--{long}]"),
        };
        if col + item.len() > 100 && col > indent.len() {
            out.push('\n');
            out.push_str(&indent);
            col = indent.len();
        } else if col > indent.len() {
            out.push(' ');
            col += 1;
        }
        col += item.len();
        out.push_str(&item);
    }
    out
}

/// Every mechanism's subcommand: its synopsis, then its description.
fn reference(cmd: &clap::Command, examples: &str) -> String {
    let mut out = format!("{examples}\n\ncommands:\n");
    for verb in Verb::ALL {
        let v = cmd
            .find_subcommand(verb.name())
            .expect("the tree has the verbs");
        let mut subs: Vec<&clap::Command> = v.get_subcommands().collect();
        subs.sort_by_key(|s| s.get_display_order());
        for s in subs {
            out.push('\n');
            out.push_str(&synopsis(&format!("{} {}", verb.name(), s.get_name()), s));
            out.push('\n');
            let about = s.get_long_about().or(s.get_about()).map(|a| a.to_string());
            for line in about.unwrap_or_default().lines() {
                out.push_str("      ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out.push_str("\n  herdlab completions bash|zsh|fish|elvish|powershell\n      Print a shell completion script.\n");
    out.push_str("\n  herdlab help | --help | -h\n      This text (-h: the short form); herdlab <command> --help: one command's flags.\n");
    out
}

/// A parsed command line.
#[derive(Debug)]
pub enum Parsed {
    /// Help was asked for: the text to print (exit 0).
    Help(String),
    /// `completions <shell>`.
    Completions(clap_complete::Shell),
    /// A mechanism's subcommand: the verb, the subcommand's name and its matches.
    Run {
        /// `sim`, `bench` or `check`.
        verb: Verb,
        /// The subcommand (`herd`, `shmtx`, `accept-mutex`, ...).
        name: String,
        /// Its flags.
        matches: ArgMatches,
    },
}

/// Parse the arguments after the program name.
pub fn parse<I, S>(args: I) -> Result<Parsed, CliError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let args: Vec<String> = args.into_iter().map(Into::into).collect();
    let mut cmd = command();
    let argv = std::iter::once("herdlab".to_string()).chain(args.iter().cloned());
    let m = match cmd.try_get_matches_from_mut(argv) {
        Ok(m) => m,
        Err(e) => return refusal(e, &args, &mut cmd),
    };
    match m.subcommand() {
        Some(("completions", c)) => Ok(Parsed::Completions(
            *c.get_one::<clap_complete::Shell>("shell")
                .expect("clap requires the shell"),
        )),
        Some((v, c)) => {
            let verb = Verb::ALL
                .into_iter()
                .find(|x| x.name() == v)
                .expect("the tree has only these verbs");
            let (name, matches) = c.subcommand().expect("subcommand_required");
            Ok(Parsed::Run {
                verb,
                name: name.to_string(),
                matches: matches.clone(),
            })
        }
        None => unreachable!("subcommand_required"),
    }
}

/// Run the command line `args` (after the program name): the exit status, 2 for a refusal.
pub fn main<I, S>(args: I) -> ExitCode
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let args: Vec<String> = args.into_iter().map(Into::into).collect();
    let command_line = std::iter::once("herdlab")
        .chain(args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let refuse = |e: CliError| {
        for line in e.0.lines() {
            eprintln!("herdlab: {line}");
        }
        eprintln!("(herdlab --help shows the usage)");
        ExitCode::from(2)
    };
    match parse(args.iter().cloned()) {
        Err(e) => refuse(e),
        Ok(Parsed::Help(text)) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Ok(Parsed::Completions(shell)) => {
            clap_complete::generate(shell, &mut command(), "herdlab", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Ok(Parsed::Run {
            verb,
            name,
            matches,
        }) => {
            if verb == Verb::Bench {
                // interrupted, it stops and prints what it measured (platform::interrupt)
                #[cfg(unix)]
                crate::platform::interrupt::install(
                    matches
                        .try_get_one::<bool>("json")
                        .ok()
                        .flatten()
                        .copied()
                        .unwrap_or(false),
                );
                if let Some(note) = oversubscribed(&matches, cpus()) {
                    eprintln!("{note}");
                }
            }
            let m = REGISTRY
                .iter()
                .find(|m| (m.commands)(verb).iter().any(|c| c.get_name() == name))
                .expect("every subcommand is a mechanism's");
            if verb != Verb::Bench {
                return match (m.run)(verb, &name, &matches) {
                    Ok(code) => code,
                    Err(e) => refuse(e),
                };
            }
            let outs = match begin_outputs(&matches, &command_line, (m.charts)()) {
                Ok(o) => o,
                Err(Ok(e)) => return refuse(e),
                Err(Err(e)) => {
                    eprintln!("herdlab: {e}");
                    return ExitCode::FAILURE;
                }
            };
            match (m.run)(verb, &name, &matches) {
                Ok(code) => end_outputs(code, &outs),
                Err(e) => {
                    // refused: leave nothing behind
                    for p in &outs {
                        let _ = std::fs::remove_file(p);
                    }
                    refuse(e)
                }
            }
        }
    }
}

/// `--trace FILE` and `--svg FILE`, which every `bench` subcommand takes (`crate::trace`,
/// `crate::charts`).
pub fn bench_outputs() -> [Arg; 2] {
    [
        out_file(
            "trace",
            "write the run's events per thread to FILE (docs/trace-format.md)",
        ),
        out_file("svg", "draw the rows as charts into FILE (SVG)"),
    ]
}

/// A file the command writes: a path whose folder exists, that is not a folder itself.
pub fn out_file(long: &'static str, help: &str) -> Arg {
    const ALLOWED: &str = "allowed: a file path in an existing folder";
    flag(long, help, ALLOWED, move |v| {
        let p = std::path::PathBuf::from(v);
        if v.is_empty() {
            return Err(format!("empty path; {ALLOWED}"));
        }
        if p.is_dir() || v.ends_with('/') {
            return Err(format!("'{}' is a folder; {ALLOWED}", shown(v)));
        }
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(format!(
                "'{}' is not an existing folder; {ALLOWED}",
                shown(&parent.to_string_lossy())
            ));
        }
        Ok(p)
    })
    .value_name("FILE")
}

/// Create the files `--trace` and `--svg` name (before the benchmark spends any time): their
/// paths, or `Err(Ok(refusal))` (exit 2: both name one file) or `Err(Err(os error))` (exit 1).
fn begin_outputs(
    m: &ArgMatches,
    command: &str,
    charts: Vec<herdlab_core::chart::ChartSpec>,
) -> Result<Vec<std::path::PathBuf>, Result<CliError, String>> {
    let trace = value::<std::path::PathBuf>(m, "trace");
    let svg = value::<std::path::PathBuf>(m, "svg");
    if trace.is_some() && trace == svg {
        return Err(Ok(CliError(
            "--svg: names the same file as --trace; allowed: another file".to_string(),
        )));
    }
    let mut made = Vec::new();
    if let Some(p) = &trace {
        crate::trace::begin(p, command).map_err(Err)?;
        made.push(p.clone());
    }
    if let Some(p) = &svg {
        if let Err(e) = crate::charts::begin(p, command, charts) {
            for p in &made {
                let _ = std::fs::remove_file(p);
            }
            return Err(Err(e));
        }
        made.push(p.clone());
    }
    Ok(made)
}

/// Write `--trace`'s and `--svg`'s files after the benchmark ended with `code` (not 0: marked
/// partial). A file that cannot be written is exit 1.
fn end_outputs(code: ExitCode, outs: &[std::path::PathBuf]) -> ExitCode {
    if outs.is_empty() {
        return code;
    }
    let partial = (code != ExitCode::SUCCESS).then_some("the benchmark failed");
    let mut code = code;
    for r in [
        crate::trace::finish(partial),
        crate::charts::finish(partial),
    ] {
        if let Err(e) = r {
            eprintln!("herdlab: {e}");
            code = ExitCode::FAILURE;
        }
    }
    code
}

/// The CPUs this process may run on (its affinity: `taskset -c 0` gives 1).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The note a benchmark prints when it asks for more threads (`--threads`, `--workers`) than the
/// `cpus` it may run on: its results are oversubscribed (threads take turns on the CPUs).
pub fn oversubscribed(m: &ArgMatches, cpus: usize) -> Option<String> {
    let listed = m
        .try_get_one::<Vec<u32>>("threads")
        .ok()
        .flatten()
        .and_then(|v| v.iter().max().copied())
        .map(u64::from);
    // one count (`bench accept`), or a list of them (`bench gmp`)
    let workers = m
        .try_get_one::<String>("workers")
        .ok()
        .flatten()
        .and_then(|w| w.parse::<u64>().ok())
        .or_else(|| {
            let list = m.try_get_one::<Vec<u32>>("workers").ok().flatten()?;
            list.iter().max().map(|&n| u64::from(n))
        });
    let most = listed.into_iter().chain(workers).max()?;
    (most > cpus as u64).then(|| {
        format!(
            "herdlab: note: up to {most} threads on {cpus} CPU{}: the rows with more threads than \
             CPUs are oversubscribed (their threads take turns on the CPUs)",
            if cpus == 1 { "" } else { "s" }
        )
    })
}

/// The subcommand path the user typed (`sim`, `sim herd`), as far as it names real commands.
fn typed_path<'a>(args: &'a [String], cmd: &clap::Command) -> Vec<&'a str> {
    let mut path = Vec::new();
    let mut c = cmd;
    for a in args {
        if a.starts_with('-') {
            break;
        }
        match c.find_subcommand(a) {
            Some(sub) => {
                path.push(a.as_str());
                c = sub;
            }
            None => break,
        }
    }
    path
}

/// The visible flags of a subcommand, as the refusals list them.
fn flag_list(c: &clap::Command) -> String {
    c.get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help")
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names of a command's visible subcommands (at the top: the verbs, `help`, then the rest).
fn subcommand_list(c: &clap::Command) -> String {
    let mut subs: Vec<&clap::Command> = c
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect();
    subs.sort_by_key(|s| s.get_display_order());
    let mut names: Vec<&str> = subs.iter().map(|s| s.get_name()).collect();
    if c.get_name() == "herdlab" {
        names.sort_by_key(|n| !Verb::ALL.iter().any(|v| v.name() == *n));
        let at = names
            .iter()
            .position(|n| !Verb::ALL.iter().any(|v| v.name() == *n))
            .unwrap_or(names.len());
        names.insert(at, "help");
    }
    names.join(", ")
}

fn context(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => v.first().cloned(),
        _ => None,
    }
}

/// clap's error as herdlab's refusal (or help).
fn refusal(e: clap::Error, args: &[String], cmd: &mut clap::Command) -> Result<Parsed, CliError> {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            return Ok(Parsed::Help(e.render().to_string()));
        }
        _ => {}
    }
    cmd.build();
    let path = typed_path(args, cmd);
    let mut c: &clap::Command = cmd;
    for p in &path {
        c = c.find_subcommand(p).expect("typed_path found it");
    }
    let what = path.join(" ");
    let msg = match e.kind() {
        ErrorKind::ValueValidation => {
            // our parsers' refusals are whole lines: `--flag: problem; allowed ...`
            let text = e.to_string();
            let line = text.lines().next().unwrap_or_default();
            line.strip_prefix("error: ").unwrap_or(line).to_string()
        }
        ErrorKind::InvalidSubcommand | ErrorKind::UnknownArgument
            if path.len() < 2 && c.has_subcommands() =>
        {
            let bad = context(&e, ContextKind::InvalidSubcommand)
                .or_else(|| context(&e, ContextKind::InvalidArg))
                .unwrap_or_default();
            match path.first() {
                None => format!(
                    "'{}' is not a command; allowed: {}",
                    shown(&bad),
                    subcommand_list(c)
                ),
                Some(v) => format!(
                    "{v}: '{}' is not a {}; allowed: {}",
                    shown(&bad),
                    noun(v),
                    subcommand_list(c)
                ),
            }
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            match path.first() {
                None => format!("missing command; allowed: {}", subcommand_list(c)),
                Some(v) => format!(
                    "{v}: missing {}; allowed: {}",
                    missing_noun(v),
                    subcommand_list(c)
                ),
            }
        }
        ErrorKind::UnknownArgument => {
            let bad = context(&e, ContextKind::InvalidArg).unwrap_or_default();
            if let Some((flag, _)) = bad.split_once('=').filter(|(f, _)| {
                c.get_arguments()
                    .any(|a| a.get_long().is_some_and(|l| *f == format!("--{l}")))
            }) {
                format!("{flag}: takes no value")
            } else if bad.starts_with("--") {
                format!(
                    "{what}: unknown flag '{}'; allowed: {}",
                    shown(&bad),
                    flag_list(c)
                )
            } else {
                // clap reads `-workers` as the short flag `-w`: name what was written
                let written = args
                    .iter()
                    .find(|a| a.starts_with(&bad) && !a.starts_with("--"))
                    .map_or(bad.as_str(), String::as_str);
                format!(
                    "{what}: unexpected argument '{}'; flags start with --",
                    shown(written)
                )
            }
        }
        ErrorKind::InvalidValue => {
            let bad = context(&e, ContextKind::InvalidValue).unwrap_or_default();
            let valid = match e.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(v)) => v.join(", "),
                _ => String::new(),
            };
            format!("{what}: '{}' is not allowed; allowed: {valid}", shown(&bad))
        }
        ErrorKind::TooManyValues => {
            let arg = context(&e, ContextKind::InvalidArg).unwrap_or_default();
            let flag = arg.split_whitespace().next().unwrap_or_default();
            format!("{flag}: takes no value")
        }
        _ => {
            let text = e.to_string();
            let line = text.lines().next().unwrap_or_default();
            let line = line.strip_prefix("error: ").unwrap_or(line);
            if what.is_empty() {
                line.to_string()
            } else {
                format!("{what}: {line}")
            }
        }
    };
    err(msg)
}

/// The value clap gives a flag written without one: our parsers refuse it as a missing value.
const MISSING: &str = "\u{1}missing";

/// A flag's parser: the value, or the problem with it.
type ParseFn<T> = dyn Fn(&str) -> Result<T, String> + Send + Sync;

/// A value parser from a function: `Err(problem)` is refused as `<flag>: <problem>`, and a missing
/// value as `<flag>: missing value; <allowed>`.
#[derive(Clone)]
pub struct FlagParser<T> {
    missing: String,
    refuse: Option<String>,
    parse: Arc<ParseFn<T>>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for FlagParser<T> {
    type Value = T;
    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let flag = arg
            .and_then(Arg::get_long)
            .map_or_else(String::new, |l| format!("--{l}"));
        let v = value.to_string_lossy();
        let problem = if let Some(r) = &self.refuse {
            r.clone()
        } else if v == MISSING {
            format!("missing value; {}", self.missing)
        } else {
            match (self.parse)(&v) {
                Ok(x) => return Ok(x),
                Err(p) => p,
            }
        };
        Err(clap::Error::raw(
            ErrorKind::ValueValidation,
            format!("{flag}: {problem}\n"),
        ))
    }
}

/// A value-taking flag `--long` with `parse`; `missing` follows `missing value; ` when the value
/// is left out (`allowed: a, b`).
pub fn flag<T: Clone + Send + Sync + 'static>(
    long: &'static str,
    help: impl Into<String>,
    missing: impl Into<String>,
    parse: impl Fn(&str) -> Result<T, String> + Send + Sync + 'static,
) -> Arg {
    Arg::new(long)
        .long(long)
        .help(help.into())
        .num_args(0..=1)
        .default_missing_value(MISSING)
        .action(ArgAction::Set)
        .value_parser(FlagParser {
            missing: missing.into(),
            refuse: None,
            parse: Arc::new(parse),
        })
}

/// A whole-number flag in `lo..=hi` (`N` in the usage).
pub fn ranged(long: &'static str, help: &str, lo: u64, hi: u64) -> Arg {
    flag(long, help, format!("allowed {lo}-{hi}"), move |v| {
        match v.parse::<u64>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            Ok(n) => Err(format!("{n} is out of range; allowed {lo}-{hi}")),
            Err(_) => Err(format!(
                "'{}' is not a whole number; allowed {lo}-{hi}",
                shown(v)
            )),
        }
    })
    .value_name("N")
}

/// A comma-separated list, each item through `one` (refused as `'<item>' is not allowed; allowed:
/// <allowed>`).
pub fn list<T: Clone + Send + Sync + 'static>(
    long: &'static str,
    help: &str,
    allowed: String,
    one: impl Fn(&str) -> Option<T> + Send + Sync + 'static,
) -> Arg {
    let missing = format!("allowed: {allowed}");
    flag(long, help, missing, move |v| {
        v.split(',')
            .map(|part| {
                one(part.trim()).ok_or_else(|| {
                    format!(
                        "'{}' is not allowed; allowed: {allowed}",
                        shown(part.trim())
                    )
                })
            })
            .collect::<Result<Vec<T>, String>>()
    })
    .value_name("LIST")
}

/// A switch (no value).
pub fn switch(long: &'static str, help: &str) -> Arg {
    Arg::new(long)
        .long(long)
        .help(help.to_string())
        .action(ArgAction::SetTrue)
}

/// A flag this subcommand refuses with `message` (hidden from the help and the flag lists).
pub fn refused(long: &'static str, message: String) -> Arg {
    Arg::new(long)
        .long(long)
        .num_args(0..=1)
        .default_missing_value(MISSING)
        .action(ArgAction::Set)
        .hide(true)
        .value_parser(FlagParser::<String> {
            missing: String::new(),
            refuse: Some(message),
            parse: Arc::new(|v| Ok(v.to_string())),
        })
}

/// `--json`.
pub fn json() -> Arg {
    switch("json", "print JSON instead of a table")
}

/// Whether a switch is on.
pub fn on(m: &ArgMatches, id: &str) -> bool {
    m.get_flag(id)
}

/// A flag's parsed value, if given.
pub fn value<T: Clone + Send + Sync + 'static>(m: &ArgMatches, id: &str) -> Option<T> {
    m.get_one::<T>(id).cloned()
}

/// How one of core's keys is spelled on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyFlag {
    /// `--<key>` (`_` as `-`) with a value.
    Key(&'static str),
    /// The key under another flag name (`service` as `--service-ns`), with a value.
    As(&'static str, &'static str),
    /// A switch that sets the key to a value (`--no-semaphore`: `semaphore=off`).
    Sets(&'static str, &'static str, &'static str),
}

impl KeyFlag {
    /// The key.
    pub fn key(self) -> &'static str {
        match self {
            KeyFlag::Key(k) | KeyFlag::As(k, _) | KeyFlag::Sets(k, _, _) => k,
        }
    }

    /// The flag, without `--`.
    pub fn long(self) -> String {
        match self {
            KeyFlag::Key(k) => k.replace('_', "-"),
            KeyFlag::As(_, f) | KeyFlag::Sets(_, f, _) => f.to_string(),
        }
    }
}

/// A name that lives as long as the command tree.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The flags of `M`'s keys as `flags` spell them, in that order, with core's help texts and
/// value names.
pub fn key_args<M: Mechanism>(flags: &[KeyFlag]) -> Vec<Arg> {
    flags
        .iter()
        .map(|&f| {
            let key =
                M::key(f.key()).unwrap_or_else(|| panic!("{} has no key {}", M::NAME, f.key()));
            let long = leak(f.long());
            match f {
                KeyFlag::Sets(k, _, v) => switch(long, &format!("{k}={v}: {}", key.help)),
                _ => {
                    let allowed = match key.kind {
                        KeyKind::Range { unit, .. } if !unit.is_empty() => {
                            format!("{} ({unit})", key.allowed())
                        }
                        _ => key.allowed(),
                    };
                    let value_name = match key.kind {
                        KeyKind::Range { .. } => "N".to_string(),
                        _ => key.name.to_uppercase(),
                    };
                    let k = key.name;
                    flag(
                        long,
                        format!("{} [{allowed}]", key.help),
                        format!("allowed: {}", key.allowed()),
                        move |v| {
                            M::set(&mut M::Params::default(), k, v)
                                .map(|()| v.to_string())
                                .map_err(|e| e.message)
                        },
                    )
                    .value_name(leak(value_name))
                }
            }
        })
        .collect()
}

/// Set the keys given on the command line (their values were checked by the parser).
pub fn apply_keys<M: Mechanism>(
    p: &mut M::Params,
    flags: &[KeyFlag],
    m: &ArgMatches,
) -> Result<(), CliError> {
    for &f in flags {
        let long = f.long();
        let value = match f {
            KeyFlag::Sets(_, _, v) => on(m, &long).then(|| v.to_string()),
            _ => m.get_one::<String>(&long).cloned(),
        };
        if let Some(v) = value {
            M::set(p, f.key(), &v).map_err(|e| CliError(format!("--{long}: {}", e.message)))?;
        }
    }
    Ok(())
}

/// Core's validation of the whole set: nothing, or every problem, one line each, each under its
/// flag (`--<field>`, or the flag `flags` spells the field's key as).
pub fn validated<M: Mechanism>(p: &M::Params, flags: &[KeyFlag]) -> Result<(), CliError> {
    let errs = M::validate(p);
    if errs.is_empty() {
        return Ok(());
    }
    let line = |e: &ParamError| {
        let long = flags
            .iter()
            .find(|f| f.key() == e.field && !matches!(f, KeyFlag::Sets(..)))
            .map_or_else(|| e.field.replace('_', "-"), |f| f.long());
        format!("--{long}: {}", e.message)
    };
    err(errs.iter().map(line).collect::<Vec<_>>().join("\n"))
}

/// `--threads LIST`: up to 16 counts, each `1..=max` (`example` shows a list in the refusal of a
/// missing value).
pub fn threads_list(help: &str, max: u32, example: &str) -> Arg {
    let allowed = format!(
        "allowed: a comma-separated list of up to 16 counts, each 1-{max} (e.g. 2,8,32,128)"
    );
    flag(
        "threads",
        help,
        format!("allowed: a comma-separated list of counts, each 1-{max} (e.g. {example})"),
        move |v| {
            let mut out = Vec::new();
            for part in v.split(',') {
                match part.trim().parse::<u32>() {
                    Ok(n) if (1..=max).contains(&n) => out.push(n),
                    Ok(n) => return Err(format!("{n} is out of range; {allowed}")),
                    Err(_) => {
                        return Err(format!("'{}' is not a list of counts; {allowed}", shown(v)))
                    }
                }
            }
            if out.len() > 16 {
                return Err(format!("{} counts is too many; {allowed}", out.len()));
            }
            Ok(out)
        },
    )
    .value_name("LIST")
}

/// `--max-steps`.
pub fn max_steps() -> Arg {
    ranged("max-steps", "the step bound", 1, u64::MAX)
}

/// `--preemption-bound` and `--max-states`, the search's bounds.
pub fn bounds() -> [Arg; 2] {
    [
        ranged(
            "preemption-bound",
            "at most K preemptions per schedule (default: none)",
            0,
            MAX_PREEMPTION_BOUND,
        ),
        ranged(
            "max-states",
            "stop the search after this many states (default 20000000)",
            1,
            MAX_CHECK_STATES,
        ),
    ]
}

/// The search's bounds from `--preemption-bound` and `--max-states`.
pub fn check_config(m: &ArgMatches) -> herdlab_core::check::CheckConfig {
    let mut c = herdlab_core::check::CheckConfig::default();
    if let Some(b) = value::<u64>(m, "preemption-bound") {
        c.preemption_bound = Some(b as u32);
    }
    if let Some(n) = value::<u64>(m, "max-states") {
        c.max_states = n;
    }
    c
}

/// The flags a mechanism's `check` takes after its own keys: the search's [`bounds`], `--json` and
/// `--list-variants` (`variants_help` says what the list gives).
pub fn check_flags(variants_help: &'static str) -> impl Iterator<Item = Arg> {
    bounds()
        .into_iter()
        .chain([json(), switch("list-variants", variants_help)])
}

/// The body of a mechanism's `check`, given its parsed flags `m`: with `--list-variants` it prints
/// `variants()` and exits 0; otherwise `run` searches under the bounds of [`check_config`], and the
/// outcome is printed as JSON (`--json`) or as `render`'s text. The exit status is `exit_code` of
/// the outcome (0 proven, 1 a counterexample or the bound reached), or 1 if the JSON cannot be
/// written.
pub fn run_check<O: serde::Serialize>(
    m: &ArgMatches,
    variants: impl FnOnce() -> Vec<String>,
    run: impl FnOnce(&herdlab_core::check::CheckConfig) -> O,
    exit_code: impl FnOnce(&O) -> u8,
    render: impl FnOnce(&herdlab_core::check::CheckConfig, &O) -> String,
) -> Result<ExitCode, CliError> {
    if on(m, "list-variants") {
        for l in variants() {
            println!("{l}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let config = check_config(m);
    let out = run(&config);
    let code = ExitCode::from(exit_code(&out));
    if on(m, "json") {
        if crate::output::print_json(&out, false) != ExitCode::SUCCESS {
            return Ok(ExitCode::FAILURE);
        }
    } else {
        print!("{}", render(&config, &out));
    }
    Ok(code)
}

/// A mechanism's subcommand: `name`, its one-line `about`, its long help, an example, and
/// `args` in order. Each flag may be given again (the last one counts).
pub fn subcommand(
    name: &'static str,
    about: &'static str,
    long_about: &'static str,
    example: &'static str,
    args: impl IntoIterator<Item = Arg>,
) -> clap::Command {
    clap::Command::new(name)
        .about(about)
        .long_about(long_about)
        .after_help(format!("example:\n  {example}"))
        .args_override_self(true)
        .args(args)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Parse a command line given as one string.
    pub(crate) fn p(s: &str) -> Result<Parsed, CliError> {
        parse(s.split_whitespace())
    }

    /// The refusal of a command line.
    pub(crate) fn msg(s: &str) -> String {
        p(s).unwrap_err().0
    }

    /// The matches of a mechanism's subcommand.
    pub(crate) fn matches(s: &str) -> Result<ArgMatches, CliError> {
        match p(s)? {
            Parsed::Run { matches, .. } => Ok(matches),
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn help_in_every_spelling() {
        for s in [
            "help",
            "--help",
            "-h",
            "sim --help",
            "sim herd --help",
            "bench herd -h",
            "check --help",
            "check herd --help",
            "help sim",
        ] {
            assert!(matches!(p(s), Ok(Parsed::Help(_))), "{s}");
        }
        let Ok(Parsed::Help(top)) = p("--help") else {
            panic!()
        };
        assert!(top.contains("herdlab sim herd"), "{top}");
    }

    #[test]
    fn every_subcommand_has_help_with_an_example() {
        let cmd = command();
        for verb in cmd.get_subcommands() {
            for sub in verb.get_subcommands() {
                let Ok(Parsed::Help(h)) =
                    p(&format!("{} {} --help", verb.get_name(), sub.get_name()))
                else {
                    panic!("{} {}", verb.get_name(), sub.get_name())
                };
                assert!(h.contains("example:\n  herdlab "), "{h}");
            }
        }
    }

    #[test]
    fn unknown_things_are_refused() {
        assert_eq!(
            msg("bogus"),
            "'bogus' is not a command; allowed: sim, bench, check, help, completions"
        );
        assert!(msg("").contains("missing command"));
        assert_eq!(
            msg("sim"),
            "sim: missing mechanism; allowed: herd, locks, accept, pool, gmp, mysql"
        );
        assert_eq!(
            msg("bench lock"),
            "bench: 'lock' is not a mechanism; allowed: herd, locks, accept, pool, gmp, mysql"
        );
        let m = msg("sim herd --bogus 1");
        assert!(
            m.contains("unknown flag '--bogus'") && m.contains("--workers"),
            "{m}"
        );
        assert!(
            msg("bench herd --workers 3").contains("allowed: --threads, --events, --quick, --json")
        );
        assert!(msg("sim herd workers").contains("unexpected argument 'workers'"));
        assert_eq!(
            msg("sim herd -workers 3"),
            "sim herd: unexpected argument '-workers'; flags start with --"
        );
        assert_eq!(msg("sim herd --json=yes"), "--json: takes no value");
    }

    #[test]
    fn more_threads_than_cpus_is_noted_as_oversubscribed() {
        let m = matches("bench herd --threads 2,8").unwrap();
        assert_eq!(
            oversubscribed(&m, 4).as_deref(),
            Some(
                "herdlab: note: up to 8 threads on 4 CPUs: the rows with more threads than \
                 CPUs are oversubscribed (their threads take turns on the CPUs)"
            )
        );
        assert_eq!(oversubscribed(&m, 8), None);
        let m = matches("bench accept --workers 2").unwrap();
        assert!(oversubscribed(&m, 1)
            .unwrap()
            .contains("up to 2 threads on 1 CPU:"));
        assert_eq!(oversubscribed(&matches("bench herd").unwrap(), 1), None);
        let m = matches("bench gmp --workers 1,3").unwrap();
        assert!(oversubscribed(&m, 2)
            .unwrap()
            .contains("up to 3 threads on 2 CPUs:"));
        assert_eq!(oversubscribed(&m, 3), None);
    }

    #[test]
    fn completions_for_every_shell() {
        for s in ["bash", "zsh", "fish"] {
            assert!(matches!(
                p(&format!("completions {s}")),
                Ok(Parsed::Completions(_))
            ));
        }
        let m = msg("completions tcsh");
        assert!(m.contains("tcsh") && m.contains("bash"), "{m}");
    }
}
