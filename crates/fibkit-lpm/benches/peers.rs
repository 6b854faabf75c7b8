//! fibkit-lpm beside the Rust LPM crates on the same table and keys: `prefix-trie`,
//! `ip_network_table` and `iptrie`. The table is the embedded RIS 2026 IPv4 view (every
//! prefix, 1,042,325) or IPv6 view; keys are 4,096 random addresses inside random
//! prefixes, looked up in a loop (single lookups; fibkit also in batch).

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn table(gz: &[u8]) -> Vec<(u128, u8)> {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(gz)
        .read_to_string(&mut s)
        .expect("embedded table");
    s.lines()
        .filter_map(|l| {
            let (a, len) = l.split_once('/')?;
            let len: u8 = len.parse().ok()?;
            let a: IpAddr = a.parse().ok()?;
            Some(match a {
                IpAddr::V4(x) => (u128::from(u32::from(x)), len),
                IpAddr::V6(x) => (u128::from(x), len),
            })
        })
        .collect()
}

fn keys(t: &[(u128, u8)], bits: u32, n: usize) -> Vec<u128> {
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let (a, l) = t[(next() % t.len() as u64) as usize];
            let host = (u128::from(next()) << 64 | u128::from(next())) >> (128 - bits);
            let hostmask = if u32::from(l) >= bits {
                0
            } else {
                (1u128 << (bits - u32::from(l))) - 1
            };
            a | (host & hostmask)
        })
        .collect()
}

const V4: &[u8] = include_bytes!("../../../data/ris-2026/full-v4.txt.gz");
const V6: &[u8] = include_bytes!("../../../data/ris-2026/full-v6.txt.gz");

fn v4(c: &mut Criterion) {
    let t = table(V4);
    let k = keys(&t, 32, 4096);
    let k4: Vec<u32> = k.iter().map(|x| *x as u32).collect();
    let mut g = c.benchmark_group("lpm-v4-ris2026");
    g.throughput(Throughput::Elements(k.len() as u64));

    let fib: fibkit_lpm::Lpm<u32> = {
        let mut b: fibkit_lpm::LpmBuilder<u32> = t
            .iter()
            .enumerate()
            .map(|(i, (a, l))| (*a as u32, *l, i as u32))
            .collect();
        b.snapshot()
    };
    g.bench_function("fibkit-lpm single", |b| {
        b.iter(|| k4.iter().map(|a| fib.lookup(*a) as u64).sum::<u64>())
    });
    let mut out = vec![0u32; k4.len()];
    g.bench_function("fibkit-lpm batch", |b| {
        b.iter(|| {
            fib.lookup_batch(&k4, &mut out);
            black_box(out[0])
        })
    });

    let mut pt = prefix_trie::PrefixMap::<ipnet::Ipv4Net, u32>::new();
    for (i, (a, l)) in t.iter().enumerate() {
        if let Ok(p) = ipnet::Ipv4Net::new(Ipv4Addr::from(*a as u32), *l) {
            pt.insert(p, i as u32);
        }
    }
    g.bench_function("prefix-trie", |b| {
        b.iter(|| {
            k4.iter()
                .map(|a| {
                    let p = ipnet::Ipv4Net::new(Ipv4Addr::from(*a), 32).expect("host prefix");
                    pt.get_lpm(&p).map_or(0, |(_, v)| *v as u64)
                })
                .sum::<u64>()
        })
    });

    let mut nt = ip_network_table::IpNetworkTable::<u32>::new();
    for (i, (a, l)) in t.iter().enumerate() {
        if let Ok(n) = ip_network::Ipv4Network::new(Ipv4Addr::from(*a as u32), *l) {
            nt.insert(n, i as u32);
        }
    }
    g.bench_function("ip_network_table", |b| {
        b.iter(|| {
            k4.iter()
                .map(|a| {
                    nt.longest_match(Ipv4Addr::from(*a))
                        .map_or(0, |(_, v)| *v as u64)
                })
                .sum::<u64>()
        })
    });

    let mut it = iptrie::map::RTrieMap::<iptrie::Ipv4Prefix, u32>::with_root(u32::MAX);
    for (i, (a, l)) in t.iter().enumerate() {
        if let Ok(p) = iptrie::Ipv4Prefix::new(Ipv4Addr::from(*a as u32), *l) {
            it.insert(p, i as u32);
        }
    }
    let lc = it.compress();
    g.bench_function("iptrie (LC-trie)", |b| {
        b.iter(|| {
            k4.iter()
                .map(|a| *lc.lookup(&Ipv4Addr::from(*a)).1 as u64)
                .sum::<u64>()
        })
    });
    g.finish();
}

fn v6(c: &mut Criterion) {
    let t = table(V6);
    let k = keys(&t, 128, 4096);
    let mut g = c.benchmark_group("lpm-v6-ris2026");
    g.throughput(Throughput::Elements(k.len() as u64));
    let fib: fibkit_lpm::Lpm<u128> = {
        let mut b: fibkit_lpm::LpmBuilder<u128> = t
            .iter()
            .enumerate()
            .map(|(i, (a, l))| (*a, *l, i as u32))
            .collect();
        b.snapshot()
    };
    g.bench_function("fibkit-lpm single", |b| {
        b.iter(|| k.iter().map(|a| fib.lookup(*a) as u64).sum::<u64>())
    });
    let mut out = vec![0u32; k.len()];
    g.bench_function("fibkit-lpm batch", |b| {
        b.iter(|| {
            fib.lookup_batch(&k, &mut out);
            black_box(out[0])
        })
    });
    let mut pt = prefix_trie::PrefixMap::<ipnet::Ipv6Net, u32>::new();
    for (i, (a, l)) in t.iter().enumerate() {
        if let Ok(p) = ipnet::Ipv6Net::new(Ipv6Addr::from(*a), *l) {
            pt.insert(p, i as u32);
        }
    }
    g.bench_function("prefix-trie", |b| {
        b.iter(|| {
            k.iter()
                .map(|a| {
                    let p = ipnet::Ipv6Net::new(Ipv6Addr::from(*a), 128).expect("host prefix");
                    pt.get_lpm(&p).map_or(0, |(_, v)| *v as u64)
                })
                .sum::<u64>()
        })
    });
    let mut nt = ip_network_table::IpNetworkTable::<u32>::new();
    for (i, (a, l)) in t.iter().enumerate() {
        if let Ok(n) = ip_network::Ipv6Network::new(Ipv6Addr::from(*a), *l) {
            nt.insert(n, i as u32);
        }
    }
    g.bench_function("ip_network_table", |b| {
        b.iter(|| {
            k.iter()
                .map(|a| {
                    nt.longest_match(Ipv6Addr::from(*a))
                        .map_or(0, |(_, v)| *v as u64)
                })
                .sum::<u64>()
        })
    });
    let mut it = iptrie::map::RTrieMap::<iptrie::Ipv6Prefix, u32>::with_root(u32::MAX);
    for (i, (a, l)) in t.iter().enumerate() {
        if let Ok(p) = iptrie::Ipv6Prefix::new(Ipv6Addr::from(*a), *l) {
            it.insert(p, i as u32);
        }
    }
    let lc = it.compress();
    g.bench_function("iptrie (LC-trie)", |b| {
        b.iter(|| {
            k.iter()
                .map(|a| *lc.lookup(&Ipv6Addr::from(*a)).1 as u64)
                .sum::<u64>()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = v4, v6
}
criterion_main!(benches);
