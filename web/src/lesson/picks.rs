//! The `picks` of a page query (the learner's steps taken by hand, `3:t1,7:n`), whatever the
//! mechanism.

use herdlab_core::scenario::ParamError;
use herdlab_core::sim::Actor;

/// Parse `picks`: comma-separated `i:t<k>` (thread k took step i, 0-based) or `i:n` (the network).
pub fn parse_picks(s: &str) -> Result<Vec<(u64, Actor)>, ParamError> {
    let bad = |item: &str| {
        ParamError {
        field: "picks".into(),
        message: format!(
            "'{}' is not a pick; allowed: comma-separated step:t<thread> or step:n, for example 3:t1,7:n",
            herdlab_core::mechanism::shown(item)
        ),
    }
    };
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let (i, a) = item.split_once(':').ok_or_else(|| bad(item))?;
        let i: u64 = i.parse().map_err(|_| bad(item))?;
        let actor = if a == "n" {
            Actor::Network
        } else {
            let t: u16 = a
                .strip_prefix('t')
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| bad(item))?;
            Actor::Thread(t)
        };
        out.push((i, actor));
    }
    out.sort_by_key(|(i, _)| *i);
    out.dedup_by_key(|(i, _)| *i);
    Ok(out)
}

/// Format picks for the URL.
pub fn format_picks(picks: &[(u64, Actor)]) -> String {
    picks
        .iter()
        .map(|(i, a)| match a {
            Actor::Thread(t) => format!("{i}:t{t}"),
            Actor::Network => format!("{i}:n"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Picks that make every step of `actors` a pick (`0:t0,1:n,…`), as `herdlab check herd` links them.
pub fn script_picks(actors: &[Actor]) -> Vec<(u64, Actor)> {
    actors
        .iter()
        .enumerate()
        .map(|(i, &a)| (i as u64, a))
        .collect()
}

/// A counterexample of the checker over the simulator (its indices: `0..threads` the threads,
/// any other the network) as the actors a widget steps, one per step.
pub fn checker_actors(threads: usize, schedule: &[u16]) -> Vec<Actor> {
    schedule
        .iter()
        .map(|&t| {
            if (t as usize) < threads {
                Actor::Thread(t)
            } else {
                Actor::Network
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_round_trip() {
        let p = vec![(0, Actor::Thread(3)), (9, Actor::Network)];
        assert_eq!(parse_picks(&format_picks(&p)).ok(), Some(p));
        assert!(parse_picks("1:x").is_err());
        assert!(parse_picks("").is_ok_and(|v| v.is_empty()));
    }
}
