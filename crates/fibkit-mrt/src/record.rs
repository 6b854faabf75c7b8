//! MRT records (RFC 6396): the typed form of each supported type and subtype.

use std::net::{IpAddr, Ipv4Addr};

use crate::bgp::{AttrContext, Attributes, Message};
use crate::error::Fault;
use crate::prefix::{Cursor, Prefix};

/// MRT type 5, BGP (deprecated, RFC 6396 appendix B).
pub const TYPE_BGP: u16 = 5;
/// MRT type 12, TABLE_DUMP.
pub const TYPE_TABLE_DUMP: u16 = 12;
/// MRT type 13, TABLE_DUMP_V2.
pub const TYPE_TABLE_DUMP_V2: u16 = 13;
/// MRT type 16, BGP4MP.
pub const TYPE_BGP4MP: u16 = 16;
/// MRT type 17, BGP4MP_ET (microsecond timestamps).
pub const TYPE_BGP4MP_ET: u16 = 17;

/// One MRT record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Byte offset of the record header in the decompressed stream.
    pub offset: u64,
    /// Seconds since the Unix epoch.
    pub timestamp: u32,
    /// Microseconds, for BGP4MP_ET records.
    pub microseconds: Option<u32>,
    /// MRT type.
    pub mrt_type: u16,
    /// MRT subtype.
    pub subtype: u16,
    /// The decoded body.
    pub body: Body,
}

/// The body of an MRT record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Body {
    /// TABLE_DUMP (v1): one RIB entry.
    TableDump(TableDump),
    /// TABLE_DUMP_V2 PEER_INDEX_TABLE.
    PeerIndexTable(PeerIndexTable),
    /// TABLE_DUMP_V2 RIB_IPV4/IPV6_UNICAST/MULTICAST, RIB_GENERIC and their ADD-PATH
    /// variants: one prefix and its entries.
    Rib(Rib),
    /// BGP4MP / BGP4MP_ET MESSAGE*, or legacy BGP UPDATE / KEEPALIVE: one BGP message.
    Message(BgpMessage),
    /// BGP4MP / BGP4MP_ET STATE_CHANGE*, or legacy BGP STATE_CHANGE.
    StateChange(StateChange),
    /// A type or subtype this crate does not decode (bgpdump skips those too).
    Unsupported,
}

/// A TABLE_DUMP (v1) RIB entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDump {
    /// View number.
    pub view: u16,
    /// Sequence number.
    pub sequence: u16,
    /// The prefix.
    pub prefix: Prefix,
    /// Status octet.
    pub status: u8,
    /// When the route was originated (seconds since the epoch).
    pub originated: u32,
    /// The peer's address.
    pub peer_ip: IpAddr,
    /// The peer's AS.
    pub peer_as: u32,
    /// Path attributes.
    pub attributes: Attributes,
}

/// A peer of a TABLE_DUMP_V2 PEER_INDEX_TABLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// BGP identifier.
    pub bgp_id: Ipv4Addr,
    /// Address.
    pub ip: IpAddr,
    /// AS number.
    pub asn: u32,
}

/// A TABLE_DUMP_V2 PEER_INDEX_TABLE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerIndexTable {
    /// The collector's BGP identifier.
    pub collector_id: Ipv4Addr,
    /// The view name (lossy UTF-8).
    pub view_name: String,
    /// The peers, by index.
    pub peers: Vec<Peer>,
}

/// A TABLE_DUMP_V2 RIB record: one prefix and its RIB entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rib {
    /// Sequence number.
    pub sequence: u32,
    /// Address family (1 IPv4, 2 IPv6).
    pub afi: u16,
    /// Subsequent address family (1 unicast, 2 multicast).
    pub safi: u8,
    /// Whether the record is RIB_GENERIC.
    pub generic: bool,
    /// Whether entries carry ADD-PATH path identifiers (RFC 8050).
    pub addpath: bool,
    /// The prefix.
    pub prefix: Prefix,
    /// The entries.
    pub entries: Vec<RibEntry>,
}

/// One entry of a TABLE_DUMP_V2 RIB record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RibEntry {
    /// Index into the PEER_INDEX_TABLE.
    pub peer_index: u16,
    /// That peer, resolved by the reader.
    pub peer: Peer,
    /// When the route was originated (seconds since the epoch).
    pub originated: u32,
    /// ADD-PATH path identifier.
    pub path_id: Option<u32>,
    /// Path attributes.
    pub attributes: Attributes,
}

/// A BGP message record (BGP4MP MESSAGE* or legacy BGP).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BgpMessage {
    /// The peer's AS (the first AS of the record).
    pub peer_as: u32,
    /// The local AS.
    pub local_as: u32,
    /// Interface index (0 for legacy records).
    pub interface: u16,
    /// The peer's address.
    pub peer_ip: IpAddr,
    /// The local address.
    pub local_ip: IpAddr,
    /// AS numbers are 4 bytes (the *_AS4 subtypes).
    pub asn4: bool,
    /// The message was sent by the local side (the *_LOCAL subtypes).
    pub local: bool,
    /// NLRI carry ADD-PATH identifiers (the *_ADDPATH subtypes).
    pub addpath: bool,
    /// The message.
    pub message: Message,
}

