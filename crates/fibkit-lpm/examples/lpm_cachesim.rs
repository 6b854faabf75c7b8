//! A deterministic model of the index's memory behaviour, for layout changes that a
//! timing on a shared, noisy host cannot tell apart.
//!
//! ```text
//! cargo run --release -p fibkit-lpm --example lpm_cachesim [-- v4|v6|kbench ...]
//! ```
//!
//! Every lookup's reads ([`Lpm::trace_lines`]: the real addresses of the top-level
//! entry, the nodes and the leaf, page tables aside) go through a simulated
//! inclusive cache hierarchy shaped like this machine's (32 KiB L1 and 512 KiB L2 per
//! core, 8-way; 16 MiB of the shared L3 assumed ours, 16-way; LRU, 64-byte lines). A
//! lookup's *modelled latency* is the sum over its dependent reads of the slowest
//! level one of the read's lines comes from (cycles: L1 4, L2 14, L3 47, memory 250,
//! typical for this CPU class; the figures compare layouts, they are not timings).
//!
//! - `v4`, `v6`: the embedded RIS 2026 table, 1M random addresses inside random
//!   prefixes (as `fib bench lpm`), the first quarter as warm-up: lines and misses per
//!   lookup, per level.
//! - `kbench`: 40,000 IPv6 routes sampled as `fib bench kbench` does, values over five
//!   gateways, the module's destination walk over 2400::-2a07:: (the README's main
//!   command): modelled latency of the timed hits (median, p90) and their misses.
//! - `batch N`, `single N`: only build the IPv6 index and run `lookup_batch`, or
//!   `lookup` per address, N times (for instruction counts under
//!   `valgrind --tool=cachegrind --cache-sim=no`, see [`batch`]).
//!
//! With no argument `v4`, `v6` and `kbench` run. The lines are real addresses, so
//! the set a line falls in moves a little with the allocator from run to run: the
//! figures repeat to within about 1 %.

use fibkit_bench::data;
use fibkit_bench::kbench::DestWalk;
use fibkit_lpm::{Key, Lpm, LpmBuilder, NO_MATCH};

/// Modelled cycles of a read served by L1, L2, L3, memory.
const LATENCY: [u64; 4] = [4, 14, 47, 250];

/// One set-associative LRU cache level of 64-byte lines.
struct Level {
    ways: usize,
    sets: Vec<Vec<usize>>,
}

impl Level {
    fn new(bytes: usize, ways: usize) -> Level {
        Level {
            ways,
            sets: vec![Vec::with_capacity(ways); bytes / 64 / ways],
        }
    }

    /// Whether `line` is present (no change).
    fn contains(&self, line: usize) -> bool {
        self.sets[line % self.sets.len()].contains(&line)
    }

    /// Reads `line`: whether it was present (it is most recent afterwards).
    fn touch(&mut self, line: usize) -> bool {
        let n = self.sets.len();
        let set = &mut self.sets[line % n];
        let hit = match set.iter().position(|&x| x == line) {
            Some(p) => {
                set.remove(p);
                true
            }
            None => {
                set.truncate(self.ways - 1);
                false
            }
        };
        set.insert(0, line);
        hit
    }
}

/// L1, L2, L3 (inclusive: a read fills every level).
struct Hierarchy([Level; 3]);

impl Hierarchy {
    fn new() -> Hierarchy {
        Hierarchy([
            Level::new(32 << 10, 8),
            Level::new(512 << 10, 8),
            Level::new(16 << 20, 16),
        ])
    }

    /// Reads `line`: the level that served it (0-2, 3 = memory).
    fn read(&mut self, line: usize) -> usize {
        let mut served = 3;
        for (i, l) in self.0.iter_mut().enumerate() {
            if l.touch(line) && served == 3 {
                served = i;
            }
        }
        served
    }
}

/// What the reads of some lookups cost.
#[derive(Default)]
struct Cost {
    lookups: u64,
    lines: u64,
    /// Lines missed in L1, L2, L3.
    misses: [u64; 3],
    /// Modelled latency of each lookup.
    latency: Vec<u64>,
}

impl Cost {
    fn add(&mut self, h: &mut Hierarchy, lines: &[(usize, u8)]) {
        self.lookups += 1;
        let mut latency = 0;
        let mut read = None;
        let mut slowest = 0;
        for &(line, r) in lines {
            if read != Some(r) {
                latency += slowest;
                slowest = 0;
                read = Some(r);
            }
            let level = h.read(line);
            self.lines += 1;
            for m in &mut self.misses[..level] {
                *m += 1;
            }
            slowest = slowest.max(LATENCY[level]);
        }
        self.latency.push(latency + slowest);
    }

    fn report(&mut self, what: &str) {
        let n = self.lookups.max(1) as f64;
        self.latency.sort_unstable();
        let at = |p: usize| self.latency.get(self.latency.len() * p / 100).copied();
        println!(
            "  {what}: {} lookups; per lookup {:.3} lines, misses L1 {:.3} L2 {:.3} L3 {:.3}; \
             modelled latency mean {:.1} cycles, median {}, p90 {}",
            self.lookups,
            self.lines as f64 / n,
            self.misses[0] as f64 / n,
            self.misses[1] as f64 / n,
            self.misses[2] as f64 / n,
            self.latency.iter().sum::<u64>() as f64 / n,
            at(50).unwrap_or(0),
            at(90).unwrap_or(0),
        );
    }
}

