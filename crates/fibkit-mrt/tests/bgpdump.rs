//! Conformance with bgpdump, and robustness on real and damaged MRT files.
//!
//! - every libbgpdump regression file decodes to exactly the lines `bgpdump -vm` prints
//!   for it (the upstream `test_expect/*.bgp.gz`, in `tests/data/`, see PROVENANCE.md;
//!   the two large ones are read from `../shared/data/mrt` when it is there);
//! - every other file of `../shared/data/mrt` decodes without panicking, to the record
//!   count an independent parser (mrtparse) found where it read the file cleanly;
//! - truncations and byte flips of the small files give records or errors, never a
//!   panic (proptest).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use fibkit_mrt::{bgpdump, Body, Error, Reader};
use proptest::prelude::*;

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"))
}

/// `../shared/data/mrt`, or `None` (with a message) in a clone without it.
fn shared_dir() -> Option<PathBuf> {
    let d = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/mrt"
    ));
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!("skipped: {} is absent", d.display());
        None
    }
}

/// Compares the bgpdump lines of `mrt` with the gzip file `expect`, streaming both;
/// returns the number of lines.
fn compare(mrt: &Path, expect: &Path) -> usize {
    let reader = Reader::new(std::fs::File::open(mrt).unwrap()).unwrap();
    let exp = flate2::read::MultiGzDecoder::new(std::fs::File::open(expect).unwrap());
    let mut exp = BufReader::new(exp).lines();
    let mut n = 0;
    let mut buf = String::new();
    for rec in reader {
        let rec = rec.unwrap_or_else(|e| panic!("{}: {e} at byte {}", mrt.display(), e.offset()));
        buf.clear();
        bgpdump::write_lines(&rec, &mut buf);
        for got in buf.lines() {
            n += 1;
            match exp.next() {
                Some(Ok(want)) => assert_eq!(
                    got,
                    want,
                    "{}: line {n} differs (record at byte {})",
                    mrt.display(),
                    rec.offset
                ),
                _ => panic!("{}: extra line {n}: {got}", mrt.display()),
            }
        }
    }
    if let Some(Ok(want)) = exp.next() {
        panic!("{}: missing line {}: {want}", mrt.display(), n + 1);
    }
    n
}

#[test]
fn bgpdump_regression_files_match_exactly() {
    let expected = [
        ("bview.64k_stream_overflow.gz", 23),
        ("bview.ipv4_unicast_add_path.gz", 62),
        ("bview.ipv6_unicast_add_path.gz", 62),
        ("updates.20020722.2238.gz", 825 + 2419 + 93),
        ("updates.20070211.0141.gz", 51329 + 2328),
        ("updates.20071015.1505.gz", 10111 + 385),
        ("updates.20100722.2015.gz", 5067 + 547 + 40),
        ("updates.20160811.1600.gz", 39256 + 1956 + 22),
        ("updates.long_withdrawal.gz", 4096),
        ("updates.nlri_mask_trailing_bits.gz", 1),
    ];
    let d = data_dir();
    for (f, lines) in expected {
        let n = compare(&d.join(f), &d.join(format!("{f}.bgp.gz")));
        assert_eq!(n, lines, "{f}");
    }
}

/// The two large regression files (1.2 MB and 3.1 MB), from ../shared.
#[test]
fn bgpdump_large_regression_files_match_exactly() {
    let Some(s) = shared_dir() else { return };
    for (f, lines) in [
        ("bview.20020722.2337.gz", 115_521),
        ("updates.et-header.2015.gz", 577_737 + 3 + 4),
    ] {
        let n = compare(
            &s.join("bgpdump/test_data").join(f),
            &s.join("bgpdump/test_expect").join(format!("{f}.bgp.gz")),
        );
        assert_eq!(n, lines, "{f}");
    }
}

/// What decoding a whole stream gave.
#[derive(Debug, Default)]
struct Census {
    /// Records decoded.
    records: usize,
    /// Of them, of unsupported types.
    unsupported: usize,
    /// TABLE_DUMP_V2 RIB entries.
    rib_entries: usize,
    /// Records that did not decode (skipped).
    malformed: usize,
    /// The error that ended the stream, if any.
    fatal: Option<Error>,
}

/// Decodes a whole stream, skipping malformed records; with `format`, also prints each
/// record's bgpdump lines (to exercise the formatter on odd records).
fn census(bytes: &[u8], format: bool) -> Census {
    let mut c = Census::default();
    let Ok(reader) = Reader::new(bytes) else {
        return c;
    };
    for r in reader {
        match r {
            Ok(rec) => {
                c.records += 1;
                match &rec.body {
                    Body::Unsupported => c.unsupported += 1,
                    Body::Rib(r) => c.rib_entries += r.entries.len(),
                    _ => {}
                }
                if format {
                    let _ = bgpdump::lines(&rec);
                }
            }
            Err(e) if e.is_fatal() => {
                c.fatal = Some(e);
                break;
            }
            Err(_) => c.malformed += 1,
        }
    }
    c
}

