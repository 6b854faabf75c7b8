//! Integration tests: property tests against a naive reference, and a check
//! on the real RIS tables when they are present next to the repository.

use std::collections::{BTreeMap, HashMap};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;
use std::process::Command;

use fibkit_lpm::{Key, Lpm, LpmBuilder, PrefixError, NO_MATCH};
use proptest::prelude::*;

/// The reference: exact prefixes (masked address, length) -> value.
type Reference<K> = BTreeMap<(K, u8), u32>;

fn host_mask<K: Key>(len: u8) -> u128 {
    let all = u128::MAX >> (128 - K::BITS);
    if u32::from(len) >= K::BITS {
        0
    } else {
        all >> len
    }
}

/// Naive longest-prefix match: scan everything, keep the longest.
fn naive<K: Key>(r: &Reference<K>, a: K) -> u32 {
    let mut best: Option<(u8, u32)> = None;
    for (&(p, l), &v) in r {
        if a.mask(l) == p && best.is_none_or(|(bl, _)| l > bl) {
            best = Some((l, v));
        }
    }
    best.map_or(NO_MATCH, |(_, v)| v)
}

/// Addresses at every prefix boundary (first, last, and one beyond each).
fn boundary_probes<K: Key>(r: &Reference<K>, extra: &[K]) -> Vec<K> {
    let all = u128::MAX >> (128 - K::BITS);
    let mut out = extra.to_vec();
    out.push(K::from_u128(0));
    out.push(K::from_u128(all));
    for &(p, l) in r.keys() {
        let first = p.to_u128();
        let last = first | host_mask::<K>(l);
        out.push(K::from_u128(first));
        out.push(K::from_u128(last));
        out.push(K::from_u128(first.wrapping_sub(1) & all));
        out.push(K::from_u128(last.wrapping_add(1) & all));
    }
    out
}

fn check_snapshot<K: Key>(
    lpm: &Lpm<K>,
    r: &Reference<K>,
    probes: &[K],
) -> Result<(), TestCaseError> {
    prop_assert_eq!(lpm.len(), r.len());
    let mut batch = vec![0u32; probes.len()];
    lpm.lookup_batch(probes, &mut batch);
    // the addresses inside larger items (a flow's destination), read in place
    let items: Vec<(u16, K, u8)> = probes.iter().map(|&a| (7, a, 9)).collect();
    let mut by = Vec::with_capacity(items.len());
    lpm.lookup_batch_by(&items, |it| it.1, |i, v| by.push((i, v)));
    prop_assert_eq!(by.len(), probes.len());
    for (i, ((&a, &got_batch), &(at, got_by))) in probes.iter().zip(&batch).zip(&by).enumerate() {
        let want = naive(r, a);
        let got = lpm.lookup(a);
        prop_assert_eq!(got, want, "lookup({:?})", a);
        prop_assert_eq!(got_batch, want, "lookup_batch at {:?}", a);
        prop_assert_eq!((at, got_by), (i, want), "lookup_batch_by at {:?}", a);
    }
    let st = lpm.depth_stats();
    prop_assert_eq!(st.count, r.len() as u64);
    Ok(())
}

fn check_builder<K: Key>(b: &LpmBuilder<K>, r: &Reference<K>) -> Result<(), TestCaseError> {
    prop_assert_eq!(b.len(), r.len());
    let got: Vec<(K, u8, u32)> = b.prefixes();
    let want: Vec<(K, u8, u32)> = r.iter().map(|(&(a, l), &v)| (a, l, v)).collect();
    prop_assert_eq!(got, want);
    for (&(a, l), &v) in r {
        prop_assert_eq!(b.get(a, l), Some(v));
    }
    Ok(())
}

/// One raw operation, interpreted for a key type by `run_ops`.
#[derive(Clone, Debug)]
struct RawOp {
    kind: u8,
    seed: usize,
    cut: u32,
    rnd: u128,
    len: u8,
    value: u32,
    pick: usize,
}

