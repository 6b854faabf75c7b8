//! The rtnetlink wire: a NETLINK_ROUTE socket, dump requests, and a bounds-checked walk
//! over netlink messages and their attributes.
//!
//! Everything here reads untrusted bytes: every length is checked before use, a
//! malformed message or attribute ends the walk over its buffer (it is skipped, with a
//! warning upstream) and nothing indexes out of bounds or panics.

use std::io;

use netlink_sys::{
    protocols::{NETLINK_GENERIC, NETLINK_ROUTE, NETLINK_XFRM},
    Socket, SocketAddr,
};

/// `NLMSG_ERROR`.
pub(crate) const NLMSG_ERROR: u16 = 2;
/// `NLMSG_DONE`.
pub(crate) const NLMSG_DONE: u16 = 3;
/// `NLMSG_OVERRUN`.
pub(crate) const NLMSG_OVERRUN: u16 = 4;

/// `NLM_F_REQUEST`.
const NLM_F_REQUEST: u16 = 0x01;
/// `NLM_F_DUMP` (`NLM_F_ROOT | NLM_F_MATCH`).
const NLM_F_DUMP: u16 = 0x300;
/// `NLM_F_DUMP_INTR`: the dump was interrupted by a change and may be inconsistent.
const NLM_F_DUMP_INTR: u16 = 0x10;
/// `NLM_F_REPLACE` (a new-object message: it replaced an existing one).
pub(crate) const NLM_F_REPLACE: u16 = 0x100;
/// `NLM_F_EXCL` (a new-object message: none like it existed).
pub(crate) const NLM_F_EXCL: u16 = 0x200;
/// `NLM_F_APPEND` (a new-object message: added behind the existing ones).
pub(crate) const NLM_F_APPEND: u16 = 0x800;

/// rtnetlink message types.
pub(crate) mod rtm {
    /// `RTM_NEWLINK`
    pub const NEWLINK: u16 = 16;
    /// `RTM_GETLINK`
    pub const GETLINK: u16 = 18;
    /// `RTM_NEWADDR`
    pub const NEWADDR: u16 = 20;
    /// `RTM_GETADDR`
    pub const GETADDR: u16 = 22;
    /// `RTM_NEWROUTE`
    pub const NEWROUTE: u16 = 24;
    /// `RTM_DELROUTE`
    pub const DELROUTE: u16 = 25;
    /// `RTM_GETROUTE`
    pub const GETROUTE: u16 = 26;
    /// `RTM_NEWNEIGH`
    pub const NEWNEIGH: u16 = 28;
    /// `RTM_DELNEIGH`
    pub const DELNEIGH: u16 = 29;
    /// `RTM_GETNEIGH`
    pub const GETNEIGH: u16 = 30;
    /// `RTM_NEWRULE`
    pub const NEWRULE: u16 = 32;
    /// `RTM_GETRULE`
    pub const GETRULE: u16 = 34;
    /// `RTM_NEWNEXTHOP`
    pub const NEWNEXTHOP: u16 = 104;
    /// `RTM_GETNEXTHOP`
    pub const GETNEXTHOP: u16 = 106;
    /// `RTM_NEWNEXTHOPBUCKET`
    pub const NEWNEXTHOPBUCKET: u16 = 116;
    /// `RTM_GETNEXTHOPBUCKET`
    pub const GETNEXTHOPBUCKET: u16 = 118;
}

/// rtnetlink multicast groups (`RTNLGRP_*`) the follow mode listens to.
pub(crate) const GROUPS: &[u32] = &[
    1,  // RTNLGRP_LINK
    3,  // RTNLGRP_NEIGH (events that leave answers unchanged are filtered: lib.rs)
    5,  // RTNLGRP_IPV4_IFADDR
    7,  // RTNLGRP_IPV4_ROUTE
    8,  // RTNLGRP_IPV4_RULE
    9,  // RTNLGRP_IPV6_IFADDR
    11, // RTNLGRP_IPV6_ROUTE
    19, // RTNLGRP_IPV6_RULE
    24, // RTNLGRP_IPV4_NETCONF
    25, // RTNLGRP_IPV6_NETCONF
    32, // RTNLGRP_NEXTHOP
];

