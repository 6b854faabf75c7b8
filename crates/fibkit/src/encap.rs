//! Lightweight tunnel encapsulations of a route's nexthop (`encap ip|ip6|seg6`; the
//! kernel's lwtunnel states: net/ipv4/ip_tunnel_core.c, net/ipv6/seg6_iptunnel.c).
//!
//! An encapsulation does not change which route a lookup finds: it travels with the
//! nexthop, is shown with it, tells two otherwise equal IPv4 routes (and IPv6
//! multipath legs) apart, and is matched by an IPv4 delete that names one. The types
//! this kernel has are modelled (`seg6local` with the behaviours it has); `mpls`, `ila`,
//! `ioam6`, `rpl` and `xfrm` it refuses (EOPNOTSUPP). fibkit loads no eBPF program, so a
//! `bpf` encapsulation or an `End.BPF` behaviour reaches it only without one, which the
//! kernel refuses where it builds the state ([`Encap::Refused`], EINVAL).

/// `TUNNEL_CSUM` of `LWTUNNEL_IP_FLAGS`.
pub const TUNNEL_CSUM: u16 = 0x01;
/// `TUNNEL_KEY`.
pub const TUNNEL_KEY: u16 = 0x04;
/// `TUNNEL_SEQ`.
pub const TUNNEL_SEQ: u16 = 0x08;

/// The `TUNNEL_*` flags iproute2 reads and shows, with their words, in its order.
pub const TUNNEL_FLAG_NAMES: [(u16, &str); 3] = [
    (TUNNEL_KEY, "key"),
    (TUNNEL_CSUM, "csum"),
    (TUNNEL_SEQ, "seq"),
];

/// An SRH's segments as iproute2's `parse_srh` makes them from `listed` (the words of
/// `segs`): one `::` when none, and a last `::` for the final destination when the
/// header is inserted (`slot`: an inline header, a seg6local one but End.B6.Encaps's).
pub fn srh_segments(mut listed: Vec<u128>, slot: bool) -> Vec<u128> {
    if listed.is_empty() {
        listed.push(0);
    }
    if slot {
        listed.push(0);
    }
    listed
}

/// The inverse of [`srh_segments`]: the segments to list in `segs` again.
pub fn srh_listed(segs: &[u128], slot: bool) -> &[u128] {
    let n = if slot {
        segs.len().saturating_sub(1).max(1)
    } else {
        segs.len()
    };
    &segs[..n.min(segs.len())]
}

/// The names of SRv6 behaviours (`seg6local action`), in the order of their codes
/// (`SEG6_LOCAL_ACTION_END` = 1, ...).
pub const SEG6LOCAL_ACTIONS: [&str; 16] = [
    "End",
    "End.X",
    "End.T",
    "End.DX2",
    "End.DX6",
    "End.DX4",
    "End.DT6",
    "End.DT4",
    "End.B6",
    "End.B6.Encaps",
    "End.BM",
    "End.S",
    "End.AS",
    "End.AM",
    "End.BPF",
    "End.DT46",
];

/// An SRv6 encapsulation's mode (`SEG6_IPTUN_MODE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seg6Mode {
    /// `inline`: the SRH is inserted (IPv6 routes only).
    Inline,
    /// `encap`: an outer IPv6 header with the SRH.
    Encap,
    /// `l2encap`.
    L2Encap,
    /// `encap.red` (reduced SRH).
    EncapRed,
    /// `l2encap.red`.
    L2EncapRed,
}

impl Seg6Mode {
    /// iproute2's name.
    pub fn name(self) -> &'static str {
        match self {
            Seg6Mode::Inline => "inline",
            Seg6Mode::Encap => "encap",
            Seg6Mode::L2Encap => "l2encap",
            Seg6Mode::EncapRed => "encap.red",
            Seg6Mode::L2EncapRed => "l2encap.red",
        }
    }

    /// The mode named `s`.
    pub fn from_name(s: &str) -> Option<Seg6Mode> {
        Some(match s {
            "inline" => Seg6Mode::Inline,
            "encap" => Seg6Mode::Encap,
            "l2encap" => Seg6Mode::L2Encap,
            "encap.red" => Seg6Mode::EncapRed,
            "l2encap.red" => Seg6Mode::L2EncapRed,
            _ => return None,
        })
    }
}

/// `VXLAN_GBP_MASK`: the group policy bits a VXLAN option keeps (don't learn, policy
/// applied, the 16-bit group id).
pub const VXLAN_GBP_MASK: u32 = 0x0040_0000 | 0x0008_0000 | 0xffff;