/// A BGP state change record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateChange {
    /// The peer's AS.
    pub peer_as: u32,
    /// The local AS (0 for legacy records).
    pub local_as: u32,
    /// Interface index.
    pub interface: u16,
    /// The peer's address (0.0.0.0 when the record omits it).
    pub peer_ip: IpAddr,
    /// The local address (0.0.0.0 when the record omits it).
    pub local_ip: IpAddr,
    /// Old FSM state (1 Idle ... 6 Established).
    pub old_state: u16,
    /// New FSM state.
    pub new_state: u16,
}

const V4_ZERO: IpAddr = IpAddr::V4(Ipv4Addr::UNSPECIFIED);

fn afi_is_v6(afi: u16) -> Result<bool, Fault> {
    match afi {
        1 => Ok(false),
        2 => Ok(true),
        a => Err(Fault::BadAfi(a)),
    }
}

fn attributes(c: &mut Cursor<'_>, ctx: AttrContext) -> Result<Attributes, Fault> {
    let len = c.u16("attributes length")?;
    Attributes::decode(c.take(usize::from(len), "attributes")?, ctx)
}

pub(crate) fn table_dump(subtype: u16, data: &[u8]) -> Result<Body, Fault> {
    // Subtypes 3 and 4 are bgpdump's 4-byte-AS variants of 1 and 2.
    let (v6, asn4) = match subtype {
        1 => (false, false),
        2 => (true, false),
        3 => (false, true),
        4 => (true, true),
        _ => return Ok(Body::Unsupported),
    };
    let mut c = Cursor::new(data);
    let view = c.u16("table dump")?;
    let sequence = c.u16("table dump")?;
    let addr = c.ip(v6, "table dump prefix")?;
    let len = c.u8("table dump prefix")?;
    let prefix = Prefix::new(addr, len).ok_or(Fault::BadPrefixLength(len))?;
    let status = c.u8("table dump")?;
    let originated = c.u32("table dump")?;
    let peer_ip = c.ip(v6, "table dump peer")?;
    let peer_as = c.asn(asn4, "table dump peer")?;
    let attributes = attributes(
        &mut c,
        AttrContext {
            asn4,
            addpath: false,
        },
    )?;
    Ok(Body::TableDump(TableDump {
        view,
        sequence,
        prefix,
        status,
        originated,
        peer_ip,
        peer_as,
        attributes,
    }))
}

pub(crate) fn peer_index_table(data: &[u8]) -> Result<PeerIndexTable, Fault> {
    let mut c = Cursor::new(data);
    let collector_id = c.ipv4("peer index table")?;
    let name_len = c.u16("peer index table")?;
    let view_name = String::from_utf8_lossy(c.take(usize::from(name_len), "view name")?).into();
    let count = c.u16("peer index table")?;
    let mut peers = Vec::with_capacity(usize::from(count).min(c.remaining() / 7));
    for _ in 0..count {
        let ty = c.u8("peer entry")?;
        let bgp_id = c.ipv4("peer entry")?;
        let ip = c.ip(ty & 1 != 0, "peer entry")?;
        let asn = c.asn(ty & 2 != 0, "peer entry")?;
        peers.push(Peer { bgp_id, ip, asn });
    }
    Ok(PeerIndexTable {
        collector_id,
        view_name,
        peers,
    })
}

pub(crate) fn rib(subtype: u16, data: &[u8], peers: Option<&[Peer]>) -> Result<Body, Fault> {
    let (afi, safi, generic, addpath) = match subtype {
        2 => (1, 1, false, false),
        3 => (1, 2, false, false),
        4 => (2, 1, false, false),
        5 => (2, 2, false, false),
        6 => (0, 0, true, false),
        8 => (1, 1, false, true),
        9 => (1, 2, false, true),
        10 => (2, 1, false, true),
        11 => (2, 2, false, true),
        12 => (0, 0, true, true),
        _ => return Ok(Body::Unsupported),
    };
    let mut c = Cursor::new(data);
    let sequence = c.u32("rib header")?;
    let (afi, safi) = if generic {
        let afi = c.u16("rib header")?;
        let safi = c.u8("rib header")?;
        if !matches!(afi, 1 | 2) || !matches!(safi, 1 | 2) {
            return Ok(Body::Unsupported);
        }
        (afi, safi)
    } else {
        (afi, safi)
    };
    let prefix = c.prefix(afi == 2, "rib prefix")?;
    let count = c.u16("rib entry count")?;
    let peers = peers.ok_or(Fault::NoPeerIndexTable)?;
    let mut entries = Vec::with_capacity(usize::from(count).min(c.remaining() / 8));
    for _ in 0..count {
        let peer_index = c.u16("rib entry")?;
        let peer = *peers
            .get(usize::from(peer_index))
            .ok_or(Fault::UnknownPeer(peer_index))?;
        let originated = c.u32("rib entry")?;
        let path_id = if addpath {
            Some(c.u32("rib entry")?)
        } else {
            None
        };
        let attributes = attributes(
            &mut c,
            AttrContext {
                asn4: true,
                addpath,
            },
        )?;
        entries.push(RibEntry {
            peer_index,
            peer,
            originated,
            path_id,
            attributes,
        });
    }
    Ok(Body::Rib(Rib {
        sequence,
        afi,
        safi,
        generic,
        addpath,
        prefix,
        entries,
    }))
}

