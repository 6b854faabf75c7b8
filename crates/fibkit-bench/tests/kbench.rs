//! fibkit-bench against the recorded Python references, plus property tests.
//!
//! The fixtures in `tests/fixtures/` were produced by `tests/fixtures/record.sh` from
//! `../shared/tools/kbench/kbench_ref.py` and `kbench_scan.py`; see `record.py` there.

use std::fs;
use std::net::Ipv6Addr;
use std::path::{Path, PathBuf};

use fibkit_bench::data::{self, ParseErrorKind};
use fibkit_bench::kbench::{
    depth_line, histogram, percentile, stats_line, DestWalk, DestWalkV4, Histogram, Stats,
};
use proptest::prelude::*;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Fixture files whose name starts with `prefix`, sorted by name.
fn fixtures(prefix: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = fs::read_dir(fixtures_dir())
        .expect("fixtures folder")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".txt"))
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&p).expect("fixture is UTF-8"))
        })
        .collect();
    out.sort();
    out
}

/// The fixture text after its `# recorded by:` header line.
fn body(name: &str, text: &str) -> String {
    let (head, rest) = text.split_once('\n').expect("fixture has a header line");
    assert!(
        head.starts_with("# recorded by: "),
        "{name}: missing header line"
    );
    rest.to_string()
}

/// Decodes the run-length coded samples (`v*c` or `v`, whitespace separated).
fn decode_samples(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for token in text.split_whitespace() {
        match token.split_once('*') {
            Some((v, c)) => {
                let v: u64 = v.parse().expect("sample value");
                let c: usize = c.parse().expect("run length");
                out.extend(std::iter::repeat_n(v, c));
            }
            None => out.push(token.parse().expect("sample value")),
        }
    }
    out
}

/// Splits a stats fixture into (samples, stats line, histogram text).
fn split_stats_fixture(name: &str, text: &str) -> (Vec<u64>, String, String) {
    let body = body(name, text);
    let rest = body.strip_prefix("@samples\n").expect("@samples first");
    let (samples, rest) = rest.split_once("@stats\n").expect("@stats section");
    let (stats, hist) = rest.split_once("@histogram\n").expect("@histogram section");
    (decode_samples(samples), stats.to_string(), hist.to_string())
}

#[test]
fn stats_and_histogram_match_the_reference_byte_for_byte() {
    let cases = fixtures("stats-");
    assert!(cases.len() >= 10, "expected the recorded stats fixtures");
    for (name, text) in &cases {
        let (samples, want_stats, want_hist) = split_stats_fixture(name, text);
        assert!(!samples.is_empty(), "{name}: no samples");
        assert_eq!(stats_line(&samples), want_stats, "{name}: stats line");
        let mut sorted = samples.clone();
        sorted.sort_unstable();
        assert_eq!(histogram(&sorted), want_hist, "{name}: histogram");
    }
}

#[test]
fn blog_dataset_is_the_one_recorded() {
    // A sanity check of the fixture itself: 100,000 samples, as in the 2017 post.
    let (_, text) = fixtures("stats-blog2017")
        .into_iter()
        .next()
        .expect("blog fixture");
    let (samples, line, _) = split_stats_fixture("blog2017", &text);
    assert_eq!(samples.len(), 100_000);
    assert!(line.contains(" count=100000 "));
}

#[test]
fn depth_lines_match_the_reference() {
    let (_, text) = fixtures("depth").into_iter().next().expect("depth fixture");
    let body = body("depth.txt", &text);
    let mut n = 0;
    for line in body.lines() {
        let (args, want) = line.split_once(" => ").expect("'args => line'");
        let a: Vec<u64> = args
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        let got = depth_line(u32::try_from(a[0]).unwrap(), a[1], a[2], a[3]);
        assert_eq!(got, format!("{want}\n"), "depth_line{a:?}");
        n += 1;
    }
    assert!(n >= 5);
}

fn v6(text: &str) -> u128 {
    text.parse::<Ipv6Addr>()
        .unwrap_or_else(|_| panic!("bad address {text}"))
        .into()
}