/// `n` random addresses inside random prefixes of `pfx` (of `fib bench lpm`'s kind,
/// not its exact ones).
fn inside<K: Key>(pfx: &[(u128, u8)], n: usize) -> Vec<K> {
    let mut rng = data::SplitMix64::new(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            let (a, l) = pfx[rng.below(pfx.len() as u64) as usize];
            let r = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
            let host = (u128::MAX >> (128 - K::BITS)).checked_shr(u32::from(l));
            K::from_u128(a | (r & host.unwrap_or(0)))
        })
        .collect()
}

fn table<K: Key>(name: &str, pfx: &[(u128, u8)]) {
    let mut b = LpmBuilder::<K>::new();
    for (i, &(a, l)) in pfx.iter().enumerate() {
        b.insert(K::from_u128(a), l, i as u32 + 1);
    }
    let lpm = b.snapshot();
    println!(
        "{name}: {} prefixes, index {} bytes ({:.2} bytes/prefix)",
        lpm.len(),
        lpm.memory_bytes(),
        lpm.memory_bytes() as f64 / lpm.len() as f64
    );
    let addrs = inside::<K>(pfx, 1 << 20);
    let (mut h, mut lines) = (Hierarchy::new(), Vec::new());
    let mut cost = Cost::default();
    for (i, &a) in addrs.iter().enumerate() {
        lines.clear();
        lpm.trace_lines(a, &mut lines);
        if i < addrs.len() / 4 {
            // warm-up
            for &(l, _) in &lines {
                h.read(l);
            }
        } else {
            cost.add(&mut h, &lines);
        }
    }
    cost.report("random addresses inside random prefixes");
}

fn kbench() {
    let all = data::embedded_v6().expect("embedded IPv6 table");
    let sample = data::sample(&all, 40_000, data::DEFAULT_SAMPLE_SEED);
    let mut b = LpmBuilder::<u128>::new();
    for (i, &(a, l)) in sample.iter().enumerate() {
        b.insert(a, l, 1 + i as u32 % 5);
    }
    let lpm: Lpm<u128> = b.snapshot();
    println!(
        "kbench: {} IPv6 routes, index {} bytes",
        lpm.len(),
        lpm.memory_bytes()
    );
    let (start, end) = (0x2400u128 << 112, 0x2a07u128 << 112);
    let (mut h, mut lines) = (Hierarchy::new(), Vec::new());
    for _ in 0..100_000 {
        lines.clear();
        lpm.trace_lines(start, &mut lines);
        for &(l, _) in &lines {
            h.read(l);
        }
    }
    let (mut hits, mut cold) = (Cost::default(), Cost::default());
    let mut found = 0;
    for dst in DestWalk::new(start, end, 5000).take(1_000_000) {
        lines.clear();
        lpm.trace_lines(dst, &mut lines);
        if lpm.lookup(dst) == NO_MATCH {
            for &(l, _) in &lines {
                h.read(l);
            }
        } else {
            found += 1;
            // the same hit after a neighbour emptied this core's L1 and L2 (the
            // shared L3 as it is)
            let mut h2 = Hierarchy::new();
            for &(l, _) in &lines {
                if h.0[2].contains(l) {
                    h2.0[2].touch(l);
                }
            }
            cold.add(&mut h2, &lines);
            hits.add(&mut h, &lines);
            if found == 5000 {
                break;
            }
        }
    }
    hits.report("timed hits of the kbench walk");
    cold.report("the same, each with L1 and L2 emptied first");
}

/// `batch N` (`batch4 N`): builds the IPv6 (IPv4) index, then runs `lookup_batch` N
/// times over 2^20 random addresses inside prefixes (for an instruction count: run
/// under `valgrind --tool=cachegrind --cache-sim=no` with N = 0 and N = 2 and divide
/// the difference by 2^21). `single N` (`single4 N`): the same with single lookups.
fn run<K: Key>(pfx: &[(u128, u8)], times: usize, batch: bool) {
    let mut b = LpmBuilder::<K>::new();
    for (i, &(a, l)) in pfx.iter().enumerate() {
        b.insert(K::from_u128(a), l, i as u32 + 1);
    }
    let lpm = b.snapshot();
    let addrs = inside::<K>(pfx, 1 << 20);
    let mut out = vec![0u32; addrs.len()];
    for _ in 0..times {
        if batch {
            lpm.lookup_batch(&addrs, &mut out);
        } else {
            for (o, &a) in out.iter_mut().zip(&addrs) {
                *o = lpm.lookup(a);
            }
        }
    }
    println!("{}", out.iter().map(|&v| u64::from(v)).sum::<u64>());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let v4 = || -> Vec<(u128, u8)> {
        data::embedded_v4()
            .expect("embedded IPv4 table")
            .into_iter()
            .map(|(a, l)| (u128::from(a), l))
            .collect()
    };
    if let [w, n] = &args[..] {
        let n: usize = n.parse().expect("a count");
        let v6 = || data::embedded_v6().expect("embedded IPv6 table");
        match w.as_str() {
            "batch" => return run::<u128>(&v6(), n, true),
            "single" => return run::<u128>(&v6(), n, false),
            "batch4" => return run::<u32>(&v4(), n, true),
            "single4" => return run::<u32>(&v4(), n, false),
            _ => {}
        }
    }
    let want = |w: &str| args.is_empty() || args.iter().any(|a| a == w);
    if want("v4") {
        let pfx = v4();
        table::<u32>("IPv4 RIS 2026", &pfx);
    }
    if want("v6") {
        let pfx = data::embedded_v6().expect("embedded IPv6 table");
        table::<u128>("IPv6 RIS 2026", &pfx);
    }
    if want("kbench") {
        kbench();
    }
}