fn raw_op(bits: u32, top: u32) -> impl Strategy<Value = RawOp> {
    let bits8 = bits as u8;
    let top8 = top as u8;
    let len = prop_oneof![
        4 => 0..=bits8,
        1 => Just(0u8),
        1 => Just(bits8),
        1 => Just(bits8 - 1),
        1 => (top8 - 1)..=(top8 + 7),
        1 => Just(24u8),
        1 => Just(48u8.min(bits8)),
    ];
    (
        0u8..12,
        0usize..4,
        0..=bits,
        any::<u128>(),
        len,
        0u32..1000,
        any::<usize>(),
    )
        .prop_map(|(kind, seed, cut, rnd, len, value, pick)| RawOp {
            kind,
            seed,
            cut,
            rnd,
            len,
            value,
            pick,
        })
}

/// An address close to one of the seeds: the seed's first `cut` bits, then
/// random bits (so that prefixes nest and overlap).
fn near_seed<K: Key>(seeds: &[u128; 4], op: &RawOp) -> K {
    let all = u128::MAX >> (128 - K::BITS);
    let keep = all & !host_mask::<K>(op.cut.min(K::BITS) as u8);
    K::from_u128((seeds[op.seed] & keep) | (op.rnd & all & !keep))
}

/// `Lpm::is_uniform` against the reference: a "yes" must be true (answers are constant
/// between the boundaries of the stored prefixes, so the prefix is uniform exactly when
/// the reference answers the same at its first address and at every boundary of a
/// longer prefix inside it); with a distinct value per prefix, "no" must mean a longer
/// prefix inside.
fn check_is_uniform<K: Key>(
    lpm: &Lpm<K>,
    r: &Reference<K>,
    seeds: &[u128; 4],
    ops: &[RawOp],
) -> Result<(), TestCaseError> {
    let mut values: Vec<u32> = r.values().copied().collect();
    values.sort_unstable();
    values.dedup();
    let distinct = values.len() == r.len();
    for op in ops {
        let a = near_seed::<K>(seeds, op);
        // the prefix's sibling is often not stored, nor anything under it
        let sibling = |len: u8| {
            let bit = K::BITS.saturating_sub(u32::from(len));
            K::from_u128(a.to_u128() ^ 1u128.checked_shl(bit).unwrap_or(0))
        };
        let lens = [op.len, op.len / 2, op.len.saturating_sub(3), 0];
        // and an address away from the seeds: nothing under its top-level entry
        let away = K::from_u128(op.rnd.rotate_left(61) & (u128::MAX >> (128 - K::BITS)));
        let probes = lens
            .map(|l| (a, l))
            .into_iter()
            .chain(lens.map(|l| (sibling(l), l)))
            .chain([(away, op.len)])
            // a host route beside the address in the first node level: the walk often
            // ends on a leaf above its last level
            .chain([(sibling((K::TOP_BITS + 3) as u8), K::BITS as u8)]);
        for (a, len) in probes {
            let Some(said) = lpm.is_uniform(a, len) else {
                prop_assert!(K::TOP_BITS - u32::from(len) > 6, "None for {:?}/{}", a, len);
                continue;
            };
            let first = a.mask(len).to_u128();
            let last = first | host_mask::<K>(len);
            let mut probes = vec![first];
            let mut longer = false;
            for &(q, l) in r.keys() {
                let qf = q.to_u128();
                if l > len && qf >= first && qf <= last {
                    longer = true;
                    probes.push(qf);
                    let end = qf | host_mask::<K>(l);
                    if end < last {
                        probes.push(end + 1);
                    }
                }
            }
            let v0 = naive(r, K::from_u128(first));
            let uniform = probes.iter().all(|&x| naive(r, K::from_u128(x)) == v0);
            prop_assert!(!said || uniform, "is_uniform {:?}/{}: not uniform", a, len);
            if distinct {
                prop_assert_eq!(said, !longer, "is_uniform {:?}/{}", a, len);
            }
        }
    }
    Ok(())
}

