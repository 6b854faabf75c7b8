//! Benchmark on the real RIS tables (when `../shared/data` exists next to
//! the repository): bulk build time, memory, single and batch lookup rates,
//! and update batches.
//!
//! ```text
//! cargo run --release -p fibkit-lpm --example lpm_bench [-- WHAT...]
//! ```
//!
//! With no argument everything runs; otherwise only the named parts:
//! `v4`, `v6` (families), `lookups`, `updates`, `batchonly` (lookups:
//! only `lookup_batch`, best of 20 passes) and `groups` (lookups: the batch
//! walk with 8 to 48 lanes per group, timed in turn in each pass).

use std::hint::black_box;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use fibkit_lpm::{Key, Lpm, LpmBuilder};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/ris-2026")
}

fn gunzip_lines(name: &str) -> Option<Vec<String>> {
    let path = data_dir().join(name);
    if !path.exists() {
        return None;
    }
    let out = Command::new("gzip").arg("-dc").arg(&path).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
    )
}

trait Parse: Key {
    fn parse_cidr(s: &str) -> Option<(Self, u8)>;
}

impl Parse for u32 {
    fn parse_cidr(s: &str) -> Option<(Self, u8)> {
        let (a, l) = s.trim().split_once('/')?;
        Some((u32::from(a.parse::<Ipv4Addr>().ok()?), l.parse().ok()?))
    }
}

impl Parse for u128 {
    fn parse_cidr(s: &str) -> Option<(Self, u8)> {
        let (a, l) = s.trim().split_once('/')?;
        Some((u128::from(a.parse::<Ipv6Addr>().ok()?), l.parse().ok()?))
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn next128(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }
}

fn random_inside<K: Key>(rng: &mut Rng, pfx: &[(K, u8, u32)], n: usize) -> Vec<K> {
    (0..n)
        .map(|_| {
            let (a, l, _) = pfx[(rng.next() % pfx.len() as u64) as usize];
            let host = if u32::from(l) >= K::BITS {
                0
            } else {
                (u128::MAX >> (128 - K::BITS)) >> l
            };
            K::from_u128(a.to_u128() | (rng.next128() & host))
        })
        .collect()
}

fn rate(n: usize, d: Duration) -> String {
    format!(
        "{:.1} M/s ({:.2} ns each)",
        n as f64 / d.as_secs_f64() / 1e6,
        d.as_nanos() as f64 / n as f64
    )
}

fn bench_lookups<K: Key>(lpm: &Lpm<K>, addrs: &[K]) {
    // Warm up.
    let mut out = vec![0u32; addrs.len()];
    lpm.lookup_batch(addrs, &mut out);

    let reps = 5;
    if std::env::args().any(|a| a == "groups") {
        // the batch walk's group size, every size timed in turn in each pass
        type Run<K> = fn(&Lpm<K>, &[K], &mut [u32]);
        let sizes: [(usize, Run<K>); 5] = [
            (8, |l, a, o| l.lookup_batch_groups::<8>(a, o)),
            (16, |l, a, o| l.lookup_batch_groups::<16>(a, o)),
            (24, |l, a, o| l.lookup_batch_groups::<24>(a, o)),
            (32, |l, a, o| l.lookup_batch_groups::<32>(a, o)),
            (48, |l, a, o| l.lookup_batch_groups::<48>(a, o)),
        ];
        let mut best = [Duration::MAX; 5];
        for _ in 0..reps * 4 {
            for (b, (_, run)) in best.iter_mut().zip(&sizes) {
                let t = Instant::now();
                run(lpm, addrs, &mut out);
                black_box(&out);
                *b = (*b).min(t.elapsed());
            }
        }
        let want: Vec<u32> = addrs.iter().map(|&a| lpm.lookup(a)).collect();
        assert!(out == want, "group walk differs");
        for ((g, _), b) in sizes.iter().zip(best) {
            print!(
                "  groups of {g}: {:.1}",
                addrs.len() as f64 / b.as_secs_f64() / 1e6
            );
        }
        println!(" M/s");
        return;
    }
    if std::env::args().any(|a| a == "batchonly") {
        let mut best = Duration::MAX;
        for _ in 0..reps * 4 {
            let t = Instant::now();
            lpm.lookup_batch(addrs, &mut out);
            black_box(&out);
            best = best.min(t.elapsed());
        }
        println!("  lookup_batch (best):    {}", rate(addrs.len(), best));
        return;
    }
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..reps {
        for &a in addrs {
            acc = acc.wrapping_add(u64::from(lpm.lookup(a)));
        }
    }
    black_box(acc);
    println!(
        "  lookup (independent):   {}",
        rate(reps * addrs.len(), t.elapsed())
    );

    // Latency: each address depends on the previous result.
    let t = Instant::now();
    let mut dep = 0u32;
    for _ in 0..reps {
        for &a in addrs {
            let k = K::from_u128(a.to_u128() ^ u128::from(dep & 0x8000_0000));
            dep = lpm.lookup(k);
        }
    }
    black_box(dep);
    println!(
        "  lookup (dependent):     {}",
        rate(reps * addrs.len(), t.elapsed())
    );

    let t = Instant::now();
    for _ in 0..reps {
        lpm.lookup_batch(addrs, &mut out);
        black_box(&out);
    }
    println!(
        "  lookup_batch:           {}",
        rate(reps * addrs.len(), t.elapsed())
    );
    let same = addrs.iter().zip(&out).all(|(&a, &o)| lpm.lookup(a) == o);
    println!("  batch == single:        {same}");
}

fn run<K: Parse>(name: &str, updates: &str, want: &dyn Fn(&str) -> bool) {
    let Some(lines) = gunzip_lines(name) else {
        println!(
            "{name}: data not found under {}, skipped",
            data_dir().display()
        );
        return;
    };
    let pfx: Vec<(K, u8, u32)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| K::parse_cidr(l).map(|(a, len)| (a, len, i as u32)))
        .collect();
    println!("{name}: {} prefixes", pfx.len());

