//! `herdlab`: see `herdlab --help`.

use std::process::ExitCode;

use herdlab_bench::check as check_cmd;
use herdlab_bench::cli::{self, Command};
use herdlab_bench::mechanisms::accept::{
    check as check_accept, cmd as accept_cmd, native as native_accept,
};
use herdlab_bench::mechanisms::herd::{bench as bench_cmd, check as check_herd, sim as sim_cmd};
use herdlab_bench::mechanisms::locks::{
    bench as bench_locks, check as check_locks, sim as sim_locks,
};

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
        Command::SimLocks {
            params,
            max_steps,
            json,
        } => {
            let report = sim_locks::run_locks(&params, max_steps);
            if json {
                print_json(&report, false)
            } else {
                print!("{}", sim_locks::render_locks(&report));
                ExitCode::SUCCESS
            }
        }
        Command::SimAccept {
            params,
            strategies,
            named,
            max_steps,
            json,
        } => {
            let rows = accept_cmd::run_sim(&params, &strategies, max_steps);
            if json {
                match (named, rows.as_slice()) {
                    (true, [one]) => print_json(one, false),
                    _ => print_json(&rows, false),
                }
            } else {
                print!("{}", accept_cmd::render_sim(&rows));
                ExitCode::SUCCESS
            }
        }
        Command::BenchAccept {
            config,
            named,
            json,
        } => {
            if let Err(e) = native_accept::supported() {
                eprintln!("herdlab: bench accept: {e}");
                return ExitCode::from(2);
            }
            match accept_cmd::run_bench(&config, true) {
                Ok(rows) => {
                    for w in accept_cmd::warnings(&rows) {
                        eprintln!("herdlab: warning: {w}");
                    }
                    if json {
                        match (named, rows.as_slice()) {
                            (true, [one]) => print_json(one, true),
                            _ => print_json(&rows, true),
                        }
                    } else {
                        print!("{}", accept_cmd::render_bench(&rows));
                        ExitCode::SUCCESS
                    }
                }
                Err(e) => {
                    eprintln!("herdlab: bench accept: {e}");
                    ExitCode::FAILURE
                }
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
        Command::BenchLocks { config, json } => match bench_locks::run_locks(&config, true) {
            Ok(rows) => {
                if json {
                    print_json(&rows, true)
                } else {
                    print!("{}", bench_locks::render_locks(&rows));
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("herdlab: bench locks: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Check {
            params,
            config,
            json,
        } => {
            let out = check_locks::run(&params, &config, check_cmd::progress_wanted());
            let code = ExitCode::from(out.exit_code());
            if json {
                if print_json(&out, false) != ExitCode::SUCCESS {
                    return ExitCode::FAILURE;
                }
            } else {
                print!("{}", check_locks::render(&params, &config, &out));
            }
            code
        }
        Command::ListVariants { lock } => {
            for l in cli::variant_lines(lock) {
                println!("{l}");
            }
            ExitCode::SUCCESS
        }
        Command::CheckAccept {
            params,
            config,
            json,
        } => {
            let out = check_accept::run(&params, &config, check_cmd::progress_wanted());
            let code = ExitCode::from(out.exit_code());
            if json {
                if print_json(&out, false) != ExitCode::SUCCESS {
                    return ExitCode::FAILURE;
                }
            } else {
                print!("{}", check_accept::render(&params, &config, &out));
            }
            code
        }
        Command::CheckHerd {
            params,
            config,
            json,
        } => {
            let out = check_herd::run(&params, &config, check_cmd::progress_wanted());
            let code = ExitCode::from(out.exit_code());
            if json {
                if print_json(&out, false) != ExitCode::SUCCESS {
                    return ExitCode::FAILURE;
                }
            } else {
                print!("{}", check_herd::render(&params, &config, &out));
            }
            code
        }
    }
}
