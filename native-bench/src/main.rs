//! `herdlab`: see `herdlab --help`.

use std::process::ExitCode;

use herdlab_bench::cli::{self, Command};
use herdlab_bench::{bench_cmd, sim_cmd};

fn print_json<T: serde::Serialize>(v: &T, pretty: bool) -> ExitCode {
    match if pretty {
        serde_json::to_string_pretty(v)
    } else {
        serde_json::to_string(v)
    } {
        Ok(s) => {
            println!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("herdlab: cannot write JSON: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let command = match cli::parse(std::env::args().skip(1)) {
        Ok(c) => c,
        Err(e) => {
            for line in e.0.lines() {
                eprintln!("herdlab: {line}");
            }
            eprintln!("(herdlab --help shows the usage)");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            print!("{}", cli::USAGE);
            ExitCode::SUCCESS
        }
        Command::SimHerd {
            params,
            max_steps,
            json,
        } => {
            let report = sim_cmd::run(&params, max_steps);
            if json {
                print_json(&report, false)
            } else {
                print!("{}", sim_cmd::render(&report));
                ExitCode::SUCCESS
            }
        }
        Command::BenchHerd {
            threads,
            events,
            json,
        } => match bench_cmd::run(&threads, events, true) {
            Ok(rows) => {
                if json {
                    print_json(&rows, true)
                } else {
                    print!("{}", bench_cmd::render(&rows));
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("herdlab: bench herd: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
