//! Hash routes (docs/site-contract.md): `#/`, `#/lesson/<slug>?<query>`, `#/bench`,
//! `#/check?<lock scenario>`, `#/glossary?term=<id>`, `#/results`, `#/trace`.

use herdlab_core::scenario::url_decode;

/// Where the page is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The home page: the list of lessons.
    Home,
    /// A lesson, with the query that belongs to its main simulation.
    Lesson {
        /// The lesson's slug.
        slug: String,
        /// The scenario query (without the `?`).
        query: String,
    },
    /// The in-browser simulator benchmark.
    Bench,
    /// The model checker on the lock scenario in the query.
    Check {
        /// The scenario query (without the `?`).
        query: String,
    },
    /// The glossary, opened at a term.
    Glossary {
        /// The term's id (`term=`), or empty.
        term: String,
    },
    /// Benchmark results files opened and drawn as charts (the page's body is in the lazy
    /// bundle).
    Results {
        /// The query (without the `?`), handed to the page.
        query: String,
    },
    /// A native run's trace file opened beside its simulation (`#/trace`; the page is in the lazy
    /// bundle).
    Trace,
    /// Any other address (the text after `#`).
    NotFound(String),
}

/// Parse `location.hash` (with or without the leading `#`).
pub fn parse(hash: &str) -> Route {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    let (path, query) = h.split_once('?').unwrap_or((h, ""));
    let path = path.trim_start_matches('/').trim_end_matches('/');
    if path.is_empty() {
        return Route::Home;
    }
    if path == "bench" {
        return Route::Bench;
    }
    if path == "trace" {
        return Route::Trace;
    }
    if path == "glossary" {
        let term = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("term="))
            .map(url_decode)
            .unwrap_or_default();
        return Route::Glossary { term };
    }
    if path == "results" {
        return Route::Results {
            query: query.to_string(),
        };
    }
    if path == "check" {
        return Route::Check {
            query: query.to_string(),
        };
    }
    if let Some(slug) = path.strip_prefix("lesson/") {
        if !slug.is_empty() && !slug.contains('/') {
            return Route::Lesson {
                slug: url_decode(slug),
                query: query.to_string(),
            };
        }
    }
    Route::NotFound(h.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(parse(""), Route::Home);
        assert_eq!(parse("#/"), Route::Home);
        assert_eq!(parse("#/bench"), Route::Bench);
        assert_eq!(parse("#/trace"), Route::Trace);
        assert_eq!(parse("#/trace/"), Route::Trace);
        assert_eq!(
            parse("#/check?mechanism=locks&threads=3"),
            Route::Check {
                query: "mechanism=locks&threads=3".into()
            }
        );
        assert_eq!(
            parse("#/lesson/thundering-herd?workers=3"),
            Route::Lesson {
                slug: "thundering-herd".into(),
                query: "workers=3".into()
            }
        );
        assert_eq!(
            parse("#/lesson/x"),
            Route::Lesson {
                slug: "x".into(),
                query: String::new()
            }
        );
        assert_eq!(
            parse("#/glossary"),
            Route::Glossary {
                term: String::new()
            }
        );
        assert_eq!(
            parse("#/glossary?term=cas"),
            Route::Glossary { term: "cas".into() }
        );
        assert_eq!(
            parse("#/results"),
            Route::Results {
                query: String::new()
            }
        );
        assert!(matches!(parse("#/nope"), Route::NotFound(_)));
        assert!(matches!(parse("#/lesson/"), Route::NotFound(_)));
    }
}
