//! The IPsec side of a mirror: the security policy database (`ip xfrm policy`), its
//! hash thresholds and its default actions, read through a `NETLINK_XFRM` socket.
//!
//! Three requests, the ones `ip` sends: `XFRM_MSG_GETPOLICY` as a dump (each answer an
//! `XFRM_MSG_NEWPOLICY`: a `struct xfrm_userpolicy_info` and its attributes: templates,
//! mark, interface id, policy type, security context), `XFRM_MSG_GETSPDINFO` (the
//! `hthresh4`/`hthresh6` thresholds) and `XFRM_MSG_GETDEFAULT` (the default actions).
//! A kernel without xfrm (no such netlink protocol, or a request it does not know) is
//! skipped silently. Every message is read with bounds checks: one that is too short or
//! has a malformed attribute is skipped with a warning, never a panic.
//!
//! The layouts are `include/uapi/linux/xfrm.h`'s, in host byte order but for the
//! selector's ports and a template's SPI (network order, kept here as numbers, as `ip`
//! prints them) and the addresses (16 raw bytes, an IPv4 one in the first four).

use std::io;

use fibkit::xfrm::{LifetimeCfg, Policy, Selector, Template};

use crate::nl::{attrs, u16_at, u32_at, RtSocket};
use crate::{KernelState, Warning};

/// `XFRM_MSG_NEWPOLICY`.
const MSG_NEWPOLICY: u16 = 0x13;
/// `XFRM_MSG_GETPOLICY`.
const MSG_GETPOLICY: u16 = 0x15;
/// `XFRM_MSG_NEWSPDINFO`.
const MSG_NEWSPDINFO: u16 = 0x24;
/// `XFRM_MSG_GETSPDINFO`.
const MSG_GETSPDINFO: u16 = 0x25;
/// `XFRM_MSG_GETDEFAULT` (the answer has the same type).
const MSG_GETDEFAULT: u16 = 0x28;

/// `XFRMA_TMPL`: an array of `struct xfrm_user_tmpl`.
const XFRMA_TMPL: u16 = 5;
/// `XFRMA_SEC_CTX`.
const XFRMA_SEC_CTX: u16 = 8;
/// `XFRMA_POLICY_TYPE`: `struct xfrm_userpolicy_type`.
const XFRMA_POLICY_TYPE: u16 = 16;
/// `XFRMA_MARK`: `struct xfrm_mark`.
const XFRMA_MARK: u16 = 21;
/// `XFRMA_IF_ID` (u32).
const XFRMA_IF_ID: u16 = 31;

/// `XFRMA_SPD_IPV4_HTHRESH`: `struct xfrmu_spdhthresh` (lbits, rbits).
const XFRMA_SPD_IPV4_HTHRESH: u16 = 3;
/// `XFRMA_SPD_IPV6_HTHRESH`.
const XFRMA_SPD_IPV6_HTHRESH: u16 = 4;

/// `sizeof(struct xfrm_selector)`.
const SEL_LEN: usize = 56;
/// `sizeof(struct xfrm_user_tmpl)`.
const TMPL_LEN: usize = 64;
/// The fields of `struct xfrm_userpolicy_info`: selector, lifetime config (8 u64),
/// current lifetime (4 u64), priority, index, then dir, action, flags, share.
const INFO_FIELDS: usize = SEL_LEN + 64 + 32 + 4 + 4 + 4;

/// `sizeof(struct xfrm_userpolicy_info)`: its fields padded to a u64's alignment (168
/// on 64-bit targets); the attributes start there.
fn info_len() -> usize {
    let a = std::mem::align_of::<u64>();
    INFO_FIELDS.div_ceil(a) * a
}

/// The IPv4 and IPv6 hash thresholds (`hthresh4`, `hthresh6`: local and remote prefix
/// bits), each `None` when not read.
pub type HThresh = (Option<(u8, u8)>, Option<(u8, u8)>);

/// One security policy as the kernel dumps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KXfrmPolicy {
    /// The policy, in fibkit's record (its `add_time` the kernel's).
    pub policy: Policy,
    /// `struct xfrm_lifetime_cur`: bytes, packets, add time, use time.
    pub cur: [u64; 4],
    /// Whether it carries a security context (`XFRMA_SEC_CTX`), which fibkit drops.
    pub sec_ctx: bool,
}

fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    let a: [u8; 8] = b.get(off..off + 8)?.try_into().ok()?;
    Some(u64::from_ne_bytes(a))
}

fn be16_at(b: &[u8], off: usize) -> Option<u16> {
    let a: [u8; 2] = b.get(off..off + 2)?.try_into().ok()?;
    Some(u16::from_be_bytes(a))
}

fn addr_at(b: &[u8], off: usize) -> Option<[u8; 16]> {
    b.get(off..off + 16)?.try_into().ok()
}

