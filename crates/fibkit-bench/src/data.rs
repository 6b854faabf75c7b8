//! The real route tables: readers, sampler, gateways and the embedded default tables.
//!
//! The tables are the RIS 2026 full view (one BGP peer's table at the RIPE RIS collector
//! rrc00, 2026-05-11; data of the RIPE NCC) described in `../shared/data/README.md` from
//! the repository root. Two of them are embedded in this crate (see [`embedded_v4`],
//! [`embedded_v6`] and `data/ris-2026/PROVENANCE.md`).
//!
//! Prefixes are `(address, length)` pairs with the address as an integer in host order
//! (`u32` for IPv4, `u128` for IPv6). The readers accept plain text or gzip (detected by
//! its magic bytes, multi-member files included), skip blank lines and lines starting with
//! `#`, trim surrounding white space, and return an error naming the line for anything
//! else that is not a canonical prefix. They never panic on bad input.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;

use flate2::read::MultiGzDecoder;

/// An IPv4 prefix: the network address as an integer and the prefix length (0–32).
pub type PrefixV4 = (u32, u8);
/// An IPv6 prefix: the network address as an integer and the prefix length (0–128).
pub type PrefixV6 = (u128, u8);

/// Why one line is not a prefix (or not an update).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// No `/` between address and length.
    MissingSlash,
    /// The address part is not an address of the expected family.
    BadAddress,
    /// The length is not a decimal number of at most three digits.
    BadLength,
    /// The length is above 32 (IPv4) or 128 (IPv6).
    LengthOutOfRange,
    /// Bits are set past the prefix length (the files are canonical).
    HostBitsSet,
    /// An update line is not `A <prefix>` or `W <prefix>`.
    BadUpdate,
    /// The line is not UTF-8.
    NotUtf8,
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseErrorKind::MissingSlash => "missing '/' between address and length",
            ParseErrorKind::BadAddress => "not an address of the expected family",
            ParseErrorKind::BadLength => "prefix length is not a decimal number",
            ParseErrorKind::LengthOutOfRange => "prefix length out of range",
            ParseErrorKind::HostBitsSet => "bits set past the prefix length",
            ParseErrorKind::BadUpdate => "update is not 'A <prefix>' or 'W <prefix>'",
            ParseErrorKind::NotUtf8 => "line is not UTF-8",
        })
    }
}

impl std::error::Error for ParseErrorKind {}

/// An error reading a table or an update stream.
#[derive(Debug)]
pub enum DataError {
    /// Reading (or decompressing) failed.
    Io(io::Error),
    /// A line is malformed.
    Parse {
        /// 1-based line number.
        line: usize,
        /// The line, trimmed and cut to at most 80 characters.
        text: String,
        /// What is wrong with it.
        kind: ParseErrorKind,
    },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(e) => write!(f, "read error: {e}"),
            DataError::Parse { line, text, kind } => write!(f, "line {line}: {kind}: {text:?}"),
        }
    }
}

impl std::error::Error for DataError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DataError::Io(e) => Some(e),
            DataError::Parse { kind, .. } => Some(kind),
        }
    }
}

impl From<io::Error> for DataError {
    fn from(e: io::Error) -> DataError {
        DataError::Io(e)
    }
}

/// Splits `addr/len` and parses the length (decimal digits only, no sign).
fn split_prefix(text: &str, max_len: u8) -> Result<(&str, u8), ParseErrorKind> {
    let (addr, len) = text.split_once('/').ok_or(ParseErrorKind::MissingSlash)?;
    if len.is_empty() || len.len() > 3 || !len.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseErrorKind::BadLength);
    }
    let len: u16 = len.parse().map_err(|_| ParseErrorKind::BadLength)?;
    if len > u16::from(max_len) {
        return Err(ParseErrorKind::LengthOutOfRange);
    }
    Ok((addr, len as u8))
}

