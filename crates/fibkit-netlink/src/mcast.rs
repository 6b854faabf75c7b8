//! The multicast memberships of the namespace, read from `/proc/net/igmp`,
//! `/proc/net/igmp6` and `/proc/net/dev_mcast` (what `ip maddress` reads): fibkit
//! derives the kernel's own memberships (all-hosts, all-nodes, solicited-node,
//! all-routers, autojoin addresses, proxy entries) from the links and addresses, but not
//! the ones processes hold through their sockets, nor the link-layer addresses `ip maddr
//! add` marked `static`; the translation copies those.

use crate::Warning;

/// One membership of a device, as `/proc` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KMcast {
    /// Interface index.
    pub ifindex: u32,
    /// The membership.
    pub entry: KMcastEntry,
}

/// What a [`KMcast`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KMcastEntry {
    /// A link-layer address of the device's list: references, and whether `ip maddr
    /// add` marked it (`global_use`, printed `static`).
    Link {
        /// The address.
        addr: [u8; 6],
        /// References.
        users: u32,
        /// Marked static.
        global: bool,
    },
    /// An IPv4 group and its joins.
    V4 {
        /// The group.
        group: std::net::Ipv4Addr,
        /// Joins.
        users: u32,
    },
    /// An IPv6 group and its joins.
    V6 {
        /// The group.
        group: std::net::Ipv6Addr,
        /// Joins.
        users: u32,
    },
}

/// `/proc/net/igmp`: a device line (`IDX\tNAME : COUNT QUERIER`), then its groups on
/// lines starting with a tab (`GROUP USERS TIMER REPORTER`, the group as the kernel's
/// `%08X` of the address in network byte order read as a native integer).
pub fn parse_igmp(text: &str) -> Vec<KMcast> {
    let mut out = Vec::new();
    let mut ifindex = None;
    for line in text.lines().skip(1) {
        let mut f = line.split_whitespace();
        if !line.starts_with('\t') {
            ifindex = f.next().and_then(|t| t.parse::<u32>().ok());
            continue;
        }
        let (Some(i), Some(g), Some(u)) = (ifindex, f.next(), f.next()) else {
            continue;
        };
        let (Ok(g), Ok(users)) = (u32::from_str_radix(g, 16), u.parse::<u32>()) else {
            continue;
        };
        // the native integer's bytes are the address's, in memory order
        let group = std::net::Ipv4Addr::from(g.to_ne_bytes());
        out.push(KMcast {
            ifindex: i,
            entry: KMcastEntry::V4 { group, users },
        });
    }
    out
}

/// `/proc/net/igmp6`: `IDX NAME GROUP(32 hex digits) USERS FLAGS TIMER`.
pub fn parse_igmp6(text: &str) -> Vec<KMcast> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let ifindex = f.first()?.parse::<u32>().ok()?;
            let g = f.get(2).filter(|g| g.len() == 32)?;
            let group = std::net::Ipv6Addr::from(u128::from_str_radix(g, 16).ok()?);
            let users = f.get(3)?.parse::<u32>().ok()?;
            Some(KMcast {
                ifindex,
                entry: KMcastEntry::V6 { group, users },
            })
        })
        .collect()
}

/// `/proc/net/dev_mcast`: `IDX NAME REFCOUNT GLOBAL_USE ADDR(hex)`; addresses that are
/// not six bytes long (no modelled kind has them) are left out.
pub fn parse_dev_mcast(text: &str) -> Vec<KMcast> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let ifindex = f.first()?.parse::<u32>().ok()?;
            let users = f.get(2)?.parse::<u32>().ok()?;
            let global = f.get(3)?.parse::<u32>().ok()? != 0;
            let hex = f.get(4).filter(|h| h.len() == 12)?;
            let mut addr = [0u8; 6];
            for (k, b) in addr.iter_mut().enumerate() {
                *b = u8::from_str_radix(hex.get(2 * k..2 * k + 2)?, 16).ok()?;
            }
            Some(KMcast {
                ifindex,
                entry: KMcastEntry::Link {
                    addr,
                    users,
                    global,
                },
            })
        })
        .collect()
}

/// The three files of this namespace (a file that cannot be read is warned about and
/// its memberships are left out).
pub fn read_all(w: &mut Vec<Warning>) -> Vec<KMcast> {
    let mut out = Vec::new();
    for (path, parse) in [
        (
            "/proc/net/dev_mcast",
            parse_dev_mcast as fn(&str) -> Vec<KMcast>,
        ),
        ("/proc/net/igmp", parse_igmp),
        ("/proc/net/igmp6", parse_igmp6),
    ] {
        match std::fs::read_to_string(path) {
            Ok(t) => out.extend(parse(&t)),
            Err(e) => w.push(Warning::new(format!(
                "{path}: {e}: its multicast memberships are not mirrored"
            ))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three formats as this kernel prints them.
    #[test]
    fn parses_the_proc_files() {
        let igmp = "Idx\tDevice    : Count Querier\tGroup    Users Timer\tReporter\n\
                    1\tlo        :     1      V3\n\
                    \t\t\t\t010000E0     1 0:00000000\t\t0\n\
                    4\tv0        :     2      V3\n\
                    \t\t\t\t090909EF     2 0:00000000\t\t0\n\
                    \t\t\t\t010000E0     1 0:00000000\t\t0\n";
        let v4 = parse_igmp(igmp);
        assert_eq!(v4.len(), 3);
        if cfg!(target_endian = "little") {
            assert_eq!(
                v4[1],
                KMcast {
                    ifindex: 4,
                    entry: KMcastEntry::V4 {
                        group: "239.9.9.9".parse().unwrap(),
                        users: 2
                    }
                }
            );
        }
        let igmp6 = "1    lo              ff020000000000000000000000000001     1 0000000C 0\n\
                     4    v0              ff0200000000000000000001ff000001     2 00000004 0\n";
        let v6 = parse_igmp6(igmp6);
        assert_eq!(
            v6[1],
            KMcast {
                ifindex: 4,
                entry: KMcastEntry::V6 {
                    group: "ff02::1:ff00:1".parse().unwrap(),
                    users: 2
                }
            }
        );
        let dev = "4    v0              2     1     01005e000001\n\
                   4    v0              1     0     333300000001\n\
                   5    x               1     0     0102\n";
        let l = parse_dev_mcast(dev);
        assert_eq!(l.len(), 2, "an address of another length is left out");
        assert_eq!(
            l[0].entry,
            KMcastEntry::Link {
                addr: [1, 0, 0x5e, 0, 0, 1],
                users: 2,
                global: true
            }
        );
        assert!(parse_igmp6("garbage\n1 lo zz 1\n").is_empty());
    }
}
