//! # fibkit-fuzz: what fibkit takes from outside, fed anything
//!
//! fibkit must not panic on any input, and a command it refuses must change nothing.
//! Each function here takes arbitrary bytes, hands them to one of fibkit's readers and
//! checks what it can; a panic (or a failed check, which panics) is the finding. The
//! coverage-guided fuzz targets in the repository's `fuzz/` directory are one call each
//! to these functions (`cargo +nightly fuzz run TARGET`, see `fuzz/README.md`), and this
//! crate's `replay` test runs every input kept under `fuzz/seeds/` and
//! `fuzz/regressions/` through them on stable Rust, so a fixed finding stays fixed.
//!
//! | target | function | reader |
//! |---|---|---|
//! | `ip_lines` | [`ip_lines`] | `ip` command lines (parser, commands, printers) on a namespace with links of every kind modelled, and the atomicity of refused ones |
//! | `scenario` | [`scenario`] | a scenario file (`fib scenario`): statements, sysctls, sleeps, dumps |
//! | `mrt` | [`mrt`] | MRT records (`fib import mrt`), plain or compressed, and their `bgpdump -m` text |
//! | `netlink` | [`netlink`] | rtnetlink dump payloads (`fib mirror`) and their translation into a namespace |
//! | `proc_text` | [`proc_text`] | the `/proc` multicast lists `fib mirror` reads |
//! | `lpm` | [`lpm`] | the compiled lookup index (`fibkit-lpm`): prefixes inserted and removed in any order, snapshots taken in between, single, view and batch lookups (the prefetching walks of the `unsafe` module) against a plain longest-prefix match |

pub mod atomic;

/// A fuzz target's function: the bytes of one input.
pub type Target = fn(&[u8]);

/// Each fuzz target's name (its file in `fuzz/fuzz_targets/` and its directories under
/// `fuzz/seeds/` and `fuzz/regressions/`) and function.
pub const TARGETS: &[(&str, Target)] = &[
    ("ip_lines", ip_lines),
    ("scenario", scenario),
    ("mrt", mrt),
    ("netlink", netlink),
    ("proc_text", proc_text),
    ("lpm", lpm),
];

use std::sync::OnceLock;

use fibkit::Netns;
use fibkit_iproute::scenario::Runner;

/// Lines of one input beyond which the rest is ignored (keeps each run short).
const MAX_LINES: usize = 12;

/// The namespace [`ip_lines`] starts from: [`atomic::SETUP`] applied to a fresh one.
fn base() -> &'static Netns {
    static BASE: OnceLock<Netns> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut ns = Netns::new();
        for argv in atomic::scenario_lines(atomic::SETUP) {
            if let Err(e) = fibkit_iproute::exec::run_ip(&mut ns, &argv) {
                panic!("setup line `ip {}` refused: {}", argv.join(" "), e.stderr);
            }
        }
        ns
    })
}

/// `data` as an `ip -batch` file, read as `fib -batch` reads one
/// ([`fibkit_iproute::batch::Reader`]: comments, continuation lines, quoted words, a
/// leading `ip` optional; reading stops where iproute2's stops), its commands run in
/// turn on the [`atomic::SETUP`] namespace. Panics when a refused line changed the
/// namespace (see [`atomic::check_lines`]), or when an accepted line with `-json` among
/// its options printed something other than JSON values (iproute2's JSON writer always
/// closes what it opens).
pub fn ip_lines(data: &[u8]) {
    let lines: Vec<Vec<String>> = fibkit_iproute::batch::Reader::new(data)
        .map_while(|step| match step {
            fibkit_iproute::batch::Step::Command { mut words, .. } => {
                fibkit_iproute::batch::drop_leading_ip(&mut words);
                Some(words)
            }
            fibkit_iproute::batch::Step::Stop { .. } => None,
        })
        .take(MAX_LINES)
        .collect();
    let mut ns = base().clone();
    if let Err(e) = atomic::check_lines_with(&mut ns, &lines, json_is_json) {
        panic!("{e}");
    }
}

/// Whether `argv`'s options (the words before the object) ask for JSON: `-j`, `-js`,
/// ..., `-json`, as iproute2's `matches()` takes them.
fn wants_json(argv: &[String]) -> bool {
    argv.iter()
        .take_while(|w| w.starts_with('-'))
        .any(|w| w.len() >= 2 && "-json".starts_with(w.as_str()))
}

