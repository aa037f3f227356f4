//! Model-check MySQL's scenarios on every variant, each counterexample replayed in the simulator:
//! `cargo run --release -p herdlab-core --example mysql_check -- [preset=pool|cache] [key=value...]`.
use herdlab_core::check::CheckConfig;
use herdlab_core::mechanism::Mechanism;
use herdlab_core::mechanisms::mysql::invariants::{check, check_state, check_terminal, replay};
use herdlab_core::mechanisms::mysql::{Mysql, MysqlParams, MysqlVariant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cache = args.iter().any(|a| a == "preset=cache");
    let mut base = if cache {
        MysqlParams::check_preset_cache()
    } else {
        MysqlParams::check_preset()
    };
    let mut only = None;
    for a in &args {
        if let Some((k, v)) = a.split_once('=') {
            if k == "preset" {
                continue;
            }
            if k == "variant" {
                only = MysqlVariant::from_name(v);
            }
            if let Err(e) = Mysql::set(&mut base, k, v) {
                eprintln!("{}: {}", e.field, e.message);
                std::process::exit(2);
            }
        }
    }
    for variant in MysqlVariant::ALL {
        if only.is_some_and(|o| o != variant) {
            continue;
        }
        let p = MysqlParams { variant, ..base };
        let t = std::time::Instant::now();
        let r = check(&p, &CheckConfig::default(), &mut |_| true);
        print!(
            "{:<18} states {:>9} complete {} in {:.1}s",
            variant.name(),
            r.states,
            r.complete,
            t.elapsed().as_secs_f64()
        );
        match r.violation {
            None => println!(": no violation"),
            Some(cx) => {
                let sim = replay(&p, &cx.schedule);
                let again = check_state(&sim).or_else(|| check_terminal(&sim));
                println!(
                    ": {} after {} steps ({}); replayed: {:?}",
                    cx.violation.invariant,
                    cx.schedule.len(),
                    cx.violation.message,
                    again.map(|v| v.invariant)
                );
                // the schedule as the site's check blocks keep it (a thread's index, else the
                // network)
                println!("  schedule: {:?}", cx.schedule);
            }
        }
    }
}
