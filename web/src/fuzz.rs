//! Fuzzing the site's parsers (issue #15), natively: the hash route ([`crate::route::parse`]), one
//! widget block of every shape for every mechanism of the registry (`crate::mechanisms`), a
//! predict block, the lesson file format ([`crate::lesson::catalog::decode`]) and whole lessons
//! built into pages from hostile Markdown, over arbitrary text and over mutations of the real
//! lessons. Names no mechanism: it walks [`crate::mechanisms::NAMES`].
//!
//! Asserted: no panic; every message is short (a bound on the work, whatever the input's size) and
//! names its key (`<key>: …`); every widget id is made of letters, digits, `-` and `_` (so a
//! caption or id can carry no markup into the page); a lesson file written from any Markdown
//! decodes to the same blocks (the round trip). `HERDLAB_FUZZ_SCALE=<n>` multiplies the cases
//! (`cargo xtask fuzz`).

use herdlab_lessons::file::encode;
use herdlab_lessons::markdown::segments;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use crate::lesson::catalog::{decode, tests::source, Block, LESSONS};
use crate::lesson::parts::Placing;
use crate::lesson::predict::parse_predict;
use crate::mechanisms::{check_block, compare_widget, sim_widget, NAMES};
use crate::pages::lesson::page_errors;
use crate::route::{parse, Route};

fn config(base: u32) -> ProptestConfig {
    let scale = std::env::var("HERDLAB_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(1)
        .max(1);
    ProptestConfig {
        cases: base.saturating_mul(scale),
        failure_persistence: None,
        // `cargo test` (and so CI) draws the same cases every run; `cargo xtask fuzz` (which sets
        // HERDLAB_FUZZ_SCALE) draws new ones each round
        rng_seed: if std::env::var_os("HERDLAB_FUZZ_SCALE").is_some() {
            proptest::test_runner::RngSeed::Random
        } else {
            proptest::test_runner::RngSeed::Fixed(0x6865_7264)
        },
        ..ProptestConfig::default()
    }
}

/// The longest message a block, a page or a link may produce, whatever its size.
const MAX_MESSAGE: usize = 1024;

/// Keys a block or a page query is written with: the scenario keys of every mechanism, the
/// blocks' and the page's own, and a few strangers.
fn keys() -> Vec<String> {
    let mut v: Vec<String> = [
        "id",
        "caption",
        "mechanism",
        "main",
        "controls",
        "stop",
        "left",
        "right",
        "step",
        "picks",
        "q",
        "options",
        "answer",
        "reveal",
        "schedule",
        "strategies",
        "lesson",
        "",
        "bogus",
        "<b>",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for m in herdlab_core::scenario::MECHANISMS {
        for k in herdlab_core::scenario::Scenario::default_of(m)
            .unwrap()
            .keys()
        {
            v.push(k.name.to_string());
        }
    }
    v
}

/// Values a stranger writes: script injection, edge numbers, escapes, every mechanism's name.
fn values() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "0",
        "-0",
        "-1",
        "NaN",
        "1e3",
        "18446744073709551616",
        "10000001",
        "true",
        "false",
        "full",
        "step",
        "on",
        "%",
        "%FF",
        "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(1)>",
        "javascript:alert(1)",
        "a b",
        "0:0,1:1",
        "x:y",
        "🦀",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(NAMES.iter().map(|n| n.to_string()));
    v.extend(
        herdlab_core::scenario::MECHANISMS
            .iter()
            .map(|n| n.to_string()),
    );
    v
}

/// `k=v` pairs joined by `&` or by new lines (blocks are written one key a line).
fn body() -> BoxedStrategy<String> {
    (
        prop::collection::vec(
            (prop::sample::select(keys()), prop::sample::select(values())),
            0..10,
        ),
        any::<bool>(),
        ".{0,8}",
    )
        .prop_map(|(pairs, lines, junk)| {
            let sep = if lines { "\n" } else { "&" };
            let mut b = pairs
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(sep);
            b.push_str(&junk);
            b
        })
        .boxed()
}

/// A message names what it is about (`<key>: …`, or a sentence about the page) and is short.
fn check_message(m: &str) -> Result<(), TestCaseError> {
    prop_assert!(!m.is_empty());
    prop_assert!(m.len() <= MAX_MESSAGE, "{} bytes: {:.200}", m.len(), m);
    Ok(())
}

/// An id the page puts in markup: letters, digits, `-` and `_`.
fn check_id(id: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        !id.is_empty()
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "id {:?}",
        id
    );
    Ok(())
}

/// Every shape of block, for every mechanism (and for none named), over `body` and page `query`.
fn check_blocks(body: &str, query: &str) -> Result<(), TestCaseError> {
    let mut place = Placing::default();
    let mechs = NAMES.iter().map(|n| Some(*n)).chain([None]);
    for (i, m) in mechs.enumerate() {
        let w = sim_widget(m, body, "fallback", query, &mut place, 2 * i);
        check_id(&w.id)?;
        for e in &w.errors {
            check_message(e)?;
        }
        let w = compare_widget(m, body, "fallback", &mut place, 2 * i + 1);
        check_id(&w.id)?;
        for e in &w.errors {
            check_message(e)?;
        }
    }
    for e in &place.url_errors {
        check_message(e)?;
    }
    let c = check_block(body, "fallback");
    check_id(&c.id)?;
    for e in &c.errors {
        check_message(e)?;
    }
    for e in parse_predict(body).errors {
        check_message(&e)?;
    }
    Ok(())
}