/// The output of an accepted `-json` line must be a sequence of JSON values.
fn json_is_json(argv: &[String], out: &fibkit_iproute::exec::Outcome) -> Result<(), String> {
    let fibkit_iproute::exec::Outcome::Ok(text) = out else {
        return Ok(());
    };
    if !wants_json(argv) {
        return Ok(());
    }
    // iproute2 6.1's own exceptions, recorded from it: `-echo` opens its JSON array
    // twice (`[{{...}}]`, conformance scenario 386), `ip -j neigh get` prints text
    // (`ipneigh_get` opens no JSON object, scenario 278)
    let opts: Vec<&str> = argv
        .iter()
        .map(String::as_str)
        .take_while(|w| w.starts_with('-'))
        .collect();
    let object = argv.get(opts.len()).map_or("", String::as_str);
    let neigh =
        !object.is_empty() && ("neighbor".starts_with(object) || "neighbour".starts_with(object));
    if opts.iter().any(|o| o.len() >= 3 && "-echo".starts_with(o))
        || (neigh && argv.iter().any(|w| w == "get"))
    {
        return Ok(());
    }
    for v in serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>() {
        if let Err(e) = v {
            return Err(format!(
                "`ip {}` printed invalid JSON ({e}):\n{text}",
                argv.join(" ")
            ));
        }
    }
    Ok(())
}

/// `data` as a scenario file run by `fib scenario` (UTF-8, lossily; at most
/// [`MAX_LINES`] statements, 4 KiB).
pub fn scenario(data: &[u8]) {
    let text = String::from_utf8_lossy(&data[..data.len().min(4096)]);
    let text: Vec<&str> = text.lines().take(MAX_LINES).collect();
    let mut r = Runner::new();
    r.run_text(&text.join("\n"));
}

/// `data` as an MRT file (plain, gzip or bzip2): every record read, and those that
/// decode printed as `bgpdump -m` lines. Reading stops at the first record that does
/// not decode, after 10,000 records, or after 16 MiB of output.
pub fn mrt(data: &[u8]) {
    let Ok(reader) = fibkit_mrt::Reader::new(data) else {
        return;
    };
    let mut out = String::new();
    for rec in reader.take(10_000) {
        match rec {
            Ok(r) => fibkit_mrt::bgpdump::write_lines(&r, &mut out),
            Err(_) => break,
        }
        if out.len() > 16 << 20 {
            break;
        }
    }
}

/// `data` as rtnetlink dump payloads, each `[kind][length, 2 bytes little-endian]
/// [payload]` (kind modulo 7: link, address, route, rule, nexthop, bucket, neighbour),
/// decoded into a kernel state as `fib mirror` decodes a dump, then translated into a
/// fibkit namespace and into the commands that rebuild it.
pub fn netlink(data: &[u8]) {
    use fibkit_netlink::kernel;
    let mut k = fibkit_netlink::KernelState::default();
    let mut w = Vec::new();
    let mut rest = data;
    while let [kind, l0, l1, tail @ ..] = rest {
        let len = usize::from(u16::from_le_bytes([*l0, *l1])).min(tail.len());
        let (p, next) = tail.split_at(len);
        rest = next;
        match kind % 7 {
            0 => k.links.extend(kernel::decode_link(p, &mut w)),
            1 => k.addrs.extend(kernel::decode_addr(p, &mut w)),
            2 => k.routes.extend(kernel::decode_route(p, &mut w)),
            3 => k.rules.extend(kernel::decode_rule(p, &mut w)),
            4 => k.nexthops.extend(kernel::decode_nexthop(p, &mut w)),
            5 => k.nh_buckets.extend(kernel::decode_bucket(p, &mut w)),
            _ => k.neighs.extend(kernel::decode_neigh(p, &mut w)),
        }
    }
    k.warnings = w;
    let _ = k.to_commands();
}

/// `data` as the texts of `/proc/net/igmp`, `/proc/net/igmp6` and `/proc/net/dev_mcast`
/// (UTF-8, lossily), parsed as `fib mirror` parses them.
pub fn proc_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = fibkit_netlink::mcast::parse_igmp(&text);
    let _ = fibkit_netlink::mcast::parse_igmp6(&text);
    let _ = fibkit_netlink::mcast::parse_dev_mcast(&text);
}

/// `data` as a sequence of changes to a lookup index and checks of it: the first byte
/// picks the family (even: IPv4, odd: IPv6), then each operation is one byte and an
/// address: `op % 4` is 0 or 1 to insert the prefix (the next byte, modulo the key's
/// bits + 1, is its length; its value counts the inserts), 2 to remove it, 3 to take a
/// snapshot and look up every address seen so far and its neighbours (±1, the
/// prefix's first and last addresses) in it, singly, through a view and in batches of
/// several group sizes (three such checks at most, and one at the end: a snapshot
/// with short prefixes fills much of the 2^24-entry IPv6 top level). Every answer must be the value of the longest prefix a plain
/// map holds for the address. Panics on a difference.
pub fn lpm(data: &[u8]) {
    let Some((&family, ops)) = data.split_first() else {
        return;
    };
    if family % 2 == 0 {
        lpm_check::<u32>(ops);
    } else {
        lpm_check::<u128>(ops);
    }
}