/// One encapsulation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encap {
    /// `encap ip`: an IPv4 tunnel's metadata (for collect-metadata tunnel devices).
    Ip {
        /// Tunnel id (`id`).
        id: u64,
        /// Outer source.
        src: u32,
        /// Outer destination.
        dst: u32,
        /// Outer TTL (0: inherit).
        ttl: u8,
        /// Outer TOS.
        tos: u8,
        /// `TUNNEL_*` flags (`key`, `csum`, `seq`).
        flags: u16,
        /// `vxlan_opts GBP`: the VXLAN group policy option (`ip_tun_parse_opts_vxlan`
        /// keeps only the bits of `VXLAN_GBP_MASK`).
        vxlan_gbp: Option<u32>,
    },
    /// `encap ip6`.
    Ip6 {
        /// Tunnel id.
        id: u64,
        /// Outer source.
        src: u128,
        /// Outer destination.
        dst: u128,
        /// Outer hop limit.
        hoplimit: u8,
        /// Outer traffic class.
        tc: u8,
        /// `TUNNEL_*` flags.
        flags: u16,
        /// `vxlan_opts GBP`, as for `Ip`.
        vxlan_gbp: Option<u32>,
    },
    /// `encap seg6local`: an SRv6 behaviour bound to the route's prefix (a SID), with
    /// the attributes the behaviour keeps (the kernel drops the others).
    Seg6Local {
        /// The behaviour (`End`, `End.X`, ...).
        action: &'static str,
        /// `table` (End.T, End.DT6).
        table: Option<u32>,
        /// `nh4` (End.DX4).
        nh4: Option<u32>,
        /// `nh6` (End.X, End.DX6).
        nh6: Option<u128>,
        /// `oif` (End.X, End.DX2).
        oif: Option<u32>,
        /// `srh segs ...` (End.B6, End.B6.Encaps): segments as listed, and the HMAC
        /// key id (0: none).
        srh: Option<(Vec<u128>, u32)>,
        /// `count`: per-behaviour counters (shown with `-s` only).
        count: bool,
        /// `flavors` (End, End.X): the operations as a mask of
        /// [`seg6_flavor`] bits, and with `next-csid` the locator block and node
        /// function lengths.
        flavors: Option<(u32, u8, u8)>,
    },
    /// `encap seg6`: an SRv6 segment routing header.
    Seg6 {
        /// The mode.
        mode: Seg6Mode,
        /// The segments as iproute2 lists them (the first to visit first; an inline
        /// header ends with `::`, the slot of the final destination).
        segs: Vec<u128>,
        /// The HMAC key id (0: none).
        hmac: u32,
    },
    /// An encapsulation type this kernel was built without (`mpls`): iproute2 reads
    /// it, and the kernel refuses it where it would build it (EOPNOTSUPP).
    Unsupported {
        /// The keyword after `encap`.
        kind: &'static str,
    },
    /// An encapsulation the kernel cannot build from the request (a `seg6local`
    /// behaviour without its attributes, a flavor it lacks: [`Encap::seg6local`]'s
    /// refusal): iproute2 sends it, and the kernel refuses it only where it builds it,
    /// after the route's own checks; a delete does not build it.
    Refused {
        /// The keyword after `encap`.
        kind: &'static str,
        /// The errno of the build.
        errno: crate::Errno,
        /// Its extack message, if any.
        msg: Option<&'static str>,
    },
}

/// The operations of SRv6 flavors (`SEG6_LOCAL_FLV_OP_*` bits, as iproute2 names them).
pub mod seg6_flavor {
    /// `psp`
    pub const PSP: u32 = 1 << 1;
    /// `usp`
    pub const USP: u32 = 1 << 2;
    /// `usd`
    pub const USD: u32 = 1 << 3;
    /// `next-csid`
    pub const NEXT_CSID: u32 = 1 << 4;
    /// The names in bit order.
    pub const NAMES: [(u32, &str); 4] = [
        (PSP, "psp"),
        (USP, "usp"),
        (USD, "usd"),
        (NEXT_CSID, "next-csid"),
    ];

    /// The names of the operations in `ops`, in bit order (as iproute2 lists them).
    pub fn names(ops: u32) -> Vec<&'static str> {
        NAMES
            .iter()
            .filter(|(b, _)| ops & b != 0)
            .map(|(_, n)| *n)
            .collect()
    }
}

impl Encap {
    /// `lwtunnel_build_state`'s checks for a route of family `v6` (`seg6_build_state`:
    /// an inline SRH only on IPv6 routes).
    pub fn check(&self, v6: bool) -> crate::Result<()> {
        match self {
            Encap::Seg6 {
                mode: Seg6Mode::Inline,
                ..
            } if !v6 => Err(crate::Error::new(crate::Errno::EINVAL)),
            Encap::Seg6Local { .. } if !v6 => Err(crate::Error::new(crate::Errno::EINVAL)),
            // seg6_local_build_state: the family first
            Encap::Refused {
                kind: "seg6local", ..
            } if !v6 => Err(crate::Error::new(crate::Errno::EINVAL)),
            Encap::Refused { errno, msg, .. } => Err(crate::Error {
                errno: *errno,
                msg: *msg,
            }),
            Encap::Unsupported { .. } => Err(crate::Error::msg(
                crate::Errno::EOPNOTSUPP,
                "lwt encapsulation type not supported",
            )),
            _ => Ok(()),
        }
    }