/// `struct xfrm_selector` at the start of `b`.
fn selector(b: &[u8]) -> Option<Selector> {
    Some(Selector {
        daddr: addr_at(b, 0)?,
        saddr: addr_at(b, 16)?,
        dport: be16_at(b, 32)?,
        dport_mask: be16_at(b, 34)?,
        sport: be16_at(b, 36)?,
        sport_mask: be16_at(b, 38)?,
        family: u16_at(b, 40)?,
        prefixlen_d: *b.get(42)?,
        prefixlen_s: *b.get(43)?,
        proto: *b.get(44)?,
        ifindex: u32_at(b, 48)? as i32,
        user: u32_at(b, 52)?,
    })
}

/// One `struct xfrm_user_tmpl` (exactly [`TMPL_LEN`] bytes).
fn template(b: &[u8]) -> Option<Template> {
    let spi: [u8; 4] = b.get(16..20)?.try_into().ok()?;
    Some(Template {
        daddr: addr_at(b, 0)?,
        spi: u32::from_be_bytes(spi),
        proto: *b.get(20)?,
        family: u16_at(b, 24)?,
        saddr: addr_at(b, 28)?,
        reqid: u32_at(b, 44)?,
        mode: *b.get(48)?,
        share: *b.get(49)?,
        optional: *b.get(50)?,
        aalgos: u32_at(b, 52)?,
        ealgos: u32_at(b, 56)?,
        calgos: u32_at(b, 60)?,
    })
}

/// Decode one `XFRM_MSG_NEWPOLICY` message (the payload after the netlink header).
pub fn decode_policy(payload: &[u8], w: &mut Vec<Warning>) -> Option<KXfrmPolicy> {
    let bad = |w: &mut Vec<Warning>, why: &str| {
        w.push(Warning::new(format!(
            "an IPsec policy that cannot be decoded ({why}): skipped"
        )));
        None
    };
    let n = info_len();
    let (Some(info), Some(rest)) = (payload.get(..n), payload.get(n..)) else {
        return bad(w, "too short");
    };
    let Some(sel) = selector(info) else {
        return bad(w, "too short");
    };
    let l = |i: usize| u64_at(info, SEL_LEN + 8 * i).unwrap_or(0);
    let lft = LifetimeCfg {
        soft_byte_limit: l(0),
        hard_byte_limit: l(1),
        soft_packet_limit: l(2),
        hard_packet_limit: l(3),
        soft_add_expires_seconds: l(4),
        hard_add_expires_seconds: l(5),
        soft_use_expires_seconds: l(6),
        hard_use_expires_seconds: l(7),
    };
    let cur = [l(8), l(9), l(10), l(11)];
    let at = SEL_LEN + 96;
    let mut p = Policy {
        sel,
        lft,
        priority: u32_at(info, at).unwrap_or(0),
        index: u32_at(info, at + 4).unwrap_or(0),
        dir: info.get(at + 8).copied().unwrap_or(0),
        action: info.get(at + 9).copied().unwrap_or(0),
        flags: info.get(at + 10).copied().unwrap_or(0),
        share: info.get(at + 11).copied().unwrap_or(0),
        ptype: fibkit::xfrm::TYPE_MAIN,
        mark: (0, 0),
        if_id: 0,
        tmpls: Vec::new(),
        add_time: cur[2],
    };
    let mut sec_ctx = false;
    let mut it = attrs(rest);
    for a in it.by_ref() {
        match a.ty {
            XFRMA_TMPL => {
                if a.data.len() % TMPL_LEN != 0 {
                    return bad(w, "a template array of a partial template");
                }
                for t in a.data.chunks_exact(TMPL_LEN) {
                    match template(t) {
                        Some(t) => p.tmpls.push(t),
                        None => return bad(w, "a template"),
                    }
                }
            }
            XFRMA_MARK => match (a.u32(), u32_at(a.data, 4)) {
                (Some(v), Some(m)) => p.mark = (v, m),
                _ => return bad(w, "a short mark"),
            },
            XFRMA_IF_ID => match a.u32() {
                Some(i) => p.if_id = i,
                None => return bad(w, "a short interface id"),
            },
            XFRMA_POLICY_TYPE => match a.u8() {
                Some(t) => p.ptype = t,
                None => return bad(w, "a short policy type"),
            },
            XFRMA_SEC_CTX => sec_ctx = true,
            _ => {}
        }
    }
    if it.truncated {
        return bad(w, "a truncated attribute");
    }
    Some(KXfrmPolicy {
        policy: p,
        cur,
        sec_ctx,
    })
}