#[test]
fn destination_walk_matches_the_reference() {
    let cases = fixtures("scan-");
    assert!(cases.len() >= 8, "expected the recorded scan fixtures");
    for (name, text) in &cases {
        let body = body(name, text);
        let mut lines = body.lines();
        let params: Vec<&str> = lines
            .next()
            .and_then(|l| l.strip_prefix("@params "))
            .expect("@params line")
            .split_whitespace()
            .collect();
        let (start, end) = (v6(params[0]), v6(params[1]));
        let loop_count: u64 = params[2].parse().unwrap();
        let delta = lines
            .next()
            .and_then(|l| l.strip_prefix("@delta "))
            .expect("@delta line");
        let walk = DestWalk::new(start, end, loop_count);
        let want_delta = if delta == "none" {
            None
        } else {
            let w: Vec<u32> = delta
                .split_whitespace()
                .map(|x| u32::from_str_radix(x, 16).unwrap())
                .collect();
            Some([w[0], w[1], w[2], w[3]])
        };
        assert_eq!(walk.delta_words(), want_delta, "{name}: delta");

        let expected: Vec<(usize, u128)> = lines
            .map(|l| {
                let (i, a) = l.split_once(' ').expect("'index address'");
                (i.parse().unwrap(), v6(a))
            })
            .collect();
        let mut want = expected.iter().peekable();
        for (i, got) in walk.enumerate() {
            let Some(&&(j, addr)) = want.peek() else {
                break;
            };
            if i == j {
                assert_eq!(
                    got,
                    addr,
                    "{name}: step {i}: got {} want {}",
                    Ipv6Addr::from(got),
                    Ipv6Addr::from(addr)
                );
                want.next();
            }
        }
        assert!(want.next().is_none(), "{name}: walk ended early");
    }
}

#[test]
fn embedded_tables_have_their_row_counts() {
    let v4 = data::embedded_v4().expect("embedded v4 decodes");
    assert_eq!(v4.len(), 1_042_325);
    assert_eq!(v4.len(), data::EMBEDDED_V4_ROWS);
    assert_eq!(v4[0], (0x0100_0000, 24)); // 1.0.0.0/24, the first line
    assert!(v4.iter().all(|&(_, len)| len <= 24));
    let v6 = data::embedded_v6().expect("embedded v6 decodes");
    assert_eq!(v6.len(), 246_175);
    assert_eq!(v6.len(), data::EMBEDDED_V6_ROWS);
    assert_eq!(v6[0], (0x2001_1201_0010u128 << 80, 48)); // 2001:1201:10::/48
    assert!(v6.iter().all(|&(_, len)| len <= 48));
}

#[test]
fn embedded_tables_are_the_shared_files() {
    // When the shared data folder is beside the repository (developers, CI), the
    // embedded copies must be byte-identical to it.
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/ris-2026");
    for (file, embedded) in [
        ("full-v4.txt.gz", data::EMBEDDED_V4_GZ),
        ("full-v6.txt.gz", data::EMBEDDED_V6_GZ),
    ] {
        if let Ok(bytes) = fs::read(shared.join(file)) {
            assert!(bytes == embedded, "{file} differs from the shared copy");
        }
    }
}

#[test]
fn default_route_set_is_40k_with_round_robin_gateways() {
    let routes = data::default_route_set_v6().expect("default route set");
    assert_eq!(routes.len(), 40_000);
    let mut prefixes: Vec<_> = routes.iter().map(|r| r.0).collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    assert_eq!(prefixes.len(), 40_000, "distinct prefixes");
    for (i, (_, gw)) in routes.iter().enumerate() {
        assert_eq!(*gw, data::GATEWAYS_V6[i % 5]);
    }
}