    // Bulk build, best of 3.
    let mut best = Duration::MAX;
    let mut t_ins = Duration::MAX;
    let mut lpm = Lpm::default();
    for _ in 0..3 {
        let t = Instant::now();
        let mut b = LpmBuilder::from_iter(pfx.iter().copied());
        t_ins = t_ins.min(t.elapsed());
        lpm = b.snapshot();
        best = best.min(t.elapsed());
    }
    println!(
        "  bulk build (from_iter + snapshot): {:.1} ms (best of 3; from_iter alone {:.1} ms)",
        best.as_secs_f64() * 1e3,
        t_ins.as_secs_f64() * 1e3
    );
    let mem = lpm.memory_bytes();
    println!(
        "  memory: {} bytes = {:.2} bytes/prefix",
        mem,
        mem as f64 / pfx.len() as f64
    );
    let st = lpm.depth_stats();
    println!(
        "  depth: mean {:.3}, max {}, sum {}, count {}",
        st.mean(),
        st.max,
        st.sum,
        st.count
    );

    if std::env::args().any(|a| a == "compactonly") {
        let mut b = LpmBuilder::from_iter(pfx.iter().copied());
        let mut best = Duration::MAX;
        for _ in 0..20 {
            b.compact();
            let t = Instant::now();
            black_box(b.snapshot());
            best = best.min(t.elapsed());
        }
        println!(
            "  full rebuild (compact + snapshot): {:.1} ms (best of 20)",
            best.as_secs_f64() * 1e3
        );
        return;
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    if want("lookups") {
        let inside = random_inside(&mut rng, &pfx, 1 << 20);
        println!(" random addresses inside random prefixes (1M):");
        bench_lookups(&lpm, &inside);
        let hot = random_inside(&mut rng, &pfx[..pfx.len() / 100], 1 << 20);
        println!(" random addresses inside the first 1% of the prefixes (1M, cache-resident):");
        bench_lookups(&lpm, &hot);
        let uniform: Vec<K> = (0..1 << 20).map(|_| K::from_u128(rng.next128())).collect();
        println!(" uniformly random addresses (1M):");
        bench_lookups(&lpm, &uniform);
    }
    if !want("updates") {
        return;
    }

    // Update batches: the real update stream, 1000 updates per snapshot.
    if let Some(ulines) = gunzip_lines(updates) {
        let ups: Vec<(bool, K, u8)> = ulines
            .iter()
            .filter_map(|l| {
                let (op, p) = l.split_once(' ')?;
                let (a, len) = K::parse_cidr(p)?;
                Some((op == "A", a, len))
            })
            .collect();
        let mut b = LpmBuilder::from_iter(pfx.iter().copied());
        let mut keep = b.snapshot();
        let batches = (ups.len() / 1000).min(1000);
        let mut times: Vec<Duration> = Vec::with_capacity(batches);
        let mut upd_only = Duration::ZERO;
        for (bi, chunk) in ups.chunks(1000).take(batches).enumerate() {
            let t = Instant::now();
            for (j, &(add, a, len)) in chunk.iter().enumerate() {
                if add {
                    b.insert(a, len, (bi * 1000 + j) as u32);
                } else {
                    b.remove(a, len);
                }
            }
            upd_only += t.elapsed();
            let snap = b.snapshot();
            times.push(t.elapsed());
            // Keep the previous snapshot alive until the new one exists,
            // like a reader-held snapshot would be.
            keep = snap;
        }
        black_box(&keep);
        report_batches("real update stream", &times, upd_only);
        b.compact();
        let t = Instant::now();
        let compacted = b.snapshot();
        println!(
            "  forced compaction after the stream: {:.1} ms ({:.2} bytes/prefix after)",
            t.elapsed().as_secs_f64() * 1e3,
            compacted.memory_bytes() as f64 / compacted.len() as f64
        );
        println!(
            "  memory after updates: {:.2} bytes/prefix ({} prefixes)",
            keep.memory_bytes() as f64 / keep.len() as f64,
            keep.len()
        );
    }

    // Random churn: withdraw and re-announce 500 random prefixes per batch.
    let mut b = LpmBuilder::from_iter(pfx.iter().copied());
    let mut keep = b.snapshot();
    let mut times = Vec::new();
    let mut upd_only = Duration::ZERO;
    for round in 0..300u32 {
        let picks: Vec<(K, u8, u32)> = (0..500)
            .map(|_| pfx[(rng.next() % pfx.len() as u64) as usize])
            .collect();
        let t = Instant::now();
        for &(a, l, _) in &picks {
            b.remove(a, l);
        }
        for &(a, l, v) in &picks {
            b.insert(a, l, v ^ (round << 24));
        }
        upd_only += t.elapsed();
        keep = b.snapshot();
        times.push(t.elapsed());
    }
    black_box(&keep);
    report_batches("random churn (500 removes + 500 inserts)", &times, upd_only);
}

fn report_batches(what: &str, times: &[Duration], upd_only: Duration) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let total: Duration = times.iter().sum();
    let slow = times.iter().filter(|t| t.as_millis() >= 5).count();
    println!(
        "  {what}: {} batches of 1000 + snapshot: mean {:.1} us, median {:.1} us, p99 {:.1} us, max {:.1} us ({slow} batches >= 5 ms, mostly full rebuilds); updates alone {:.1} us/batch",
        times.len(),
        total.as_secs_f64() * 1e6 / times.len() as f64,
        sorted[sorted.len() / 2].as_secs_f64() * 1e6,
        sorted[sorted.len() * 99 / 100].as_secs_f64() * 1e6,
        sorted[sorted.len() - 1].as_secs_f64() * 1e6,
        upd_only.as_secs_f64() * 1e6 / times.len() as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let want = |w: &str| args.is_empty() || args.iter().any(|a| a == w);
    if want("v4") {
        run::<u32>("full-v4.txt.gz", "updates-v4.txt.gz", &want);
    }
    if want("v6") {
        run::<u128>("full-v6.txt.gz", "updates-v6.txt.gz", &want);
    }
}