    /// `seg6_local_build_state` for a request: the behaviour's required attributes
    /// present (else EINVAL), its optional ones kept and the others dropped. `End.DT6`
    /// takes a table or (with a VRF device, which fibkit has not) a `vrftable`; `End.DT4`
    /// and `End.DT46` need one. Flavors (`parse_nla_flavors`) are End's and End.X's
    /// only (another behaviour drops them): operations beyond `psp` and `next-csid`
    /// are EOPNOTSUPP, and End.X takes `next-csid` alone.
    #[allow(clippy::too_many_arguments)]
    pub fn seg6local(
        action: &str,
        table: Option<u32>,
        vrftable: Option<u32>,
        nh4: Option<u32>,
        nh6: Option<u128>,
        oif: Option<u32>,
        srh: Option<(Vec<u128>, u32)>,
        count: bool,
        flavors: Option<(u32, u8, u8)>,
    ) -> crate::Result<Encap> {
        use crate::{Errno, Error};
        let inval = || Err(Error::new(Errno::EINVAL));
        // the behaviours this kernel has and fibkit models (End.BPF needs a program,
        // End.DT4/End.DT46 a VRF: refused below; End.BM, End.S, End.AS, End.AM it has not)
        let names = &SEG6LOCAL_ACTIONS[..10];
        let Some(&action) = names.iter().find(|n| **n == action) else {
            // End.BM, End.S, End.AS, End.AM: no such behaviour in this kernel
            return inval();
        };
        let mut e = Encap::Seg6Local {
            action,
            table: None,
            nh4: None,
            nh6: None,
            oif: None,
            srh: None,
            count,
            flavors: None,
        };
        let Encap::Seg6Local {
            table: t,
            nh4: n4,
            nh6: n6,
            oif: o,
            srh: s,
            flavors: f,
            ..
        } = &mut e
        else {
            return inval();
        };
        match action {
            "End" | "End.X" => {
                if action == "End.X" {
                    if nh6.is_none() {
                        return inval();
                    }
                    *n6 = nh6;
                    *o = oif;
                }
                if let Some((ops, lblen, nflen)) = flavors {
                    let supported = if action == "End" {
                        seg6_flavor::PSP | seg6_flavor::NEXT_CSID
                    } else {
                        seg6_flavor::NEXT_CSID
                    };
                    if ops & !supported != 0 {
                        return Err(Error::msg(
                            Errno::EOPNOTSUPP,
                            "Unsupported Flavor operation(s)",
                        ));
                    }
                    *f = Some((ops, lblen, nflen));
                }
            }
            "End.T" => {
                *t = Some(table.ok_or(Error::new(Errno::EINVAL))?);
            }
            "End.DX2" => *o = Some(oif.ok_or(Error::new(Errno::EINVAL))?),
            "End.DX6" => *n6 = Some(nh6.ok_or(Error::new(Errno::EINVAL))?),
            "End.DX4" => *n4 = Some(nh4.ok_or(Error::new(Errno::EINVAL))?),
            "End.DT6" => match (table, vrftable) {
                (Some(x), None) => *t = Some(x),
                (Some(_), Some(_)) | (None, None) => {
                    return Err(Error::msg(
                        Errno::EINVAL,
                        "table or vrftable must be specified",
                    ))
                }
                // a vrftable needs a VRF device bound to it
                (None, Some(_)) => return inval(),
            },
            "End.DT4" | "End.DT46" => return inval(),
            _ => *s = Some(srh.ok_or(Error::new(Errno::EINVAL))?),
        }
        Ok(e)
    }

    /// The keyword after `encap`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Encap::Ip { .. } => "ip",
            Encap::Ip6 { .. } => "ip6",
            Encap::Seg6 { .. } => "seg6",
            Encap::Seg6Local { .. } => "seg6local",
            Encap::Unsupported { kind } | Encap::Refused { kind, .. } => kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srh_slots_round_trip() {
        let a = 0x2001_0db8_u128 << 96 | 0xa;
        assert_eq!(srh_segments(vec![a], true), vec![a, 0]);
        assert_eq!(srh_segments(vec![a], false), vec![a]);
        assert_eq!(srh_segments(Vec::new(), true), vec![0, 0]);
        for slot in [false, true] {
            for listed in [vec![a], vec![a, a + 1], Vec::new()] {
                let segs = srh_segments(listed.clone(), slot);
                let again = srh_segments(srh_listed(&segs, slot).to_vec(), slot);
                assert_eq!(again, segs, "slot {slot}, {listed:?}");
            }
        }
    }
}
