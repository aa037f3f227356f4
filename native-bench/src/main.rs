//! `herdlab`: see `herdlab --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    herdlab_bench::cli::main(std::env::args().skip(1))
}