pub(crate) fn bgp4mp(subtype: u16, data: &[u8]) -> Result<Body, Fault> {
    // (is a state change, 4-byte ASNs, local, add-path)
    let (state, asn4, local, addpath) = match subtype {
        0 => (true, false, false, false),
        1 => (false, false, false, false),
        4 => (false, true, false, false),
        5 => (true, true, false, false),
        6 => (false, false, true, false),
        7 => (false, true, true, false),
        8 => (false, false, false, true),
        9 => (false, true, false, true),
        10 => (false, false, true, true),
        11 => (false, true, true, true),
        _ => return Ok(Body::Unsupported),
    };
    let mut c = Cursor::new(data);
    let peer_as = c.asn(asn4, "bgp4mp header")?;
    let local_as = c.asn(asn4, "bgp4mp header")?;
    if state && c.remaining() == 4 {
        // Old Zebra wrote state changes without interface, family and addresses.
        return Ok(Body::StateChange(StateChange {
            peer_as,
            local_as,
            interface: 0,
            peer_ip: V4_ZERO,
            local_ip: V4_ZERO,
            old_state: c.u16("state change")?,
            new_state: c.u16("state change")?,
        }));
    }
    let at_interface = c.clone();
    let interface = c.u16("bgp4mp header")?;
    let afi = c.u16("bgp4mp header")?;
    if !state && interface == 0xffff && afi == 0xffff {
        // Old Zebra wrote OPEN messages without interface, family and addresses: the
        // BGP marker starts where the interface index should be (bgpdump reads it so).
        let message = Message::decode(at_interface.clone().rest(), AttrContext { asn4, addpath })?;
        return Ok(Body::Message(BgpMessage {
            peer_as,
            local_as,
            interface: 0,
            peer_ip: V4_ZERO,
            local_ip: V4_ZERO,
            asn4,
            local,
            addpath,
            message,
        }));
    }
    let v6 = afi_is_v6(afi)?;
    let peer_ip = c.ip(v6, "bgp4mp header")?;
    let local_ip = c.ip(v6, "bgp4mp header")?;
    if state {
        let old_state = c.u16("state change")?;
        let new_state = c.u16("state change")?;
        if !c.is_empty() {
            return Err(Fault::BadLength("state change", data.len()));
        }
        return Ok(Body::StateChange(StateChange {
            peer_as,
            local_as,
            interface,
            peer_ip,
            local_ip,
            old_state,
            new_state,
        }));
    }
    let message = Message::decode(c.rest(), AttrContext { asn4, addpath })?;
    Ok(Body::Message(BgpMessage {
        peer_as,
        local_as,
        interface,
        peer_ip,
        local_ip,
        asn4,
        local,
        addpath,
        message,
    }))
}

/// The deprecated BGP type: UPDATE (1) and KEEPALIVE (7) carry the message body
/// without the BGP header; STATE_CHANGE (3) a peer and two states.
pub(crate) fn legacy_bgp(subtype: u16, data: &[u8]) -> Result<Body, Fault> {
    let mut c = Cursor::new(data);
    match subtype {
        1 | 7 => {
            let peer_as = c.asn(false, "bgp header")?;
            let peer_ip = IpAddr::V4(c.ipv4("bgp header")?);
            let local_as = c.asn(false, "bgp header")?;
            let local_ip = IpAddr::V4(c.ipv4("bgp header")?);
            let ctx = AttrContext {
                asn4: false,
                addpath: false,
            };
            let message = if subtype == 1 {
                Message::Update(Box::new(crate::bgp::Update::decode(c.rest(), ctx)?))
            } else {
                Message::Keepalive
            };
            Ok(Body::Message(BgpMessage {
                peer_as,
                local_as,
                interface: 0,
                peer_ip,
                local_ip,
                asn4: false,
                local: false,
                addpath: false,
                message,
            }))
        }
        3 => {
            let peer_as = c.asn(false, "state change")?;
            let peer_ip = IpAddr::V4(c.ipv4("state change")?);
            Ok(Body::StateChange(StateChange {
                peer_as,
                local_as: 0,
                interface: 0,
                peer_ip,
                local_ip: V4_ZERO,
                old_state: c.u16("state change")?,
                new_state: c.u16("state change")?,
            }))
        }
        _ => Ok(Body::Unsupported),
    }
}