/// Groups joined when the kernel has them: the multicast membership events
/// (`RTM_NEWMULTICAST`/`RTM_DELMULTICAST`, Linux 6.13 and later), so that a process
/// joining or leaving a group on the host causes a resync. An older kernel refuses the
/// group numbers (`EINVAL`); the follower then sees memberships at its next resync.
pub(crate) const OPTIONAL_GROUPS: &[u32] = &[
    37, // RTNLGRP_IPV4_MCADDR
    38, // RTNLGRP_IPV6_MCADDR
];

/// One netlink message: its header fields and payload.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Msg<'a> {
    /// `nlmsg_type`.
    pub ty: u16,
    /// `nlmsg_flags`.
    pub flags: u16,
    /// `nlmsg_seq`.
    pub seq: u32,
    /// The bytes after the 16-byte header.
    pub payload: &'a [u8],
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// The netlink messages of a buffer, in order. A message whose length is impossible ends
/// the walk (`Err` with what was left).
pub(crate) fn messages(mut buf: &[u8]) -> impl Iterator<Item = Result<Msg<'_>, usize>> {
    std::iter::from_fn(move || {
        if buf.is_empty() {
            return None;
        }
        let bad = buf.len();
        let len = u32_at(buf, 0).map(|l| l as usize);
        let ok = len.filter(|&l| l >= 16 && l <= buf.len());
        let Some(len) = ok else {
            buf = &[];
            return Some(Err(bad));
        };
        let m = Msg {
            ty: u16_at(buf, 4).unwrap_or(0),
            flags: u16_at(buf, 6).unwrap_or(0),
            seq: u32_at(buf, 8).unwrap_or(0),
            payload: &buf[16..len],
        };
        buf = buf.get(align4(len)..).unwrap_or(&[]);
        Some(Ok(m))
    })
}

/// One attribute (`struct nlattr`): its type (without the nested/byte-order bits) and
/// payload.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Attr<'a> {
    /// `nla_type & NLA_TYPE_MASK`.
    pub ty: u16,
    /// The payload.
    pub data: &'a [u8],
}

impl<'a> Attr<'a> {
    /// A `u8` payload.
    pub fn u8(&self) -> Option<u8> {
        self.data.first().copied()
    }
    /// A `u16` payload (host order).
    pub fn u16(&self) -> Option<u16> {
        u16_at(self.data, 0)
    }
    /// A `u32` payload (host order).
    pub fn u32(&self) -> Option<u32> {
        u32_at(self.data, 0)
    }
    /// A `u64` payload (host order).
    pub fn u64(&self) -> Option<u64> {
        let b: [u8; 8] = self.data.get(..8)?.try_into().ok()?;
        Some(u64::from_ne_bytes(b))
    }
    /// A NUL-terminated (or not) string payload; `None` if not UTF-8.
    pub fn str(&self) -> Option<&'a str> {
        let end = self
            .data
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.data.len());
        std::str::from_utf8(&self.data[..end]).ok()
    }
    /// An address payload: 4 bytes (IPv4) or 16 (IPv6), as a u128 with its family flag
    /// (`true`: IPv6).
    pub fn ip(&self) -> Option<(u128, bool)> {
        ip_of(self.data)
    }
    /// The nested attributes of the payload.
    pub fn nested(&self) -> Attrs<'a> {
        attrs(self.data)
    }
}

/// An address of 4 or 16 network-order bytes.
pub(crate) fn ip_of(b: &[u8]) -> Option<(u128, bool)> {
    match b.len() {
        4 => {
            let a: [u8; 4] = b.try_into().ok()?;
            Some((u128::from(u32::from_be_bytes(a)), false))
        }
        16 => {
            let a: [u8; 16] = b.try_into().ok()?;
            Some((u128::from_be_bytes(a), true))
        }
        _ => None,
    }
}

/// An iterator over attributes; a truncated attribute ends it and sets `truncated`.
#[derive(Clone, Debug)]
pub(crate) struct Attrs<'a> {
    buf: &'a [u8],
    /// Set when the walk stopped at a malformed attribute.
    pub truncated: bool,
}