/// Decode the `XFRM_MSG_NEWSPDINFO` answer: the IPv4 and IPv6 hash thresholds (local
/// and remote prefix bits), each `None` when absent.
pub fn decode_spdinfo(payload: &[u8]) -> HThresh {
    let (mut t4, mut t6) = (None, None);
    let Some(b) = payload.get(4..) else {
        return (None, None);
    };
    for a in attrs(b) {
        let pair = match (a.data.first(), a.data.get(1)) {
            (Some(&l), Some(&r)) => Some((l, r)),
            _ => None,
        };
        match a.ty {
            XFRMA_SPD_IPV4_HTHRESH => t4 = pair,
            XFRMA_SPD_IPV6_HTHRESH => t6 = pair,
            _ => {}
        }
    }
    (t4, t6)
}

/// Decode the `XFRM_MSG_GETDEFAULT` answer: the default actions for in, fwd, out
/// (`XFRM_USERPOLICY_BLOCK` 1, `_ACCEPT` 2).
pub fn decode_default(payload: &[u8]) -> Option<[u8; 3]> {
    payload.get(..3)?.try_into().ok()
}

/// Errors of a kernel (or a request) without xfrm: no such protocol or family, an
/// unknown message type.
fn absent(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(93) | Some(97) | Some(95) | Some(22) | Some(2)
    )
}