#[test]
fn shared_corpus_decodes_without_panic() {
    let Some(s) = shared_dir() else { return };
    // Files an independent parser (mrtparse 2.2.0) read cleanly, with its record counts
    // (SOURCE.md).
    // (file, records, RIB entries)
    let clean = [
        (
            "bgpkit-parser/ripe/rrc15/2010.02/updates.20100227.1600.gz",
            6615,
            0,
        ),
        (
            "bgpkit-parser/ripe/rrc15/2010.02/updates.20100227.1610.gz",
            1953,
            0,
        ),
        (
            "bgpkit-parser/ripe/rrc03/2010.02/updates.20100227.1600.first-796-records.gz",
            796,
            0,
        ),
        ("libbgpstream/ris.rrc06.updates.1427846400.gz", 795, 0),
        (
            "libbgpstream/routeviews.route-views.jinx.updates.1427846400.bz2",
            1756,
            0,
        ),
        (
            "pyasn-routeviews/rib.20140523.0600.first-9073-records.mrt.gz",
            9073,
            270_005,
        ),
        (
            "pyasn-routeviews/rib6.20151101.0600.first-6871-records.mrt.gz",
            6871,
            149_578,
        ),
    ];
    for (f, records, entries) in clean {
        let bytes = std::fs::read(s.join(f)).unwrap();
        let c = census(&bytes, false);
        assert!(c.fatal.is_none(), "{f}: {:?}", c.fatal);
        assert_eq!(
            (c.records, c.malformed, c.unsupported),
            (records, 0, 0),
            "{f}"
        );
        assert_eq!(c.rib_entries, entries, "{f}");
    }
    // Lab dumps and legacy RIS files: any outcome but a panic; print what happened.
    let others = [
        "mrtparse/bird-mrtdump_bgp",
        "mrtparse/bird-mrtdump_rib",
        "mrtparse/bird6-mrtdump_bgp",
        "mrtparse/bird6-mrtdump_rib",
        "mrtparse/bird6_bgp",
        "mrtparse/bird_bgp",
        "mrtparse/openbgpd_bgp",
        "mrtparse/openbgpd_rib_table",
        "mrtparse/openbgpd_rib_table-mp",
        "mrtparse/openbgpd_rib_table-v2",
        "mrtparse/quagga_bgp",
        "mrtparse/quagga_rib",
        "bgpkit-parser/ripe/rrc00/1999.09/updates.19990903.1041.gz",
        "bgpkit-parser/ripe/rrc00/1999.12/updates.19991214.1621.gz",
        "bgpkit-parser/ripe/rrc00/2000.01/updates.20000102.2014.gz",
        "bgpkit-parser/ripe/rrc00/2000.03/updates.20000325.0345.gz",
        "bgpkit-parser/ripe/rrc01/2000.11/updates.20001104.0124.gz",
        "bgpkit-parser/ripe/rrc00/2000.01/bview.20000111.0032.gz",
    ];
    for f in others {
        let Ok(bytes) = std::fs::read(s.join(f)) else {
            eprintln!("{f}: absent");
            continue;
        };
        let c = census(&bytes, true);
        let end = match &c.fatal {
            None => "clean".to_string(),
            Some(e) => format!("{e} at byte {}", e.offset()),
        };
        eprintln!(
            "{f}: {} records ({} unsupported), {} malformed, end: {end}",
            c.records, c.unsupported, c.malformed
        );
    }
}

fn small_files() -> &'static [Vec<u8>] {
    static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(load_small_files)
}

fn load_small_files() -> Vec<Vec<u8>> {
    let d = data_dir();
    let mut v = Vec::new();
    for f in [
        "bview.ipv4_unicast_add_path.gz",
        "bview.ipv6_unicast_add_path.gz",
        "updates.nlri_mask_trailing_bits.gz",
        "updates.20020722.2238.gz",
        "bview.64k_stream_overflow.gz",
    ] {
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(d.join(f)).unwrap())
            .read_to_end(&mut raw)
            .unwrap();
        // Keep each sample small so that a case runs in microseconds.
        raw.truncate(16 * 1024);
        v.push(raw);
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn damaged_input_never_panics(
        file in 0usize..5,
        cut in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
    ) {
        let mut bytes = small_files()[file].clone();
        for (at, val) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= val;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        let _ = census(&bytes, true);
    }
}