/// The attributes of a buffer.
pub(crate) fn attrs(buf: &[u8]) -> Attrs<'_> {
    Attrs {
        buf,
        truncated: false,
    }
}

impl<'a> Iterator for Attrs<'a> {
    type Item = Attr<'a>;
    fn next(&mut self) -> Option<Attr<'a>> {
        if self.buf.len() < 4 {
            if !self.buf.is_empty() {
                self.truncated = true;
                self.buf = &[];
            }
            return None;
        }
        let len = usize::from(u16_at(self.buf, 0).unwrap_or(0));
        let ty = u16_at(self.buf, 2).unwrap_or(0) & 0x3fff;
        if len < 4 || len > self.buf.len() {
            self.truncated = true;
            self.buf = &[];
            return None;
        }
        let data = &self.buf[4..len];
        self.buf = self.buf.get(align4(len)..).unwrap_or(&[]);
        Some(Attr { ty, data })
    }
}

/// A host-order `u16` at `off`.
pub(crate) fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    let a: [u8; 2] = b.get(off..off + 2)?.try_into().ok()?;
    Some(u16::from_ne_bytes(a))
}

/// A host-order `u32` at `off`.
pub(crate) fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    let a: [u8; 4] = b.get(off..off + 4)?.try_into().ok()?;
    Some(u32::from_ne_bytes(a))
}

/// A netlink message: the 16-byte header (`nlmsg_len`, `ty`, `flags`, `seq`, port id
/// 0: the kernel) followed by `body`.
pub(crate) fn request(ty: u16, flags: u16, seq: u32, body: &[u8]) -> Vec<u8> {
    let len = 16 + body.len();
    let mut req = Vec::with_capacity(len);
    req.extend_from_slice(&(len as u32).to_ne_bytes());
    req.extend_from_slice(&ty.to_ne_bytes());
    req.extend_from_slice(&flags.to_ne_bytes());
    req.extend_from_slice(&seq.to_ne_bytes());
    req.extend_from_slice(&0u32.to_ne_bytes());
    req.extend_from_slice(body);
    req
}

/// A netlink socket of the current network namespace: `NETLINK_ROUTE`, or
/// `NETLINK_GENERIC` ([`RtSocket::open_generic`]).
pub(crate) struct RtSocket {
    sock: Socket,
    seq: u32,
    buf: Vec<u8>,
}

/// What a dump returned: the payloads of its messages of the expected type, and whether
/// the kernel flagged the dump as interrupted by a concurrent change.
pub(crate) struct Dump {
    /// Payloads (a copy of each message's bytes after the netlink header).
    pub payloads: Vec<Vec<u8>>,
    /// `NLM_F_DUMP_INTR` was seen.
    pub interrupted: bool,
}

impl RtSocket {
    /// Open and bind a socket (no multicast groups).
    pub fn open() -> io::Result<RtSocket> {
        RtSocket::open_protocol(NETLINK_ROUTE)
    }

    /// Open and bind a generic netlink (`NETLINK_GENERIC`) socket: the same requests,
    /// dumps and replies, with a family's id as the message type (see [`crate::genl`]).
    pub fn open_generic() -> io::Result<RtSocket> {
        RtSocket::open_protocol(NETLINK_GENERIC)
    }

    /// Open and bind an IPsec (`NETLINK_XFRM`) socket: the same request and dump walk,
    /// with `XFRM_MSG_*` message types (see [`crate::xfrm`]).
    pub fn open_xfrm() -> io::Result<RtSocket> {
        RtSocket::open_protocol(NETLINK_XFRM)
    }

    fn open_protocol(protocol: isize) -> io::Result<RtSocket> {
        let mut sock = Socket::new(protocol)?;
        sock.bind_auto()?;
        Ok(RtSocket {
            sock,
            seq: 1,
            buf: Vec::with_capacity(1 << 20),
        })
    }

    /// Join the rtnetlink multicast groups of [`GROUPS`].
    pub fn subscribe(&mut self) -> io::Result<()> {
        // room for long bursts (the kernel caps it at net.core.rmem_max): events that do
        // not fit are lost (ENOBUFS), which costs a resync
        let _ = self.sock.set_rx_buf_sz(4usize << 20);
        for &g in GROUPS {
            self.sock.add_membership(g)?;
        }
        for &g in OPTIONAL_GROUPS {
            let _ = self.sock.add_membership(g);
        }
        Ok(())
    }