/// A lesson file is decoded or refused, and a decoded one builds a page under page `query`.
fn check_file(slug: &str, file: &str, query: &str) -> Result<(), TestCaseError> {
    match decode(slug, file) {
        Ok(blocks) => check_page(&blocks, query)?,
        Err(e) => check_message(&e)?,
    }
    Ok(())
}

fn check_page(blocks: &[Block], query: &str) -> Result<(), TestCaseError> {
    let (errors, ids) = page_errors(blocks, query);
    for e in &errors {
        check_message(e)?;
    }
    for id in &ids {
        check_id(id)?;
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    prop_assert_eq!(unique.len(), ids.len(), "ids not unique: {:?}", ids);
    Ok(())
}

/// Markdown with widget fences of every kind around hostile bodies.
fn markdown() -> BoxedStrategy<String> {
    let fences = vec![
        "herdlab-sim",
        "herdlab-compare",
        "herdlab-check",
        "herdlab-predict",
        "herdlab-accept",
        "herdlab-accept-compare",
        "rust",
        "",
    ];
    prop::collection::vec(
        (
            prop::sample::select(fences),
            body(),
            ".{0,40}",
            any::<bool>(),
        ),
        0..6,
    )
    .prop_map(|parts| {
        let mut md = String::from("# A lesson\n\nIts summary.\n\n");
        for (fence, body, prose, closed) in parts {
            md.push_str(&format!("{prose}\n\n```{fence}\n{body}\n"));
            if closed {
                md.push_str("```\n\n");
            }
        }
        md
    })
    .boxed()
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_hash_is_a_route(h in ".{0,80}", q in body()) {
        // never a panic; a lesson's slug is never empty nor a path
        for hash in [h.clone(), format!("#/lesson/{h}"), format!("#/lesson/{h}?{q}"), format!("#/check?{q}"), format!("#/glossary?term={h}")] {
            match parse(&hash) {
                Route::Lesson { slug, .. } => prop_assert!(!slug.is_empty()),
                Route::Check { query } => {
                    let c = check_block(&format!("id=page&{query}"), "page");
                    check_id(&c.id)?;
                    for e in &c.errors {
                        check_message(e)?;
                    }
                }
                _ => {}
            }
        }
    }

    #[test]
    fn lesson_routes_round_trip(slug in "[a-z0-9-]{1,20}", q in "[a-z0-9=&]{0,40}") {
        prop_assert_eq!(
            parse(&format!("#/lesson/{slug}?{q}")),
            Route::Lesson { slug: slug.clone(), query: q.clone() }
        );
        prop_assert_eq!(parse(&format!("#/check?{q}")), Route::Check { query: q });
    }

    #[test]
    fn any_block_body_and_page_query_make_widgets(b in body(), q in body()) {
        check_blocks(&b, &q)?;
    }

    #[test]
    fn any_text_as_a_block_makes_widgets(b in ".{0,100}", q in ".{0,40}") {
        check_blocks(&b, &q)?;
    }

    #[test]
    fn any_markdown_makes_a_lesson_file_that_decodes_to_its_blocks_and_a_page(
        md in markdown(),
        q in body(),
    ) {
        let segs = segments(&md);
        let file = encode("fuzz", &segs);
        let blocks = decode("fuzz", &file);
        prop_assert!(blocks.is_ok(), "{:?}", blocks);
        let blocks = blocks.unwrap();
        prop_assert_eq!(blocks.len(), segs.len());
        check_page(&blocks, &q)?;
    }

    #[test]
    fn any_text_as_a_lesson_file_is_decoded_or_refused(text in ".{0,200}", q in body()) {
        check_file("fuzz", &text, &q)?;
        check_file("fuzz", &format!("herdlab-lesson 1 fuzz 1\n{text}"), &q)?;
    }

    #[test]
    fn mutated_real_lesson_files_are_decoded_or_refused(
        lesson in 0..LESSONS.len(),
        at in any::<usize>(),
        how in 0u8..5,
        junk in ".{0,20}",
        q in body(),
    ) {
        let slug = LESSONS[lesson].slug;
        let file = encode(slug, &segments(source(slug)));
        let mut i = at % (file.len() + 1);
        while !file.is_char_boundary(i) {
            i -= 1;
        }
        let mutated = match how {
            // cut short
            0 => file[..i].to_string(),
            // text inserted (lengths no longer match)
            1 => format!("{}{junk}{}", &file[..i], &file[i..]),
            // a block header's length changed
            2 => file.replacen(" 1", " 9", 1 + at % 7),
            // the whole file twice
            3 => format!("{file}{file}"),
            // a huge length
            _ => file.replacen("\nhtml ", "\nhtml 99999999999999999999", 1),
        };
        check_file(slug, &mutated, &q)?;
    }
}

proptest! {
    #![proptest_config(config(2))]

    #[test]
    fn one_megabyte_captions_ids_and_values_give_short_messages(
        key in prop::sample::select(keys()),
        unit in prop::sample::select(vec!["9", "a", "<", "%3C", "-"]),
    ) {
        let big = unit.repeat(1 << 20);
        check_blocks(&format!("id=a&{key}={big}"), &format!("{key}={big}"))?;
        check_blocks(&format!("id={big}"), "")?;
        let _ = parse(&format!("#/lesson/{big}?{key}={big}"));
    }
}