/// Parses one canonical IPv4 prefix `a.b.c.d/len`.
pub fn parse_prefix_v4(text: &str) -> Result<PrefixV4, ParseErrorKind> {
    let (addr, len) = split_prefix(text, 32)?;
    let addr: u32 = addr
        .parse::<Ipv4Addr>()
        .map_err(|_| ParseErrorKind::BadAddress)?
        .into();
    let host = u32::MAX.checked_shr(u32::from(len)).unwrap_or(0);
    if addr & host != 0 {
        return Err(ParseErrorKind::HostBitsSet);
    }
    Ok((addr, len))
}

/// Parses one canonical IPv6 prefix in CIDR notation (`2001:db8::/32`).
pub fn parse_prefix_v6(text: &str) -> Result<PrefixV6, ParseErrorKind> {
    let (addr, len) = split_prefix(text, 128)?;
    let addr: u128 = addr
        .parse::<Ipv6Addr>()
        .map_err(|_| ParseErrorKind::BadAddress)?
        .into();
    let host = u128::MAX.checked_shr(u32::from(len)).unwrap_or(0);
    if addr & host != 0 {
        return Err(ParseErrorKind::HostBitsSet);
    }
    Ok((addr, len))
}

/// One line of an update stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Update<P> {
    /// `A <prefix>`: the prefix is announced.
    Announce(P),
    /// `W <prefix>`: the prefix is withdrawn.
    Withdraw(P),
}

impl<P> Update<P> {
    /// The prefix of the update.
    pub fn prefix(&self) -> &P {
        match self {
            Update::Announce(p) | Update::Withdraw(p) => p,
        }
    }
}

fn parse_update<P>(
    text: &str,
    parse: impl Fn(&str) -> Result<P, ParseErrorKind>,
) -> Result<Update<P>, ParseErrorKind> {
    let mut fields = text.split_whitespace();
    let (Some(tag), Some(prefix), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(ParseErrorKind::BadUpdate);
    };
    match tag {
        "A" => parse(prefix).map(Update::Announce),
        "W" => parse(prefix).map(Update::Withdraw),
        _ => Err(ParseErrorKind::BadUpdate),
    }
}

/// Parses one IPv4 update line, `A <prefix>` or `W <prefix>`.
pub fn parse_update_v4(text: &str) -> Result<Update<PrefixV4>, ParseErrorKind> {
    parse_update(text, parse_prefix_v4)
}

/// Parses one IPv6 update line, `A <prefix>` or `W <prefix>`.
pub fn parse_update_v6(text: &str) -> Result<Update<PrefixV6>, ParseErrorKind> {
    parse_update(text, parse_prefix_v6)
}

/// Wraps a reader so that gzip input (magic `1f 8b`, one or several members) is
/// decompressed and anything else is read as it is.
pub fn gunzip_if_needed<'a, R: Read + 'a>(mut reader: R) -> io::Result<Box<dyn BufRead + 'a>> {
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < head.len() {
        match reader.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let is_gz = head[..got] == [0x1f, 0x8b];
    let whole = io::Cursor::new(head).take(got as u64).chain(reader);
    if is_gz {
        Ok(Box::new(BufReader::new(MultiGzDecoder::new(whole))))
    } else {
        Ok(Box::new(BufReader::new(whole)))
    }
}

/// Reads a line-oriented file, calling `each` on every non-blank, non-comment line.
fn for_each_line<R: Read>(
    reader: R,
    mut each: impl FnMut(&str) -> Result<(), ParseErrorKind>,
) -> Result<(), DataError> {
    let mut input = gunzip_if_needed(reader)?;
    let mut buf = Vec::new();
    let mut line_no = 0usize;
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        line_no += 1;
        let error = |kind, text: &str| DataError::Parse {
            line: line_no,
            text: text.chars().take(80).collect(),
            kind,
        };
        let line = std::str::from_utf8(&buf)
            .map_err(|_| error(ParseErrorKind::NotUtf8, &String::from_utf8_lossy(&buf)))?
            .trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        each(line).map_err(|kind| error(kind, line))?;
    }
}

