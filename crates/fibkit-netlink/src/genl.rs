//! The generic netlink side of a mirror: the MPTCP path manager (`mptcp_pm`: its
//! endpoints and limits, `ip mptcp`) and SRv6 (`SEG6`: the tunnel source and the HMAC
//! keys, `ip sr`).
//!
//! A `NETLINK_GENERIC` socket first asks the controller (`nlctrl`,
//! `CTRL_CMD_GETFAMILY`) for each family's id by name, then sends the requests `ip`
//! sends: `MPTCP_PM_CMD_GET_ADDR` as a dump and `MPTCP_PM_CMD_GET_LIMITS`,
//! `SEG6_CMD_GET_TUNSRC` as single requests, `SEG6_CMD_DUMPHMAC` as a dump. A family
//! the kernel does not have (not built, module not loaded) is skipped silently; a
//! request that fails is a warning. Every message is read with the bounds-checked
//! walkers of the rtnetlink side: what cannot be decoded is skipped with a warning.

use std::io;

use crate::kernel::Ip;
use crate::nl::{attrs, RtSocket};
use crate::{KernelState, Warning};

/// `GENL_ID_CTRL`: the controller's fixed family id.
const GENL_ID_CTRL: u16 = 0x10;
/// `CTRL_CMD_GETFAMILY`.
const CTRL_CMD_GETFAMILY: u8 = 3;
/// `CTRL_ATTR_FAMILY_ID` (u16).
const CTRL_ATTR_FAMILY_ID: u16 = 1;
/// `CTRL_ATTR_FAMILY_NAME` (string).
const CTRL_ATTR_FAMILY_NAME: u16 = 2;

/// The `mptcp_pm` family (`include/uapi/linux/mptcp_pm.h`).
mod mptcp {
    pub const NAME: &str = "mptcp_pm";
    pub const VERSION: u8 = 1;
    pub const CMD_GET_ADDR: u8 = 3;
    pub const CMD_GET_LIMITS: u8 = 6;
    /// `MPTCP_PM_ATTR_*`
    pub const ATTR_ADDR: u16 = 1;
    pub const ATTR_RCV_ADD_ADDRS: u16 = 2;
    pub const ATTR_SUBFLOWS: u16 = 3;
    /// `MPTCP_PM_ADDR_ATTR_*` (nested in `MPTCP_PM_ATTR_ADDR`)
    pub const ADDR_FAMILY: u16 = 1;
    pub const ADDR_ID: u16 = 2;
    pub const ADDR_ADDR4: u16 = 3;
    pub const ADDR_ADDR6: u16 = 4;
    pub const ADDR_PORT: u16 = 5;
    pub const ADDR_FLAGS: u16 = 6;
    pub const ADDR_IF_IDX: u16 = 7;
}

/// The `SEG6` family (`include/uapi/linux/seg6_genl.h`).
mod seg6 {
    pub const NAME: &str = "SEG6";
    pub const VERSION: u8 = 1;
    pub const CMD_DUMPHMAC: u8 = 2;
    pub const CMD_GET_TUNSRC: u8 = 4;
    pub const ATTR_DST: u16 = 1;
    pub const ATTR_HMACKEYID: u16 = 3;
    pub const ATTR_SECRET: u16 = 4;
    pub const ATTR_SECRETLEN: u16 = 5;
    pub const ATTR_ALGID: u16 = 6;
}

/// The kernel-internal `ENOTSUPP`: what the SEG6 family answers for the HMAC commands
/// of a kernel built without `CONFIG_IPV6_SEG6_HMAC`.
const ENOTSUPP: i32 = 524;
const ENOENT: i32 = 2;

/// One MPTCP path manager endpoint (`ip mptcp endpoint show`), as dumped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KMptcpEndpoint {
    /// Its ID (1-255).
    pub id: u8,
    /// Its address (`MPTCP_PM_ADDR_ATTR_ADDR4`/`ADDR6`; an IPv4-mapped address stays
    /// IPv6).
    pub addr: Ip,
    /// Its port (0: none).
    pub port: u16,
    /// `MPTCP_PM_ADDR_FLAG_*`: signal 1, subflow 2, backup 4, fullmesh 8, implicit 16
    /// (and whatever a later kernel adds).
    pub flags: u32,
    /// The device index it was given (0: none); the kernel keeps it as given, so it
    /// may name no device.
    pub ifindex: u32,
}