#[test]
fn malformed_table_lines_are_errors() {
    let text = "1.0.0.0/24\n1.0.0.0/24 junk\n";
    match data::read_prefixes_v4(text.as_bytes()) {
        Err(data::DataError::Parse { line, kind, .. }) => {
            assert_eq!((line, kind), (2, ParseErrorKind::BadLength));
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
    let err = data::read_prefixes_v6("2001:db8::/32\nnot a prefix\n".as_bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 2: missing '/' between address and length: \"not a prefix\""
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn stats_never_panic_and_are_ordered(samples in prop::collection::vec(any::<u64>(), 1..300)) {
        let st = Stats::from_samples(&samples).unwrap();
        prop_assert_eq!(st.count, samples.len() as u64);
        prop_assert!(st.min <= st.p50 && st.p50 <= st.p90 && st.p90 <= st.p95 && st.p95 <= st.max);
        prop_assert!(st.min <= st.average && st.average <= st.max);
        prop_assert!(st.mad <= st.max - st.min);
        prop_assert_eq!(st.min, *samples.iter().min().unwrap());
        prop_assert_eq!(st.max, *samples.iter().max().unwrap());
        let line = stats_line(&samples);
        prop_assert_eq!(line, format!("{st}\n"));
    }

    #[test]
    fn percentiles_lie_within_min_max(samples in prop::collection::vec(0u64..10_000, 1..50), p in 0u32..=100) {
        let mut s = samples.clone();
        s.sort_unstable();
        let v = percentile(p, &s).unwrap();
        prop_assert!(s[0] <= v && v <= s[s.len() - 1]);
    }

    #[test]
    fn stats_ignore_sample_order(mut samples in prop::collection::vec(0u64..1_000_000, 1..200)) {
        let before = stats_line(&samples);
        samples.reverse();
        prop_assert_eq!(stats_line(&samples), before);
    }

    #[test]
    fn histogram_rows_are_consistent(samples in prop::collection::vec(0u64..100_000_000, 1..400)) {
        let mut s = samples.clone();
        s.sort_unstable();
        let h = Histogram::from_sorted(&s).unwrap();
        let p95 = percentile(95, &s).unwrap();
        let counted: u64 = h.buckets.iter().map(|b| b.count).sum();
        prop_assert!(counted <= s.len() as u64);
        prop_assert!(counted >= s.iter().filter(|&&x| x <= p95).count() as u64);
        prop_assert_eq!(h.buckets.last().unwrap().cumulative, counted);
        for b in &h.buckets {
            let inside = s.iter().filter(|&&x| x >= b.start && x - b.start < h.width).count() as u64;
            prop_assert_eq!(b.count, inside);
        }
        let text = histogram(&s);
        let lines: Vec<&str> = text.lines().collect();
        prop_assert_eq!(lines.len(), h.buckets.len() + 1);
        for line in &lines {
            // " %8s │" + 50 bar columns + " %8u" with values below 10^8.
            prop_assert_eq!(line.chars().count(), 70, "{:?}", line);
        }
        let row_counts: u64 = lines[1..]
            .iter()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        prop_assert_eq!(row_counts, counted);
    }

    #[test]
    fn histogram_never_panics_on_any_values(samples in prop::collection::vec(any::<u64>(), 1..100)) {
        let mut s = samples;
        s.sort_unstable();
        let text = histogram(&s);
        prop_assert!(text.ends_with('\n'));
        let svg = fibkit_bench::kbench::svg_histogram(&s, "t");
        prop_assert!(svg.ends_with("</svg>\n"));
    }

    #[test]
    fn walk_delta_is_the_true_quotient_without_borrows(
        start in any::<u128>(), span in any::<u128>(), loop_count in 1u64..1_000_000,
    ) {
        let end = start.saturating_add(span);
        let words = |a: u128| [(a >> 96) as u32, (a >> 64) as u32, (a >> 32) as u32, a as u32];
        let (sw, ew) = (words(start), words(end));
        let no_borrow = (0..4).all(|k| sw[k] <= ew[k]);
        let walk = DestWalk::new(start, end, loop_count);
        if no_borrow && start != end {
            let want = ((end - start) / u128::from(loop_count)).max(1);
            prop_assert_eq!(walk.delta(), Some(want));
        }
        if end <= start {
            prop_assert_eq!(walk.delta(), None);
        }
    }

    #[test]
    fn v4_walk_stays_in_range(start in any::<u32>(), span in any::<u32>(), loop_count in 0u64..100) {
        let end = start.saturating_add(span);
        let walk = DestWalkV4::new(start, end, loop_count);
        for a in walk.take(500) {
            prop_assert!(start <= a && a <= end);
        }
    }

    #[test]
    fn prefix_parsers_never_panic(line in ".{0,60}") {
        let _ = data::parse_prefix_v4(&line);
        let _ = data::parse_prefix_v6(&line);
        let _ = data::parse_update_v4(&line);
        let _ = data::parse_update_v6(&line);
    }

    #[test]
    fn readers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = data::read_prefixes_v4(&bytes[..]);
        let _ = data::read_prefixes_v6(&bytes[..]);
        let _ = data::read_updates_v6(&bytes[..]);
    }

    #[test]
    fn canonical_prefixes_round_trip(a4 in any::<u32>(), l4 in 0u8..=32, a6 in any::<u128>(), l6 in 0u8..=128) {
        let a4 = a4 & u32::MAX.checked_shl(32 - u32::from(l4)).unwrap_or(0);
        let a6 = a6 & u128::MAX.checked_shl(128 - u32::from(l6)).unwrap_or(0);
        let t4 = format!("{}/{l4}", std::net::Ipv4Addr::from(a4));
        let t6 = format!("{}/{l6}", Ipv6Addr::from(a6));
        prop_assert_eq!(data::parse_prefix_v4(&t4), Ok((a4, l4)));
        prop_assert_eq!(data::parse_prefix_v6(&t6), Ok((a6, l6)));
    }

    #[test]
    fn sample_is_an_ordered_subset(len in 0usize..500, n in 0usize..600, seed in any::<u64>()) {
        let idx = data::sample_indices(len, n, seed);
        prop_assert_eq!(idx.len(), n.min(len));
        prop_assert!(idx.windows(2).all(|w| w[0] < w[1]));
        prop_assert!(idx.iter().all(|&i| i < len));
        prop_assert_eq!(idx, data::sample_indices(len, n, seed));
    }
}