fn read_all<R: Read, T>(
    reader: R,
    parse: impl Fn(&str) -> Result<T, ParseErrorKind>,
) -> Result<Vec<T>, DataError> {
    let mut out = Vec::new();
    for_each_line(reader, |line| {
        out.push(parse(line)?);
        Ok(())
    })?;
    Ok(out)
}

/// Reads an IPv4 table, one `a.b.c.d/len` per line, plain or gzip.
pub fn read_prefixes_v4<R: Read>(reader: R) -> Result<Vec<PrefixV4>, DataError> {
    read_all(reader, parse_prefix_v4)
}

/// Reads an IPv6 table, one CIDR prefix per line, plain or gzip.
pub fn read_prefixes_v6<R: Read>(reader: R) -> Result<Vec<PrefixV6>, DataError> {
    read_all(reader, parse_prefix_v6)
}

/// Reads an IPv4 update stream (`A <prefix>` / `W <prefix>` lines), plain or gzip, in
/// arrival order.
pub fn read_updates_v4<R: Read>(reader: R) -> Result<Vec<Update<PrefixV4>>, DataError> {
    read_all(reader, parse_update_v4)
}

/// Reads an IPv6 update stream (`A <prefix>` / `W <prefix>` lines), plain or gzip, in
/// arrival order.
pub fn read_updates_v6<R: Read>(reader: R) -> Result<Vec<Update<PrefixV6>>, DataError> {
    read_all(reader, parse_update_v6)
}

/// Reads an IPv4 table from a file (see [`read_prefixes_v4`]).
pub fn read_prefixes_v4_file(path: impl AsRef<Path>) -> Result<Vec<PrefixV4>, DataError> {
    read_prefixes_v4(std::fs::File::open(path)?)
}

/// Reads an IPv6 table from a file (see [`read_prefixes_v6`]).
pub fn read_prefixes_v6_file(path: impl AsRef<Path>) -> Result<Vec<PrefixV6>, DataError> {
    read_prefixes_v6(std::fs::File::open(path)?)
}

/// SplitMix64, the generator of [`sample`]: `state += 0x9e3779b97f4a7c15`, then the output
/// is `state` mixed by `z = (z ^ z>>30)·0xbf58476d1ce4e5b9; z = (z ^ z>>27)·0x94d049bb133111eb;
/// z ^ z>>31` (wrapping arithmetic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (0 when `bound` is 0): the high 64 bits of
    /// `next_u64() · bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }
}

/// Chooses `n` distinct items deterministically, keeping their original order; all of them
/// when `n ≥ items.len()`.
///
/// The algorithm is selection sampling (Knuth, TAOCP vol. 2, 3.4.2, Algorithm S) driven by
/// [`SplitMix64`] seeded with `seed`: for each item `i` in order, with `m` items still to
/// choose among the `len − i` left, draw `r = below(len − i)` and take the item when
/// `r < m`. Exactly `n` items are chosen; the same `(items, n, seed)` always gives the same
/// choice, on every platform. It is part of fibkit's benchmark definition: changing it
/// changes the default route set.
pub fn sample<T: Clone>(items: &[T], n: usize, seed: u64) -> Vec<T> {
    sample_indices(items.len(), n, seed)
        .into_iter()
        .map(|i| items[i].clone())
        .collect()
}

/// The ascending indices that [`sample`] chooses among `len` items.
pub fn sample_indices(len: usize, n: usize, seed: u64) -> Vec<usize> {
    if n >= len {
        return (0..len).collect();
    }
    let mut rng = SplitMix64::new(seed);
    let mut chosen = Vec::with_capacity(n);
    for i in 0..len {
        let need = n - chosen.len();
        if need == 0 {
            break;
        }
        if rng.below((len - i) as u64) < need as u64 {
            chosen.push(i);
        }
    }
    chosen
}