/// Read the IPsec policy state into `k`: the policies (in the kernel's dump order,
/// newest first), the hash thresholds and the default actions.
pub(crate) fn read_all(k: &mut KernelState, w: &mut Vec<Warning>) {
    let mut s = match RtSocket::open_xfrm() {
        Ok(s) => s,
        Err(e) if absent(&e) => return,
        Err(e) => {
            w.push(Warning::new(format!(
                "xfrm netlink socket: {e}: IPsec policies not mirrored"
            )));
            return;
        }
    };
    match s.dump(MSG_GETPOLICY, &[], MSG_NEWPOLICY) {
        Ok(d) => {
            for p in d.payloads {
                if let Some(x) = decode_policy(&p, w) {
                    k.xfrm_policies.push(x);
                }
            }
        }
        Err(e) if absent(&e) => return,
        Err(e) => w.push(Warning::new(format!(
            "dumping the IPsec policies: {e}: not mirrored"
        ))),
    }
    match s.get(MSG_GETSPDINFO, &u32::MAX.to_ne_bytes(), MSG_NEWSPDINFO) {
        Ok(p) => k.xfrm_hthresh = decode_spdinfo(&p),
        Err(e) if absent(&e) => {}
        Err(e) => w.push(Warning::new(format!(
            "reading the IPsec policy hash thresholds: {e}: not mirrored"
        ))),
    }
    match s.get(MSG_GETDEFAULT, &[0; 4], MSG_GETDEFAULT) {
        Ok(p) => match decode_default(&p) {
            Some(d) => k.xfrm_defaults = Some(d),
            None => w.push(Warning::new(
                "the IPsec default policies cannot be decoded: not mirrored",
            )),
        },
        Err(e) if absent(&e) => {}
        Err(e) => w.push(Warning::new(format!(
            "reading the IPsec default policies: {e}: not mirrored"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(ty: u16, data: &[u8]) -> Vec<u8> {
        let mut b = ((4 + data.len()) as u16).to_ne_bytes().to_vec();
        b.extend_from_slice(&ty.to_ne_bytes());
        b.extend_from_slice(data);
        while b.len() % 4 != 0 {
            b.push(0);
        }
        b
    }

    /// What the kernel dumps for `ip xfrm policy add src 2001:db8::1/64 dst ::/0 proto
    /// tcp sport 80 dev IF3 dir fwd index 10 priority 7 action block ptype sub mark 5
    /// mask 0xff if_id 9 flag icmp limit byte-soft 1000 tmpl src 2001:db8::a dst
    /// 2001:db8::b proto esp spi 0x100 reqid 4 mode tunnel`, with a security context.
    fn policy_msg() -> Vec<u8> {
        let mut b = vec![0u8; info_len()];
        b[16..32].copy_from_slice(&0x2001_0db8_0000_0000_0000_0000_0000_0001u128.to_be_bytes());
        b[36..38].copy_from_slice(&80u16.to_be_bytes());
        b[38..40].copy_from_slice(&[0xff, 0xff]);
        b[40..42].copy_from_slice(&10u16.to_ne_bytes());
        b[42] = 0;
        b[43] = 64;
        b[44] = 6;
        b[48..52].copy_from_slice(&3i32.to_ne_bytes());
        for (i, v) in [
            1000u64,
            u64::MAX,
            u64::MAX,
            u64::MAX,
            0,
            0,
            0,
            0,
            5,
            6,
            1_700_000_000,
            0,
        ]
        .iter()
        .enumerate()
        {
            b[SEL_LEN + 8 * i..SEL_LEN + 8 * i + 8].copy_from_slice(&v.to_ne_bytes());
        }
        b[152..156].copy_from_slice(&7u32.to_ne_bytes());
        b[156..160].copy_from_slice(&10u32.to_ne_bytes());
        b[160..164].copy_from_slice(&[2, 1, 2, 0]);
        let mut t = vec![0u8; TMPL_LEN];
        t[..16].copy_from_slice(&0x2001_0db8_0000_0000_0000_0000_0000_000bu128.to_be_bytes());
        t[16..20].copy_from_slice(&0x100u32.to_be_bytes());
        t[20] = 50;
        t[24..26].copy_from_slice(&10u16.to_ne_bytes());
        t[28..44].copy_from_slice(&0x2001_0db8_0000_0000_0000_0000_0000_000au128.to_be_bytes());
        t[44..48].copy_from_slice(&4u32.to_ne_bytes());
        t[48] = 1;
        t[52..64].copy_from_slice(&[0xff; 12]);
        b.extend(attr(XFRMA_TMPL, &t));
        b.extend(attr(XFRMA_SEC_CTX, b"ctx-bytes"));
        b.extend(attr(XFRMA_POLICY_TYPE, &[1, 0, 0, 0, 0, 0]));
        let mut m = 5u32.to_ne_bytes().to_vec();
        m.extend(0xffu32.to_ne_bytes());
        b.extend(attr(XFRMA_MARK, &m));
        b.extend(attr(XFRMA_IF_ID, &9u32.to_ne_bytes()));
        b
    }

    #[test]
    fn decodes_a_policy() {
        let mut w = Vec::new();
        let k = decode_policy(&policy_msg(), &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        let p = &k.policy;
        assert_eq!(p.sel.family, 10);
        assert_eq!((p.sel.prefixlen_s, p.sel.prefixlen_d), (64, 0));
        assert_eq!(p.sel.saddr[15], 1);
        assert_eq!(
            (p.sel.proto, p.sel.sport, p.sel.sport_mask),
            (6, 80, 0xffff)
        );
        assert_eq!((p.sel.dport, p.sel.dport_mask, p.sel.ifindex), (0, 0, 3));
        assert_eq!((p.priority, p.index, p.dir, p.action), (7, 10, 2, 1));
        assert_eq!((p.flags, p.share, p.ptype), (2, 0, 1));
        assert_eq!((p.mark, p.if_id), ((5, 0xff), 9));
        assert_eq!(p.lft.soft_byte_limit, 1000);
        assert_eq!(p.lft.hard_byte_limit, u64::MAX);
        assert_eq!(k.cur, [5, 6, 1_700_000_000, 0]);
        assert_eq!(p.add_time, 1_700_000_000);
        assert!(k.sec_ctx);
        assert_eq!(p.tmpls.len(), 1);
        let t = &p.tmpls[0];
        assert_eq!((t.spi, t.proto, t.family, t.reqid), (0x100, 50, 10, 4));
        assert_eq!((t.mode, t.optional, t.aalgos), (1, 0, u32::MAX));
        assert_eq!((t.saddr[15], t.daddr[15]), (0xa, 0xb));
    }

    #[test]
    fn truncated_policies_are_skipped_without_panic() {
        let good = policy_msg();
        let n = info_len();
        for cut in 0..good.len() {
            let mut w = Vec::new();
            match decode_policy(&good[..cut], &mut w) {
                // a cut between attributes leaves a shorter, valid message
                Some(_) => assert!(cut >= n && w.is_empty(), "cut at {cut}"),
                None => assert_eq!(w.len(), 1, "cut at {cut}"),
            }
            let _ = decode_spdinfo(&good[..cut]);
            let _ = decode_default(&good[..cut]);
        }
        // a template array of a partial template
        let mut b = vec![0u8; n];
        b.extend(attr(XFRMA_TMPL, &[0; TMPL_LEN + 4]));
        let mut w = Vec::new();
        assert!(decode_policy(&b, &mut w).is_none());
        // an attribute claiming more bytes than there are
        let mut b = policy_msg();
        b.extend([0xff, 0x00, 0x01, 0x00]);
        assert!(decode_policy(&b, &mut w).is_none());
        assert_eq!(w.len(), 2);
    }

    #[test]
    fn decodes_thresholds_and_defaults() {
        let mut b = 0u32.to_ne_bytes().to_vec();
        b.extend(attr(1, &[0; 12]));
        b.extend(attr(XFRMA_SPD_IPV4_HTHRESH, &[24, 16]));
        b.extend(attr(XFRMA_SPD_IPV6_HTHRESH, &[64, 48]));
        assert_eq!(decode_spdinfo(&b), (Some((24, 16)), Some((64, 48))));
        assert_eq!(decode_default(&[1, 2, 2]), Some([1, 2, 2]));
        assert_eq!(decode_default(&[1, 2]), None);
    }
}
