//! `herdlab`: see `herdlab --help`.

use std::process::ExitCode;

fn main() -> ExitCode {
    // `std::env::args` panics on an argument that is not UTF-8: read them as the system gives
    // them, and let the parser refuse the lossy text (its U+FFFD shows where the bad bytes were)
    herdlab_bench::cli::main(
        std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned()),
    )
}