/// The five IPv6 gateways of the kbench route set: 2001:db8:1::3, ::5, ::7, ::9, ::11.
pub const GATEWAYS_V6: [u128; 5] = [
    0x2001_0db8_0001_0000_0000_0000_0000_0003,
    0x2001_0db8_0001_0000_0000_0000_0000_0005,
    0x2001_0db8_0001_0000_0000_0000_0000_0007,
    0x2001_0db8_0001_0000_0000_0000_0000_0009,
    0x2001_0db8_0001_0000_0000_0000_0000_0011,
];

/// Five IPv4 gateways for IPv4 route sets, 192.0.2.3, .5, .7, .9, .11 (TEST-NET-1): fibkit's
/// own choice, mirroring [`GATEWAYS_V6`]; kbench defines none for IPv4.
pub const GATEWAYS_V4: [u32; 5] = [
    0xc000_0203,
    0xc000_0205,
    0xc000_0207,
    0xc000_0209,
    0xc000_020b,
];

/// Pairs each item with a gateway, round-robin in order: item `i` gets
/// `gateways[i % gateways.len()]`. Empty when `gateways` is empty.
pub fn round_robin<T: Clone, G: Copy>(items: &[T], gateways: &[G]) -> Vec<(T, G)> {
    if gateways.is_empty() {
        return Vec::new();
    }
    items
        .iter()
        .zip(gateways.iter().cycle())
        .map(|(item, &gw)| (item.clone(), gw))
        .collect()
}

/// The kbench route set's next hops: one per prefix, round-robin over [`GATEWAYS_V6`].
pub fn with_gateways_v6(prefixes: &[PrefixV6]) -> Vec<(PrefixV6, u128)> {
    round_robin(prefixes, &GATEWAYS_V6)
}

/// One next hop per prefix, round-robin over [`GATEWAYS_V4`].
pub fn with_gateways_v4(prefixes: &[PrefixV4]) -> Vec<(PrefixV4, u32)> {
    round_robin(prefixes, &GATEWAYS_V4)
}

/// The embedded IPv4 full view, gzip-compressed (`data/ris-2026/full-v4.txt.gz`).
pub const EMBEDDED_V4_GZ: &[u8] = include_bytes!("../../../data/ris-2026/full-v4.txt.gz");
/// The embedded IPv6 full view, gzip-compressed (`data/ris-2026/full-v6.txt.gz`).
pub const EMBEDDED_V6_GZ: &[u8] = include_bytes!("../../../data/ris-2026/full-v6.txt.gz");
/// Rows of the embedded IPv4 view.
pub const EMBEDDED_V4_ROWS: usize = 1_042_325;
/// Rows of the embedded IPv6 view.
pub const EMBEDDED_V6_ROWS: usize = 246_175;

/// The embedded IPv4 full view: 1,042,325 distinct prefixes, in the file's order (sorted
/// as text, byte-wise).
///
/// Decoding the embedded file does not fail in practice (tests check it); the `Result`
/// keeps the no-panic rule of the readers.
pub fn embedded_v4() -> Result<Vec<PrefixV4>, DataError> {
    read_prefixes_v4(EMBEDDED_V4_GZ)
}

/// The embedded IPv6 full view: 246,175 distinct prefixes, in the file's order (sorted
/// as text, byte-wise).
pub fn embedded_v6() -> Result<Vec<PrefixV6>, DataError> {
    read_prefixes_v6(EMBEDDED_V6_GZ)
}

/// Size of fibkit's default kbench route set.
pub const DEFAULT_ROUTE_COUNT: usize = 40_000;
/// Seed of [`sample`] for fibkit's default kbench route set.
pub const DEFAULT_SAMPLE_SEED: u64 = 2017;