/// The MPTCP path manager's limits (`ip mptcp limits show`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KMptcpLimits {
    /// `add_addr_accepted` (`MPTCP_PM_ATTR_RCV_ADD_ADDRS`).
    pub add_addr_accepted: u32,
    /// `subflows` (`MPTCP_PM_ATTR_SUBFLOWS`).
    pub subflows: u32,
}

/// One SRv6 HMAC key (`ip sr hmac show`). Its `Debug` form leaves the secret out.
#[derive(Clone, PartialEq, Eq)]
pub struct KHmacKey {
    /// The key id.
    pub id: u32,
    /// The algorithm: 1 SHA-1, 2 SHA-256 (`SEG6_HMAC_ALGO_*`).
    pub alg: u8,
    /// The secret.
    pub secret: Vec<u8>,
}

impl std::fmt::Debug for KHmacKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KHmacKey")
            .field("id", &self.id)
            .field("alg", &self.alg)
            .field("secret", &format_args!("<{} bytes>", self.secret.len()))
            .finish()
    }
}

impl KHmacKey {
    /// The algorithm's name as `ip sr hmac` writes it.
    pub fn alg_name(&self) -> String {
        match self.alg {
            1 => "sha1".into(),
            2 => "sha256".into(),
            n => format!("algorithm {n}"),
        }
    }
}

/// The payload after the 4-byte `struct genlmsghdr`.
fn body(payload: &[u8]) -> Option<&[u8]> {
    payload.get(4..)
}

/// A generic netlink request body: `struct genlmsghdr` then `attrs`.
fn request(cmd: u8, version: u8, attrs: &[u8]) -> Vec<u8> {
    let mut b = vec![cmd, version, 0, 0];
    b.extend_from_slice(attrs);
    b
}

/// One attribute: header, payload, padding to 4 bytes.
fn attr(ty: u16, data: &[u8]) -> Vec<u8> {
    let len = 4 + data.len();
    let mut b = Vec::with_capacity(len + 3);
    b.extend_from_slice(&(len as u16).to_ne_bytes());
    b.extend_from_slice(&ty.to_ne_bytes());
    b.extend_from_slice(data);
    while b.len() % 4 != 0 {
        b.push(0);
    }
    b
}