fn run_ops<K: Key>(seeds: [u128; 4], ops: &[RawOp]) -> Result<(), TestCaseError> {
    let mut b = LpmBuilder::<K>::new();
    let mut r: Reference<K> = BTreeMap::new();
    let mut extra: Vec<K> = seeds.iter().map(|&s| K::from_u128(s)).collect();
    let mut history: Vec<(Lpm<K>, Reference<K>)> = Vec::new();
    for op in ops {
        let a = near_seed::<K>(&seeds, op);
        extra.push(a);
        match op.kind {
            0..=5 => {
                let key = (a.mask(op.len), op.len);
                let prev = r.insert(key, op.value);
                prop_assert_eq!(b.insert(a, op.len, op.value), prev);
            }
            6 | 7 => {
                if !r.is_empty() {
                    let &(p, l) = r.keys().nth(op.pick % r.len()).unwrap();
                    let prev = r.remove(&(p, l));
                    prop_assert_eq!(b.remove(p, l), prev);
                }
            }
            8 => {
                let prev = r.remove(&(a.mask(op.len), op.len));
                prop_assert_eq!(b.remove(a, op.len), prev);
            }
            10 => b.compact(),
            _ => {
                let lpm = b.snapshot();
                check_snapshot(&lpm, &r, &boundary_probes(&r, &extra))?;
                history.push((lpm, r.clone()));
            }
        }
    }
    check_builder(&b, &r)?;
    // `within`: every stored prefix inside each operation's prefix (and inside its
    // shorter covers), compared with a filter of the reference
    for op in ops {
        let a = near_seed::<K>(&seeds, op);
        for len in [op.len, op.len / 2, op.len.saturating_sub(3), 0] {
            let mut got = b.within(a, len);
            got.sort_unstable();
            let want: Vec<(K, u8, u32)> = r
                .iter()
                .filter(|((p, l), _)| *l >= len && p.mask(len) == a.mask(len))
                .map(|((p, l), v)| (*p, *l, *v))
                .collect();
            // `has_longer_within`: exact below the top level, never a false "no"
            let longer = want.iter().any(|e| e.1 > len);
            let said = b.has_longer_within(a, len);
            prop_assert_eq!(b.get_and_longer(a, len), (b.get(a, len), said));
            if u32::from(len) > K::TOP_BITS {
                prop_assert_eq!(said, longer, "has_longer_within {:?}/{}", a, len);
            } else {
                prop_assert!(said || !longer, "has_longer_within {:?}/{}", a, len);
            }
            prop_assert_eq!(got, want, "within {:?}/{}", a, len);
        }
    }
    let lpm = b.snapshot();
    check_snapshot(&lpm, &r, &boundary_probes(&r, &extra))?;
    check_is_uniform(&lpm, &r, &seeds, ops)?;
    // Persistence: every earlier snapshot still answers for its own state.
    for (old, old_r) in &history {
        check_snapshot(old, old_r, &boundary_probes(old_r, &extra))?;
    }
    Ok(())
}