/// fibkit's default kbench route set: [`DEFAULT_ROUTE_COUNT`] prefixes sampled from the
/// embedded IPv6 view with [`DEFAULT_SAMPLE_SEED`], each with its round-robin gateway.
pub fn default_route_set_v6() -> Result<Vec<(PrefixV6, u128)>, DataError> {
    let all = embedded_v6()?;
    Ok(with_gateways_v6(&sample(
        &all,
        DEFAULT_ROUTE_COUNT,
        DEFAULT_SAMPLE_SEED,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_kind<T: fmt::Debug>(r: Result<T, DataError>) -> (usize, ParseErrorKind) {
        match r {
            Err(DataError::Parse { line, kind, .. }) => (line, kind),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn parses_v4_and_skips_blanks_and_comments() {
        let text = "# header\n\n1.0.0.0/24\r\n  10.0.0.0/8  \n0.0.0.0/0\n255.255.255.255/32\n";
        let got = read_prefixes_v4(text.as_bytes()).unwrap();
        assert_eq!(
            got,
            vec![(0x0100_0000, 24), (0x0a00_0000, 8), (0, 0), (u32::MAX, 32)]
        );
    }

    #[test]
    fn parses_v6() {
        let text = "2001:db8::/32\n::/0\n2a07:1::/48\n::1/128\n";
        let got = read_prefixes_v6(text.as_bytes()).unwrap();
        assert_eq!(
            got,
            vec![
                (0x2001_0db8u128 << 96, 32),
                (0, 0),
                (0x2a07_0001u128 << 96, 48),
                (1, 128)
            ]
        );
    }

    #[test]
    fn malformed_lines_are_errors_with_line_numbers() {
        use ParseErrorKind::*;
        let cases: &[(&str, ParseErrorKind)] = &[
            ("1.0.0.0", MissingSlash),
            ("1.0.0/24", BadAddress),
            ("1.0.0.256/24", BadAddress),
            ("2001:db8::/32", BadAddress),
            ("1.0.0.0/", BadLength),
            ("1.0.0.0/+8", BadLength),
            ("1.0.0.0/-1", BadLength),
            ("1.0.0.0/2x", BadLength),
            ("1.0.0.0/0008", BadLength),
            ("1.0.0.0/33", LengthOutOfRange),
            ("1.0.0.1/24", HostBitsSet),
            ("1.0.0.0/24/1", BadLength),
            ("1.0.0.0 /24", BadAddress),
        ];
        for (bad, kind) in cases {
            let text = format!("10.0.0.0/8\n{bad}\n");
            assert_eq!(
                err_kind(read_prefixes_v4(text.as_bytes())),
                (2, *kind),
                "{bad}"
            );
        }
        let cases6: &[(&str, ParseErrorKind)] = &[
            ("2001:db8::", MissingSlash),
            ("2001:db8:::/32", BadAddress),
            ("1.0.0.0/8", BadAddress),
            ("2001:db8::/129", LengthOutOfRange),
            ("2001:db8::1/64", HostBitsSet),
            ("2001:db8::/999", LengthOutOfRange),
        ];
        for (bad, kind) in cases6 {
            let text = format!("{bad}\n");
            assert_eq!(
                err_kind(read_prefixes_v6(text.as_bytes())),
                (1, *kind),
                "{bad}"
            );
        }
    }

    #[test]
    fn non_utf8_line_is_an_error() {
        let bytes = b"10.0.0.0/8\n\xff\xfe/8\n";
        assert_eq!(
            err_kind(read_prefixes_v4(&bytes[..])),
            (2, ParseErrorKind::NotUtf8)
        );
    }

    #[test]
    fn updates() {
        let text = "A 10.0.0.0/8\nW 1.0.0.0/24\n";
        assert_eq!(
            read_updates_v4(text.as_bytes()).unwrap(),
            vec![
                Update::Announce((0x0a00_0000, 8)),
                Update::Withdraw((0x0100_0000, 24))
            ]
        );
        let text6 = "A 2001:db8::/32\nW 2a07::/16\n";
        let got = read_updates_v6(text6.as_bytes()).unwrap();
        assert_eq!(got[1], Update::Withdraw((0x2a07u128 << 112, 16)));
        assert_eq!(got[0].prefix(), &(0x2001_0db8u128 << 96, 32));
        for bad in [
            "X 10.0.0.0/8",
            "A",
            "A 10.0.0.0/8 extra",
            "10.0.0.0/8",
            "a 10.0.0.0/8",
        ] {
            assert_eq!(
                err_kind(read_updates_v4(bad.as_bytes())),
                (1, ParseErrorKind::BadUpdate),
                "{bad}"
            );
        }
        assert_eq!(
            err_kind(read_updates_v4("A 10.0.0.1/8".as_bytes())),
            (1, ParseErrorKind::HostBitsSet)
        );
    }

    #[test]
    fn gzip_multi_member_is_read() {
        use flate2::write::GzEncoder;
        use flate2::Compression;
        use std::io::Write;
        let mut bytes = Vec::new();
        for part in ["10.0.0.0/8\n", "192.168.0.0/16\n"] {
            let mut enc = GzEncoder::new(Vec::new(), Compression::default());
            enc.write_all(part.as_bytes()).unwrap();
            bytes.extend(enc.finish().unwrap());
        }
        assert_eq!(
            read_prefixes_v4(&bytes[..]).unwrap(),
            vec![(0x0a00_0000, 8), (0xc0a8_0000, 16)]
        );
        // A corrupt gzip stream is an I/O error, not a panic.
        let mut corrupt = bytes.clone();
        corrupt.truncate(15);
        assert!(matches!(
            read_prefixes_v4(&corrupt[..]),
            Err(DataError::Io(_))
        ));
    }

    #[test]
    fn short_inputs() {
        assert_eq!(read_prefixes_v4(&b""[..]).unwrap(), vec![]);
        assert_eq!(
            err_kind(read_prefixes_v4(&b"\x1f"[..])),
            (1, ParseErrorKind::MissingSlash)
        );
        assert!(read_prefixes_v4(&b"\x1f\x8b"[..]).is_err());
    }

    #[test]
    fn sampler_is_deterministic_ordered_and_exact() {
        let items: Vec<u32> = (0..1000).collect();
        let a = sample(&items, 40, 7);
        assert_eq!(a, sample(&items, 40, 7));
        assert_eq!(a.len(), 40);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_ne!(a, sample(&items, 40, 8));
        assert_eq!(sample(&items, 5000, 7), items);
        assert_eq!(sample(&items, 0, 7), Vec::<u32>::new());
        assert_eq!(sample::<u32>(&[], 3, 7), Vec::<u32>::new());
    }

    #[test]
    fn splitmix64_reference_values() {
        // First outputs of SplitMix64 seeded with 0 (the published test vector of the
        // generator: Vigna's splitmix64.c).
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(g.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(g.next_u64(), 0x06c4_5d18_8009_454f);
        assert_eq!(SplitMix64::new(5).below(0), 0);
    }

    #[test]
    fn gateways_round_robin() {
        let prefixes: Vec<PrefixV6> = (0..7u128).map(|i| (i << 64, 64)).collect();
        let routes = with_gateways_v6(&prefixes);
        let gws: Vec<u128> = routes.iter().map(|r| r.1).collect();
        let g = GATEWAYS_V6;
        assert_eq!(gws, vec![g[0], g[1], g[2], g[3], g[4], g[0], g[1]]);
        let parsed: Vec<u128> = [
            "2001:db8:1::3",
            "2001:db8:1::5",
            "2001:db8:1::7",
            "2001:db8:1::9",
            "2001:db8:1::11",
        ]
        .iter()
        .map(|s| s.parse::<Ipv6Addr>().unwrap().into())
        .collect();
        assert_eq!(parsed, GATEWAYS_V6);
        let parsed4: Vec<u32> = [
            "192.0.2.3",
            "192.0.2.5",
            "192.0.2.7",
            "192.0.2.9",
            "192.0.2.11",
        ]
        .iter()
        .map(|s| s.parse::<Ipv4Addr>().unwrap().into())
        .collect();
        assert_eq!(parsed4, GATEWAYS_V4);
        assert_eq!(round_robin::<u8, u8>(&[1, 2], &[]), vec![]);
        assert_eq!(with_gateways_v4(&[(0, 0)]), vec![((0, 0), GATEWAYS_V4[0])]);
    }
}