    /// Blocking or not.
    pub fn set_non_blocking(&self, on: bool) -> io::Result<()> {
        self.sock.set_non_blocking(on)
    }

    /// Receive one datagram into the internal buffer; returns its bytes.
    pub fn recv(&mut self) -> io::Result<&[u8]> {
        self.buf.clear();
        let n = self.sock.recv(&mut self.buf, 0)?;
        let n = n.min(self.buf.len());
        Ok(&self.buf[..n])
    }

    /// Send a request of type `ty` with `flags` and `body`; returns its sequence number.
    fn send(&mut self, ty: u16, flags: u16, body: &[u8]) -> io::Result<u32> {
        self.seq = self.seq.wrapping_add(1);
        let req = request(ty, flags, self.seq, body);
        self.sock.send_to(&req, &SocketAddr::new(0, 0), 0)?;
        Ok(self.seq)
    }

    /// The next datagram of an answer still expected: a closed socket is an error.
    fn recv_more(&mut self) -> io::Result<&[u8]> {
        let data = self.recv()?;
        if data.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "netlink socket closed",
            ));
        }
        Ok(data)
    }

    /// Send one non-dump request (`NLM_F_REQUEST` only) of type `ty` with `body` and
    /// return the payload of the kernel's answer of type `want`. An `NLMSG_ERROR` with
    /// an error code is that error; an answer of another kind is `InvalidData`.
    pub fn get(&mut self, ty: u16, body: &[u8], want: u16) -> io::Result<Vec<u8>> {
        let seq = self.send(ty, NLM_F_REQUEST, body)?;
        loop {
            for m in messages(self.recv_more()?) {
                let m = m.map_err(|_| malformed())?;
                if m.seq != seq {
                    continue;
                }
                let unexpected = match m.ty {
                    NLMSG_ERROR => {
                        let code = u32_at(m.payload, 0).map_or(0, |c| c as i32);
                        if code < 0 {
                            return Err(io::Error::from_raw_os_error(-code));
                        }
                        "an acknowledgement without an answer"
                    }
                    t if t == want => return Ok(m.payload.to_vec()),
                    _ => "an answer of another type",
                };
                return Err(io::Error::new(io::ErrorKind::InvalidData, unexpected));
            }
        }
    }

    /// Send a dump request of type `ty` with `header` (the family message) and collect
    /// the replies of type `want` until `NLMSG_DONE`.
    pub fn dump(&mut self, ty: u16, header: &[u8], want: u16) -> io::Result<Dump> {
        let seq = self.send(ty, NLM_F_REQUEST | NLM_F_DUMP, header)?;
        let mut out = Dump {
            payloads: Vec::new(),
            interrupted: false,
        };
        loop {
            for m in messages(self.recv_more()?) {
                let m = m.map_err(|_| malformed())?;
                if m.seq != seq {
                    continue;
                }
                if m.flags & NLM_F_DUMP_INTR != 0 {
                    out.interrupted = true;
                }
                match m.ty {
                    NLMSG_DONE => {
                        // a dump the family refuses ends with DONE carrying -errno
                        let code = u32_at(m.payload, 0).map_or(0, |c| c as i32);
                        if code < 0 {
                            return Err(io::Error::from_raw_os_error(-code));
                        }
                        return Ok(out);
                    }
                    NLMSG_ERROR => {
                        let code = u32_at(m.payload, 0).map_or(0, |c| c as i32);
                        if code == 0 {
                            return Ok(out);
                        }
                        return Err(io::Error::from_raw_os_error(-code));
                    }
                    NLMSG_OVERRUN => {
                        return Err(io::Error::new(io::ErrorKind::InvalidData, "overrun"))
                    }
                    t if t == want => out.payloads.push(m.payload.to_vec()),
                    _ => {}
                }
            }
        }
    }
}

/// A message the kernel sent that does not parse.
fn malformed() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "malformed netlink message")
}