/// A table of the operations' prefixes with one value per prefix (its position),
/// checked with [`check_is_uniform`].
fn is_uniform_distinct<K: Key>(seeds: [u128; 4], ops: &[RawOp]) -> Result<(), TestCaseError> {
    let mut r: Reference<K> = BTreeMap::new();
    for op in ops {
        let a = near_seed::<K>(&seeds, op);
        let n = r.len() as u32;
        r.entry((a.mask(op.len), op.len)).or_insert(n);
    }
    let lpm = LpmBuilder::from_iter(r.iter().map(|(&(a, l), &v)| (a, l, v))).snapshot();
    check_is_uniform(&lpm, &r, &seeds, ops)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn v4_random_ops_match_naive(
        seeds in any::<[u128; 4]>(),
        ops in proptest::collection::vec(raw_op(32, u32::TOP_BITS), 1..120),
    ) {
        run_ops::<u32>(seeds, &ops)?;
    }

    #[test]
    fn v6_random_ops_match_naive(
        seeds in any::<[u128; 4]>(),
        ops in proptest::collection::vec(raw_op(128, u128::TOP_BITS), 1..120),
    ) {
        run_ops::<u128>(seeds, &ops)?;
    }

    #[test]
    fn v4_bulk_build_matches_naive(
        seeds in any::<[u128; 4]>(),
        ops in proptest::collection::vec(raw_op(32, u32::TOP_BITS), 0..200),
    ) {
        let items: Vec<(u32, u8, u32)> = ops
            .iter()
            .map(|op| (near_seed::<u32>(&seeds, op), op.len, op.value))
            .collect();
        let mut r: Reference<u32> = BTreeMap::new();
        for &(a, l, v) in &items {
            r.insert((a.mask(l), l), v);
        }
        let mut b = LpmBuilder::from_iter(items.iter().copied());
        check_builder(&b, &r)?;
        let lpm = b.snapshot();
        let extra: Vec<u32> = items.iter().map(|i| i.0).collect();
        check_snapshot(&lpm, &r, &boundary_probes(&r, &extra))?;
    }

    #[test]
    fn v4_is_uniform_tells_longer_prefixes(
        seeds in any::<[u128; 4]>(),
        ops in proptest::collection::vec(raw_op(32, u32::TOP_BITS), 0..150),
    ) {
        is_uniform_distinct::<u32>(seeds, &ops)?;
    }

    #[test]
    fn v6_is_uniform_tells_longer_prefixes(
        seeds in any::<[u128; 4]>(),
        ops in proptest::collection::vec(raw_op(128, u128::TOP_BITS), 0..150),
    ) {
        is_uniform_distinct::<u128>(seeds, &ops)?;
    }

    #[test]
    fn bad_input_is_masked_clamped_or_rejected(
        a in any::<u32>(),
        len in any::<u8>(),
        v in 0u32..10,
    ) {
        let mut b = LpmBuilder::<u32>::new();
        let clamped = len.min(32);
        let res = b.try_insert(a, len, v);
        if len > 32 {
            prop_assert_eq!(res, Err(PrefixError::LengthTooLong { len, max: 32 }));
        } else if a.mask(len) != a {
            prop_assert_eq!(res, Err(PrefixError::HostBitsSet));
        } else {
            prop_assert_eq!(res, Ok(None));
        }
        b.insert(a, len, v);
        prop_assert_eq!(b.get(a.mask(clamped), clamped), Some(v));
        let lpm = b.snapshot();
        prop_assert_eq!(lpm.lookup(a), v);
        prop_assert_eq!(lpm.lookup(a ^ 1), if clamped == 32 { NO_MATCH } else { v });
        prop_assert_eq!(b.remove(a, len), Some(v));
        prop_assert!(b.is_empty());
        prop_assert_eq!(b.snapshot().lookup(a), NO_MATCH);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn v6_bad_input_is_masked_and_clamped(
        a in any::<u128>(),
        len in any::<u8>(),
        v in 0u32..10,
    ) {
        let mut b = LpmBuilder::<u128>::new();
        b.insert(a, len, v);
        let lpm = b.snapshot();
        prop_assert_eq!(lpm.lookup(a), v);
        prop_assert_eq!(b.get(a, len), Some(v));
        prop_assert_eq!(b.get(a.mask(len), len.min(128)), Some(v));
        if len < 128 {
            prop_assert_eq!(b.try_insert(a.mask(len) | 1, len, v), Err(PrefixError::HostBitsSet));
            prop_assert_eq!(b.try_insert(a.mask(len), len, v + 1), Ok(Some(v)));
        } else if len > 128 {
            prop_assert_eq!(
                b.try_insert(a, len, v),
                Err(PrefixError::LengthTooLong { len, max: 128 })
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Real tables.

/// Where a RIS 2026 file is: the full tables are embedded in the repository
/// (`data/ris-2026`), the update streams only in `../shared/data` next to it.
fn data_file(name: &str) -> Option<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        manifest.join("../../data/ris-2026"),
        manifest.join("../../../shared/data/ris-2026"),
    ]
    .into_iter()
    .map(|d| d.join(name))
    .find(|p| p.exists())
}

/// Destinations compared per real table: 100,000 by default,
/// `FIBKIT_REAL_TABLE_KEYS=N` for more.
fn real_table_keys() -> usize {
    std::env::var("FIBKIT_REAL_TABLE_KEYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
        .max(20_000)
}

fn gunzip_lines(name: &str) -> Option<Vec<String>> {
    let path = data_file(name)?;
    let out = Command::new("gzip").arg("-dc").arg(&path).output().ok()?;
    assert!(out.status.success(), "gzip -dc {} failed", path.display());
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
    )
}

fn parse_cidr<K: Key>(s: &str) -> Option<(K, u8)> {
    let (a, l) = s.trim().split_once('/')?;
    let len: u8 = l.parse().ok()?;
    let v = if K::BITS == 32 {
        u128::from(u32::from(a.parse::<Ipv4Addr>().ok()?))
    } else {
        u128::from(a.parse::<Ipv6Addr>().ok()?)
    };
    Some((K::from_u128(v), len))
}

/// Per-length hash maps probed from the longest length down.
struct FastRef<K: Key> {
    maps: Vec<HashMap<K, u32>>,
}

impl<K: Key> FastRef<K> {
    fn new() -> Self {
        FastRef {
            maps: (0..=K::BITS).map(|_| HashMap::new()).collect(),
        }
    }
    fn insert(&mut self, a: K, l: u8, v: u32) {
        self.maps[usize::from(l)].insert(a.mask(l), v);
    }
    fn remove(&mut self, a: K, l: u8) {
        self.maps[usize::from(l)].remove(&a.mask(l));
    }
    fn len(&self) -> usize {
        self.maps.iter().map(HashMap::len).sum()
    }
    fn lookup(&self, a: K) -> u32 {
        for (l, m) in self.maps.iter().enumerate().rev() {
            if m.is_empty() {
                continue;
            }
            if let Some(&v) = m.get(&a.mask(l as u8)) {
                return v;
            }
        }
        NO_MATCH
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn next128(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }
}

/// Half random addresses inside random prefixes, half uniformly random.
fn sample<K: Key>(rng: &mut Rng, pfx: &[(K, u8, u32)], n: usize) -> Vec<K> {
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                let (a, l, _) = pfx[(rng.next() % pfx.len() as u64) as usize];
                K::from_u128(a.to_u128() | (rng.next128() & host_mask::<K>(l)))
            } else {
                K::from_u128(rng.next128())
            }
        })
        .collect()
}

fn compare<K: Key>(lpm: &Lpm<K>, r: &FastRef<K>, keys: &[K]) {
    let mut batch = vec![0u32; keys.len()];
    lpm.lookup_batch(keys, &mut batch);
    let mut matched = 0usize;
    for (&k, &b) in keys.iter().zip(&batch) {
        let want = r.lookup(k);
        assert_eq!(lpm.lookup(k), want, "lookup({k:?})");
        assert_eq!(b, want, "lookup_batch({k:?})");
        matched += usize::from(want != NO_MATCH);
    }
    assert!(
        matched >= keys.len() / 4,
        "half the sample is inside prefixes"
    );
}

fn real_table<K: Key>(full: &str, updates: &str, n_updates: usize) {
    let Some(lines) = gunzip_lines(full) else {
        println!("skipping the real-table test: {full} not found in data/ris-2026");
        return;
    };
    let pfx: Vec<(K, u8, u32)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| parse_cidr::<K>(l).map(|(a, len)| (a, len, i as u32)))
        .collect();
    assert!(
        pfx.len() > 100_000,
        "{full}: only {} prefixes parsed",
        pfx.len()
    );
    let mut r = FastRef::new();
    for &(a, l, v) in &pfx {
        r.insert(a, l, v);
    }
    let mut b = LpmBuilder::from_iter(pfx.iter().copied());
    assert_eq!(b.len(), r.len());
    let first = b.snapshot();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let keys = sample(&mut rng, &pfx, real_table_keys());
    compare(&first, &r, &keys);

    // Apply part of the real update stream, snapshotting every 1000 updates.
    let mut r_first = None;
    if let Some(ulines) = gunzip_lines(updates) {
        r_first = Some(FastRef {
            maps: r.maps.clone(),
        });
        for (i, line) in ulines.iter().take(n_updates).enumerate() {
            let Some((op, p)) = line.split_once(' ') else {
                continue;
            };
            let Some((a, l)) = parse_cidr::<K>(p) else {
                continue;
            };
            if op == "A" {
                b.insert(a, l, 2_000_000 + i as u32);
                r.insert(a, l, 2_000_000 + i as u32);
            } else {
                b.remove(a, l);
                r.remove(a, l);
            }
            if i % 1000 == 999 {
                b.snapshot();
            }
        }
    } else {
        println!("{updates} not found (it is in ../shared/data only): its replay is skipped");
    }
    let last = b.snapshot();
    assert_eq!(last.len(), r.len());
    compare(&last, &r, &keys);
    if let Some(r_first) = r_first {
        compare(&first, &r_first, &keys[..20_000]);
    }
}

#[test]
fn real_table_v4() {
    real_table::<u32>("full-v4.txt.gz", "updates-v4.txt.gz", 20_000);
}

#[test]
fn real_table_v6() {
    real_table::<u128>("full-v6.txt.gz", "updates-v6.txt.gz", 20_000);
}