/// The family id the controller gives `name`; `None` when the kernel has no such
/// family (ENOENT).
fn resolve(s: &mut RtSocket, name: &str) -> io::Result<Option<u16>> {
    let mut n = name.as_bytes().to_vec();
    n.push(0);
    let req = request(CTRL_CMD_GETFAMILY, 1, &attr(CTRL_ATTR_FAMILY_NAME, &n));
    match s.get(GENL_ID_CTRL, &req, GENL_ID_CTRL) {
        Ok(p) => {
            let id = body(&p).and_then(|b| {
                attrs(b)
                    .find(|a| a.ty == CTRL_ATTR_FAMILY_ID)
                    .and_then(|a| a.u16())
            });
            id.map(Some).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidData, "no family id in the answer")
            })
        }
        Err(e) if e.raw_os_error() == Some(ENOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Decode one `MPTCP_PM_CMD_GET_ADDR` answer (the payload after the netlink header).
pub fn decode_endpoint(payload: &[u8], w: &mut Vec<Warning>) -> Option<KMptcpEndpoint> {
    let bad = |w: &mut Vec<Warning>, why: &str| {
        w.push(Warning::new(format!(
            "an MPTCP endpoint that cannot be decoded ({why}): skipped"
        )));
        None
    };
    let Some(b) = body(payload) else {
        return bad(w, "too short");
    };
    let mut top = attrs(b);
    let Some(nest) = top.by_ref().find(|a| a.ty == mptcp::ATTR_ADDR) else {
        return bad(w, "no address attribute");
    };
    let (mut fam, mut id, mut a4, mut a6) = (None, None, None, None);
    let (mut port, mut flags, mut ifindex) = (0u16, 0u32, 0u32);
    let mut inner = nest.nested();
    for a in inner.by_ref() {
        match a.ty {
            mptcp::ADDR_FAMILY => fam = a.u16(),
            mptcp::ADDR_ID => id = a.u8(),
            mptcp::ADDR_ADDR4 => a4 = a.ip().filter(|x| !x.1).map(|x| Ip::V4(x.0 as u32)),
            mptcp::ADDR_ADDR6 => a6 = a.ip().filter(|x| x.1).map(|x| Ip::V6(x.0)),
            mptcp::ADDR_PORT => port = a.u16().unwrap_or(0),
            mptcp::ADDR_FLAGS => flags = a.u32().unwrap_or(0),
            mptcp::ADDR_IF_IDX => ifindex = a.u32().unwrap_or(0),
            _ => {}
        }
    }
    if inner.truncated {
        return bad(w, "a truncated attribute");
    }
    let addr = match fam.map(|f| f as u8) {
        Some(crate::kernel::AF_INET) => a4,
        Some(crate::kernel::AF_INET6) => a6,
        _ => None,
    };
    let (Some(addr), Some(id)) = (addr, id) else {
        return bad(w, "no ID, or no address of its family");
    };
    Some(KMptcpEndpoint {
        id,
        addr,
        port,
        flags,
        ifindex,
    })
}

/// Decode the `MPTCP_PM_CMD_GET_LIMITS` answer.
pub fn decode_limits(payload: &[u8]) -> Option<KMptcpLimits> {
    let b = body(payload)?;
    let (mut accept, mut subflows) = (None, None);
    for a in attrs(b) {
        match a.ty {
            mptcp::ATTR_RCV_ADD_ADDRS => accept = a.u32(),
            mptcp::ATTR_SUBFLOWS => subflows = a.u32(),
            _ => {}
        }
    }
    Some(KMptcpLimits {
        add_addr_accepted: accept?,
        subflows: subflows?,
    })
}

/// Decode the `SEG6_CMD_GET_TUNSRC` answer: the IPv6 address.
pub fn decode_tunsrc(payload: &[u8]) -> Option<u128> {
    attrs(body(payload)?)
        .find(|a| a.ty == seg6::ATTR_DST)
        .and_then(|a| a.ip())
        .filter(|x| x.1)
        .map(|x| x.0)
}

/// Decode one `SEG6_CMD_DUMPHMAC` answer.
pub fn decode_hmac(payload: &[u8], w: &mut Vec<Warning>) -> Option<KHmacKey> {
    let b = body(payload)?;
    let (mut id, mut alg, mut secret, mut len) = (None, None, None, None);
    let mut it = attrs(b);
    for a in it.by_ref() {
        match a.ty {
            seg6::ATTR_HMACKEYID => id = a.u32(),
            seg6::ATTR_ALGID => alg = a.u8(),
            seg6::ATTR_SECRET => secret = Some(a.data),
            seg6::ATTR_SECRETLEN => len = a.u8(),
            _ => {}
        }
    }
    let (Some(id), Some(alg), false) = (id, alg, it.truncated) else {
        w.push(Warning::new(
            "an SRv6 HMAC key that cannot be decoded: skipped",
        ));
        return None;
    };
    let s = secret.unwrap_or(&[]);
    let n = len.map_or(s.len(), |l| usize::from(l).min(s.len()));
    Some(KHmacKey {
        id,
        alg,
        secret: s[..n].to_vec(),
    })
}

/// Read the generic netlink state into `k`: the MPTCP endpoints and limits, the SRv6
/// tunnel source and HMAC keys, and whether the kernel has the HMAC table
/// ([`fibkit::kconfig::KernelConfig::ipv6_seg6_hmac`]).
pub(crate) fn read_all(k: &mut KernelState, w: &mut Vec<Warning>) {
    let mut s = match RtSocket::open_generic() {
        Ok(s) => s,
        Err(e) => {
            w.push(Warning::new(format!(
                "generic netlink socket: {e}: MPTCP endpoints and SRv6 settings not mirrored"
            )));
            return;
        }
    };
    match resolve(&mut s, mptcp::NAME) {
        Ok(Some(fam)) => read_mptcp(&mut s, fam, k, w),
        Ok(None) => {}
        Err(e) => w.push(Warning::new(format!(
            "generic netlink family {}: {e}: MPTCP endpoints and limits not mirrored",
            mptcp::NAME
        ))),
    }
    match resolve(&mut s, seg6::NAME) {
        Ok(Some(fam)) => read_seg6(&mut s, fam, k, w),
        Ok(None) => {}
        Err(e) => w.push(Warning::new(format!(
            "generic netlink family {}: {e}: the SRv6 tunnel source and HMAC keys not mirrored",
            seg6::NAME
        ))),
    }
}

fn read_mptcp(s: &mut RtSocket, fam: u16, k: &mut KernelState, w: &mut Vec<Warning>) {
    let req = request(mptcp::CMD_GET_ADDR, mptcp::VERSION, &[]);
    match s.dump(fam, &req, fam) {
        Ok(d) => {
            for p in d.payloads {
                if let Some(e) = decode_endpoint(&p, w) {
                    k.mptcp_endpoints.push(e);
                }
            }
        }
        Err(e) => w.push(Warning::new(format!(
            "dumping MPTCP endpoints: {e}: not mirrored"
        ))),
    }
    let req = request(mptcp::CMD_GET_LIMITS, mptcp::VERSION, &[]);
    match s.get(fam, &req, fam) {
        Ok(p) => match decode_limits(&p) {
            Some(l) => k.mptcp_limits = Some(l),
            None => w.push(Warning::new(
                "the MPTCP limits cannot be decoded: not mirrored",
            )),
        },
        Err(e) => w.push(Warning::new(format!(
            "reading the MPTCP limits: {e}: not mirrored"
        ))),
    }
}

fn read_seg6(s: &mut RtSocket, fam: u16, k: &mut KernelState, w: &mut Vec<Warning>) {
    let req = request(seg6::CMD_GET_TUNSRC, seg6::VERSION, &[]);
    match s.get(fam, &req, fam) {
        Ok(p) => match decode_tunsrc(&p) {
            Some(a) => k.seg6_tunsrc = Some(a),
            None => w.push(Warning::new(
                "the SRv6 tunnel source cannot be decoded: not mirrored",
            )),
        },
        Err(e) => w.push(Warning::new(format!(
            "reading the SRv6 tunnel source: {e}: not mirrored"
        ))),
    }
    let req = request(seg6::CMD_DUMPHMAC, seg6::VERSION, &[]);
    match s.dump(fam, &req, fam) {
        Ok(d) => {
            k.kernel.ipv6_seg6_hmac = true;
            for p in d.payloads {
                if let Some(h) = decode_hmac(&p, w) {
                    k.seg6_hmac.push(h);
                }
            }
        }
        // a kernel built without the HMAC table
        Err(e) if e.raw_os_error() == Some(ENOTSUPP) => k.kernel.ipv6_seg6_hmac = false,
        Err(e) => w.push(Warning::new(format!(
            "dumping the SRv6 HMAC keys: {e}: not mirrored"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer the kernel gives for `ip mptcp endpoint add 2001:db8::5 id 9 dev IF7
    /// signal backup` followed by `port`: a genlmsghdr, then the nested address.
    fn endpoint_msg(extra: &[u8]) -> Vec<u8> {
        let mut inner = Vec::new();
        inner.extend(attr(mptcp::ADDR_FAMILY, &10u16.to_ne_bytes()));
        inner.extend(attr(mptcp::ADDR_ID, &[9]));
        inner.extend(attr(
            mptcp::ADDR_ADDR6,
            &0x2001_0db8_0000_0000_0000_0000_0000_0005u128.to_be_bytes(),
        ));
        inner.extend(attr(mptcp::ADDR_PORT, &4242u16.to_ne_bytes()));
        inner.extend(attr(mptcp::ADDR_FLAGS, &5u32.to_ne_bytes()));
        inner.extend(attr(mptcp::ADDR_IF_IDX, &7i32.to_ne_bytes()));
        inner.extend_from_slice(extra);
        request(
            mptcp::CMD_GET_ADDR,
            1,
            &attr(mptcp::ATTR_ADDR | 0x8000, &inner),
        )
    }

    #[test]
    fn decodes_an_endpoint() {
        let mut w = Vec::new();
        let e = decode_endpoint(&endpoint_msg(&[]), &mut w).unwrap();
        assert!(w.is_empty());
        assert_eq!(
            e,
            KMptcpEndpoint {
                id: 9,
                addr: Ip::V6(0x2001_0db8_0000_0000_0000_0000_0000_0005),
                port: 4242,
                flags: 5,
                ifindex: 7,
            }
        );
        // IPv4, without port and device
        let mut inner = attr(mptcp::ADDR_FAMILY, &2u16.to_ne_bytes());
        inner.extend(attr(mptcp::ADDR_ID, &[1]));
        inner.extend(attr(mptcp::ADDR_ADDR4, &[10, 0, 0, 1]));
        let m = request(3, 1, &attr(mptcp::ATTR_ADDR, &inner));
        let e = decode_endpoint(&m, &mut w).unwrap();
        assert_eq!((e.addr, e.port, e.ifindex), (Ip::V4(0x0a00_0001), 0, 0));
    }

    #[test]
    fn malformed_messages_are_skipped_without_panic() {
        let good = endpoint_msg(&[]);
        for cut in 0..good.len() {
            let mut w = Vec::new();
            // any prefix: decoded or skipped with a warning, never a panic
            if decode_endpoint(&good[..cut], &mut w).is_none() {
                assert_eq!(w.len(), 1, "cut at {cut}");
            }
            let _ = decode_limits(&good[..cut]);
            let _ = decode_tunsrc(&good[..cut]);
            let _ = decode_hmac(&good[..cut], &mut w);
        }
        // an attribute claiming more bytes than there are
        let mut w = Vec::new();
        let bad = endpoint_msg(&[0xff, 0x00, 0x01, 0x00]);
        assert!(decode_endpoint(&bad, &mut w).is_none());
        // an IPv4 family with an IPv6 address only
        let mut inner = attr(mptcp::ADDR_FAMILY, &2u16.to_ne_bytes());
        inner.extend(attr(mptcp::ADDR_ID, &[1]));
        inner.extend(attr(mptcp::ADDR_ADDR6, &[0; 16]));
        let m = request(3, 1, &attr(mptcp::ATTR_ADDR, &inner));
        assert!(decode_endpoint(&m, &mut w).is_none());
    }

    #[test]
    fn mutated_messages_never_panic() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) as u8
        };
        let seed = endpoint_msg(&attr(seg6::ATTR_SECRET, b"xyz"));
        let mut w = Vec::new();
        for round in 0..4000 {
            let mut b = seed.clone();
            for _ in 0..1 + round % 6 {
                let i = usize::from(next()) * b.len() / 256;
                b[i] = next();
            }
            let _ = decode_endpoint(&b, &mut w);
            let _ = decode_limits(&b);
            let _ = decode_tunsrc(&b);
            let _ = decode_hmac(&b, &mut w);
        }
    }

    #[test]
    fn decodes_limits_tunsrc_and_hmac_keys() {
        let mut a = attr(mptcp::ATTR_RCV_ADD_ADDRS, &3u32.to_ne_bytes());
        a.extend(attr(mptcp::ATTR_SUBFLOWS, &8u32.to_ne_bytes()));
        assert_eq!(
            decode_limits(&request(6, 1, &a)),
            Some(KMptcpLimits {
                add_addr_accepted: 3,
                subflows: 8
            })
        );
        let t = request(4, 1, &attr(seg6::ATTR_DST, &1u128.to_be_bytes()));
        assert_eq!(decode_tunsrc(&t), Some(1));
        let mut h = attr(seg6::ATTR_HMACKEYID, &17u32.to_ne_bytes());
        h.extend(attr(seg6::ATTR_SECRETLEN, &[3]));
        h.extend(attr(seg6::ATTR_SECRET, b"abcd"));
        h.extend(attr(seg6::ATTR_ALGID, &[2]));
        let mut w = Vec::new();
        let k = decode_hmac(&request(2, 1, &h), &mut w).unwrap();
        assert_eq!(
            (k.id, k.alg_name(), &k.secret[..]),
            (17, "sha256".into(), &b"abc"[..])
        );
        assert!(!format!("{k:?}").contains("abc"));
    }
}