fn lpm_check<K: fibkit_lpm::Key>(mut ops: &[u8]) {
    use std::collections::BTreeMap;
    let bytes = (K::BITS / 8) as usize;
    let mut b = fibkit_lpm::LpmBuilder::<K>::new();
    let mut reference: BTreeMap<(u128, u8), u32> = BTreeMap::new();
    let mut seen: Vec<u128> = Vec::new();
    let mut next_value = 0u32;
    let mut checks = 0;
    let mask = |a: u128, len: u8| -> u128 {
        if len == 0 {
            0
        } else {
            a & (u128::MAX << (128 - u32::from(len))) >> (128 - K::BITS)
        }
    };
    let best = |r: &BTreeMap<(u128, u8), u32>, a: u128| -> u32 {
        (0..=K::BITS as u8)
            .rev()
            .find_map(|l| r.get(&(mask(a, l), l)).copied())
            .unwrap_or(fibkit_lpm::NO_MATCH)
    };
    let check =
        |b: &mut fibkit_lpm::LpmBuilder<K>, r: &BTreeMap<(u128, u8), u32>, seen: &[u128]| {
            let lpm = b.snapshot();
            let keys: Vec<K> = seen.iter().map(|a| K::from_u128(*a)).collect();
            let want: Vec<u32> = seen.iter().map(|a| best(r, *a)).collect();
            let view = lpm.view();
            for (k, w) in keys.iter().zip(&want) {
                assert_eq!(lpm.lookup(*k), *w, "lookup {k:?}");
                assert_eq!(view.lookup(*k), *w, "view lookup {k:?}");
            }
            let mut out = vec![0; keys.len()];
            lpm.lookup_batch(&keys, &mut out);
            assert_eq!(out, want, "lookup_batch");
            lpm.lookup_batch_groups::<1>(&keys, &mut out);
            assert_eq!(out, want, "lookup_batch_groups::<1>");
            lpm.lookup_batch_groups::<3>(&keys, &mut out);
            assert_eq!(out, want, "lookup_batch_groups::<3>");
            assert_eq!(lpm.len(), r.len(), "prefix count");
        };
    while let [op, rest @ ..] = ops {
        if rest.len() < bytes + 1 {
            break;
        }
        let (addr_bytes, tail) = rest.split_at(bytes);
        let len = (tail[0] as u32 % (K::BITS + 1)) as u8;
        ops = &tail[1..];
        let a = addr_bytes
            .iter()
            .fold(0u128, |acc, x| (acc << 8) | u128::from(*x));
        let p = mask(a, len);
        match op % 4 {
            0 | 1 => {
                next_value += 1;
                b.insert(K::from_u128(a), len, next_value);
                reference.insert((p, len), next_value);
            }
            2 => {
                assert_eq!(
                    b.remove(K::from_u128(a), len),
                    reference.remove(&(p, len)),
                    "remove {p:#x}/{len}"
                );
            }
            _ if checks < 3 => {
                checks += 1;
                check(&mut b, &reference, &seen);
            }
            _ => {}
        }
        let last = p | !mask(u128::MAX, len) & (u128::MAX >> (128 - K::BITS));
        for x in [a, a.wrapping_sub(1), a.wrapping_add(1), p, last] {
            seen.push(x & (u128::MAX >> (128 - K::BITS)));
        }
        seen.truncate(4096);
    }
    check(&mut b, &reference, &seen);
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibkit_iproute::exec::Outcome;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn json_check_refuses_text_and_takes_iproute2s_exceptions() {
        let text = Outcome::Ok("10.0.0.0/24 dev d0\n".into());
        let json = Outcome::Ok("[{\"dst\":\"10.0.0.0/24\"}]\n[]\n".into());
        assert!(json_is_json(&words("-j route show"), &text).is_err());
        assert!(json_is_json(&words("-js -4 route show"), &text).is_err());
        assert!(json_is_json(&words("-j route show"), &json).is_ok());
        assert!(json_is_json(&words("route show"), &text).is_ok());
        assert!(json_is_json(&words("-j neigh get 10.0.0.2 dev d0"), &text).is_ok());
        assert!(json_is_json(&words("-j -echo route add 10.0.0.0/24 dev d0"), &text).is_ok());
        assert!(json_is_json(&words("-j nexthop get id 1"), &text).is_err());
    }

    #[test]
    fn refused_lines_are_counted_and_checked() {
        // the second add is refused (EEXIST) and changes nothing
        let mut ns = base().clone();
        let lines = vec![
            words("route add 10.99.0.0/16 dev d0"),
            words("route add 10.99.0.0/16 dev d0"),
        ];
        assert_eq!(atomic::check_lines(&mut ns, &lines), Ok(1));
    }
}
