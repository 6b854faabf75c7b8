//! BGP UPDATE messages and path attributes (RFC 4271, 4760, 6793, 7911, 8092).

use std::net::{IpAddr, Ipv4Addr};

use crate::error::Fault;
use crate::prefix::{Cursor, Prefix};

/// AS_TRANS (RFC 6793): the 2-byte stand-in for a 4-byte AS number.
pub const AS_TRANS: u32 = 23456;

/// One NLRI entry: a prefix, with its path identifier when ADD-PATH (RFC 7911) is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nlri {
    /// The prefix.
    pub prefix: Prefix,
    /// The ADD-PATH path identifier.
    pub path_id: Option<u32>,
}

/// The kind of an AS_PATH segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentKind {
    /// AS_SET (1): an unordered set, printed `{a,b}`.
    Set,
    /// AS_SEQUENCE (2): an ordered sequence, printed `a b`.
    Sequence,
    /// AS_CONFED_SEQUENCE (3), printed `(a b)`.
    ConfedSequence,
    /// AS_CONFED_SET (4), printed `[a,b]`.
    ConfedSet,
}

/// One AS_PATH segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Its kind.
    pub kind: SegmentKind,
    /// Its AS numbers.
    pub asns: Vec<u32>,
}

/// An AS path: its segments in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AsPath {
    /// The segments.
    pub segments: Vec<Segment>,
}

impl AsPath {
    /// Decodes an AS_PATH or AS4_PATH body with 2- or 4-byte AS numbers.
    pub fn decode(data: &[u8], four: bool) -> Result<AsPath, Fault> {
        let mut c = Cursor::new(data);
        let mut segments = Vec::new();
        while !c.is_empty() {
            let kind = match c.u8("as path segment")? {
                1 => SegmentKind::Set,
                2 => SegmentKind::Sequence,
                3 => SegmentKind::ConfedSequence,
                4 => SegmentKind::ConfedSet,
                t => return Err(Fault::BadSegmentType(t)),
            };
            let n = c.u8("as path segment")?;
            let mut asns = Vec::with_capacity(usize::from(n));
            for _ in 0..n {
                asns.push(c.asn(four, "as path segment")?);
            }
            segments.push(Segment { kind, asns });
        }
        Ok(AsPath { segments })
    }

    /// The path length as RFC 4271 counts it (and bgpdump): a set counts as one.
    pub fn count(&self) -> usize {
        self.segments
            .iter()
            .map(|s| match s.kind {
                SegmentKind::Sequence | SegmentKind::ConfedSequence => s.asns.len(),
                SegmentKind::Set | SegmentKind::ConfedSet => 1,
            })
            .sum()
    }

    /// The path rebuilt from a 2-byte AS_PATH and an AS4_PATH (RFC 6793 section 4.2.3):
    /// the leading ASes of `self` that AS4_PATH does not cover, then AS4_PATH.
    pub fn merge_as4(&self, as4: &AsPath) -> AsPath {
        let mut need = self.count().saturating_sub(as4.count());
        let mut segments = Vec::new();
        for s in &self.segments {
            if need == 0 {
                break;
            }
            match s.kind {
                SegmentKind::Set | SegmentKind::ConfedSet => {
                    segments.push(s.clone());
                    need -= 1;
                }
                SegmentKind::Sequence | SegmentKind::ConfedSequence => {
                    let k = need.min(s.asns.len());
                    segments.push(Segment {
                        kind: s.kind,
                        asns: s.asns.get(..k).unwrap_or_default().to_vec(),
                    });
                    need -= k;
                }
            }
        }
        segments.extend(as4.segments.iter().cloned());
        AsPath { segments }
    }
}

/// The AS path as bgpdump prints it: sequences space-separated, `{a,b}` for sets,
/// `(a b)` for confederation sequences, `[a,b]` for confederation sets.
impl std::fmt::Display for AsPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open_close = |k: SegmentKind| match k {
            SegmentKind::Set => ('{', '}'),
            SegmentKind::ConfedSet => ('[', ']'),
            SegmentKind::ConfedSequence => ('(', ')'),
            SegmentKind::Sequence => (' ', ' '),
        };
        // Separators follow bgpdump: a space between segments only after a non-empty one.
        let mut prev = SegmentKind::Sequence;
        let mut space = false;
        for s in &self.segments {
            if prev != SegmentKind::Sequence {
                write!(f, "{}", open_close(prev).1)?;
            }
            if space {
                f.write_str(" ")?;
            }
            if s.kind != SegmentKind::Sequence {
                write!(f, "{}", open_close(s.kind).0)?;
            }
            let sep = match s.kind {
                SegmentKind::Set | SegmentKind::ConfedSet => ",",
                _ => " ",
            };
            for (i, a) in s.asns.iter().enumerate() {
                if i > 0 {
                    f.write_str(sep)?;
                }
                write!(f, "{a}")?;
            }
            space = !s.asns.is_empty();
            prev = s.kind;
        }
        if let Some(last) = self.segments.last() {
            if last.kind != SegmentKind::Sequence {
                write!(f, "{}", open_close(last.kind).1)?;
            }
        }
        Ok(())
    }
}

/// The AGGREGATOR (or AS4_AGGREGATOR) attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aggregator {
    /// The aggregating AS.
    pub asn: u32,
    /// The aggregating router's BGP identifier.
    pub addr: Ipv4Addr,
}

/// MP_REACH_NLRI (RFC 4760), or the abbreviated form TABLE_DUMP_V2 RIB entries carry
/// (next hop only, RFC 6396 section 4.3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MpReach {
    /// Address family (1 IPv4, 2 IPv6); for the abbreviated form, 2 if the next hop is
    /// IPv6, else 1.
    pub afi: u16,
    /// Subsequent address family (1 unicast, 2 multicast, ...); 1 for the abbreviated
    /// form.
    pub safi: u8,
    /// Whether this is the abbreviated TABLE_DUMP_V2 form.
    pub abbreviated: bool,
    /// The next hops: one address, or an IPv6 global and link-local pair; empty for a
    /// next-hop length other than 4, 16 or 32.
    pub next_hops: Vec<IpAddr>,
    /// The announced prefixes (only decoded for IPv4/IPv6 unicast and multicast).
    pub nlri: Vec<Nlri>,
}

/// MP_UNREACH_NLRI (RFC 4760).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MpUnreach {
    /// Address family.
    pub afi: u16,
    /// Subsequent address family.
    pub safi: u8,
    /// The withdrawn prefixes (only decoded for IPv4/IPv6 unicast and multicast).
    pub nlri: Vec<Nlri>,
}

/// A path attribute this crate does not decode, kept as it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawAttribute {
    /// The attribute flags.
    pub flags: u8,
    /// The attribute type code.
    pub type_code: u8,
    /// The attribute value.
    pub value: Vec<u8>,
}

/// The decoded path attributes of an UPDATE or a RIB entry.
///
/// With 2-byte AS numbers, `as_path` and `aggregator` are the values rebuilt from
/// AS4_PATH and AS4_AGGREGATOR as bgpdump does; the received AS4 attributes are kept in
/// `as4_path` and `as4_aggregator`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attributes {
    /// ORIGIN: 0 IGP, 1 EGP, 2 INCOMPLETE.
    pub origin: Option<u8>,
    /// AS_PATH (merged with AS4_PATH on 2-byte sessions).
    pub as_path: Option<AsPath>,
    /// NEXT_HOP.
    pub next_hop: Option<Ipv4Addr>,
    /// MULTI_EXIT_DISC.
    pub med: Option<u32>,
    /// LOCAL_PREF.
    pub local_pref: Option<u32>,
    /// ATOMIC_AGGREGATE is present.
    pub atomic_aggregate: bool,
    /// AGGREGATOR (AS4_AGGREGATOR substituted when AGGREGATOR holds AS_TRANS).
    pub aggregator: Option<Aggregator>,
    /// COMMUNITIES (RFC 1997), each as a 32-bit value.
    pub communities: Option<Vec<u32>>,
    /// LARGE_COMMUNITY (RFC 8092) triples.
    pub large_communities: Option<Vec<[u32; 3]>>,
    /// MP_REACH_NLRI attributes, in order.
    pub mp_reach: Vec<MpReach>,
    /// MP_UNREACH_NLRI attributes, in order.
    pub mp_unreach: Vec<MpUnreach>,
    /// AS4_PATH as received.
    pub as4_path: Option<AsPath>,
    /// AS4_AGGREGATOR as received.
    pub as4_aggregator: Option<Aggregator>,
    /// Every other attribute.
    pub other: Vec<RawAttribute>,
}

/// How to read a block of attributes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttrContext {
    /// AS numbers are 4 bytes.
    pub asn4: bool,
    /// NLRI carry ADD-PATH identifiers.
    pub addpath: bool,
}

fn is_known_family(afi: u16, safi: u8) -> bool {
    matches!(afi, 1 | 2) && matches!(safi, 1..=3)
}

fn read_nlri(c: &mut Cursor<'_>, v6: bool, addpath: bool) -> Result<Vec<Nlri>, Fault> {
    let (out, cut) = read_nlri_lenient(c, v6, addpath)?;
    match cut {
        true => Err(Fault::Truncated("nlri")),
        false => Ok(out),
    }
}

/// Reads NLRI to the end of `c`; a last prefix cut short by the end is dropped and
/// reported by the flag instead of failing (bgpdump does the same).
fn read_nlri_lenient(
    c: &mut Cursor<'_>,
    v6: bool,
    addpath: bool,
) -> Result<(Vec<Nlri>, bool), Fault> {
    let mut out = Vec::new();
    while !c.is_empty() {
        let mut probe = c.clone();
        if addpath {
            probe.take(4, "nlri path id")?;
        }
        let len = probe.u8("nlri")?;
        if usize::from(len).div_ceil(8) > probe.remaining() && len <= if v6 { 128 } else { 32 } {
            return Ok((out, true));
        }
        let path_id = if addpath {
            Some(c.u32("nlri path id")?)
        } else {
            None
        };
        let prefix = c.prefix(v6, "nlri")?;
        out.push(Nlri { prefix, path_id });
    }
    Ok((out, false))
}

fn next_hops(bytes: &[u8]) -> Vec<IpAddr> {
    let mut c = Cursor::new(bytes);
    match bytes.len() {
        4 => c.ipv4("next hop").map(IpAddr::V4).into_iter().collect(),
        16 | 32 => {
            let mut v = Vec::new();
            while let Ok(a) = c.ipv6("next hop") {
                v.push(IpAddr::V6(a));
            }
            v
        }
        _ => Vec::new(),
    }
}

impl MpReach {
    pub(crate) fn decode(data: &[u8], addpath: bool) -> Result<MpReach, Fault> {
        let mut c = Cursor::new(data);
        // The full form starts with a 2-byte AFI (high byte 0); the abbreviated one with
        // the next-hop length, never 0 (bgpdump tells them apart the same way).
        if c.peek().is_some_and(|b| b != 0) {
            let n = c.u8("mp_reach next hop")?;
            let nh = c.take(usize::from(n), "mp_reach next hop")?;
            let next_hops = next_hops(nh);
            let afi = if next_hops.first().is_some_and(IpAddr::is_ipv6) {
                2
            } else {
                1
            };
            return Ok(MpReach {
                afi,
                safi: 1,
                abbreviated: true,
                next_hops,
                nlri: Vec::new(),
            });
        }
        let afi = c.u16("mp_reach afi")?;
        let safi = c.u8("mp_reach safi")?;
        let n = c.u8("mp_reach next hop")?;
        let nh = c.take(usize::from(n), "mp_reach next hop")?;
        let mut reach = MpReach {
            afi,
            safi,
            abbreviated: false,
            next_hops: next_hops(nh),
            nlri: Vec::new(),
        };
        if !is_known_family(afi, safi) {
            return Ok(reach);
        }
        let snpas = c.u8("mp_reach reserved")?;
        for _ in 0..snpas {
            let len = c.u8("mp_reach snpa")?;
            c.take(usize::from(len), "mp_reach snpa")?;
        }
        reach.nlri = read_nlri(&mut c, afi == 2, addpath)?;
        Ok(reach)
    }
}

impl MpUnreach {
    pub(crate) fn decode(data: &[u8], addpath: bool) -> Result<MpUnreach, Fault> {
        let mut c = Cursor::new(data);
        let afi = c.u16("mp_unreach afi")?;
        let safi = c.u8("mp_unreach safi")?;
        let nlri = if is_known_family(afi, safi) {
            read_nlri(&mut c, afi == 2, addpath)?
        } else {
            Vec::new()
        };
        Ok(MpUnreach { afi, safi, nlri })
    }
}

fn aggregator(data: &[u8], four: bool) -> Result<Aggregator, Fault> {
    let mut c = Cursor::new(data);
    let asn = c.asn(four, "aggregator")?;
    let addr = c.ipv4("aggregator")?;
    Ok(Aggregator { asn, addr })
}

fn u32_list(data: &[u8], what: &'static str) -> Result<Vec<u32>, Fault> {
    if data.len() % 4 != 0 {
        return Err(Fault::BadLength(what, data.len()));
    }
    let mut c = Cursor::new(data);
    let mut v = Vec::with_capacity(data.len() / 4);
    while !c.is_empty() {
        v.push(c.u32(what)?);
    }
    Ok(v)
}

impl Attributes {
    /// Decodes a block of path attributes (the bytes after the 2-byte total length).
    pub(crate) fn decode(data: &[u8], ctx: AttrContext) -> Result<Attributes, Fault> {
        let mut a = Attributes::default();
        let mut c = Cursor::new(data);
        while !c.is_empty() {
            let flags = c.u8("attribute header")?;
            let type_code = c.u8("attribute header")?;
            let len = if flags & 0x10 != 0 {
                usize::from(c.u16("attribute header")?)
            } else {
                usize::from(c.u8("attribute header")?)
            };
            let v = c.take(len, "attribute")?;
            let mut vc = Cursor::new(v);
            match type_code {
                1 => a.origin = Some(vc.u8("origin")?),
                2 => a.as_path = Some(AsPath::decode(v, ctx.asn4)?),
                3 => a.next_hop = Some(vc.ipv4("next_hop")?),
                4 => a.med = Some(vc.u32("med")?),
                5 => a.local_pref = Some(vc.u32("local_pref")?),
                6 => a.atomic_aggregate = true,
                7 => a.aggregator = Some(aggregator(v, ctx.asn4)?),
                8 => a.communities = Some(u32_list(v, "communities")?),
                14 => a.mp_reach.push(MpReach::decode(v, ctx.addpath)?),
                15 => a.mp_unreach.push(MpUnreach::decode(v, ctx.addpath)?),
                17 => a.as4_path = Some(AsPath::decode(v, true)?),
                18 => a.as4_aggregator = Some(aggregator(v, true)?),
                32 => {
                    let words = u32_list(v, "large communities")?;
                    if words.len() % 3 != 0 {
                        return Err(Fault::BadLength("large communities", v.len()));
                    }
                    a.large_communities =
                        Some(words.chunks_exact(3).map(|w| [w[0], w[1], w[2]]).collect());
                }
                _ => a.other.push(RawAttribute {
                    flags,
                    type_code,
                    value: v.to_vec(),
                }),
            }
        }
        if !ctx.asn4 {
            a.merge_as4();
        }
        Ok(a)
    }

    /// The AS4 reconstruction of a 2-byte session, with bgpdump's rules: AS4_AGGREGATOR
    /// replaces an AGGREGATOR of AS_TRANS; if AGGREGATOR holds a real 2-byte AS, both
    /// AS4 attributes are ignored; AS4_PATH is ignored when longer than AS_PATH.
    fn merge_as4(&mut self) {
        if let (Some(agg), Some(agg4)) = (self.aggregator, self.as4_aggregator) {
            if agg.asn != AS_TRANS {
                return;
            }
            self.aggregator = Some(agg4);
        }
        if let (Some(path), Some(path4)) = (&self.as_path, &self.as4_path) {
            if path.count() >= path4.count() {
                self.as_path = Some(path.merge_as4(path4));
            }
        }
    }
}

/// A BGP UPDATE message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Update {
    /// Withdrawn IPv4 routes.
    pub withdrawn: Vec<Nlri>,
    /// Path attributes.
    pub attributes: Attributes,
    /// Announced IPv4 routes (the NLRI field).
    pub announced: Vec<Nlri>,
    /// The withdrawn routes or NLRI field ended inside a prefix, which was dropped (the
    /// routes before it are kept, as bgpdump keeps them).
    pub incomplete: bool,
}

impl Update {
    /// Decodes an UPDATE body (after the 19-byte BGP header).
    pub(crate) fn decode(data: &[u8], ctx: AttrContext) -> Result<Update, Fault> {
        let mut c = Cursor::new(data);
        let wlen = c.u16("withdrawn routes length")?;
        let mut wc = Cursor::new(c.take(usize::from(wlen), "withdrawn routes")?);
        let (withdrawn, cut_w) = read_nlri_lenient(&mut wc, false, ctx.addpath)?;
        let alen = c.u16("attributes length")?;
        let attributes = Attributes::decode(c.take(usize::from(alen), "attributes")?, ctx)?;
        let (announced, cut_a) = read_nlri_lenient(&mut c, false, ctx.addpath)?;
        Ok(Update {
            withdrawn,
            attributes,
            announced,
            incomplete: cut_w || cut_a,
        })
    }

    /// Every announced prefix: the NLRI field, then each MP_REACH_NLRI.
    pub fn announced_all(&self) -> impl Iterator<Item = &Nlri> {
        self.announced
            .iter()
            .chain(self.attributes.mp_reach.iter().flat_map(|m| m.nlri.iter()))
    }

    /// Every withdrawn prefix: the withdrawn routes field, then each MP_UNREACH_NLRI.
    pub fn withdrawn_all(&self) -> impl Iterator<Item = &Nlri> {
        self.withdrawn.iter().chain(
            self.attributes
                .mp_unreach
                .iter()
                .flat_map(|m| m.nlri.iter()),
        )
    }
}

/// A BGP message inside a BGP4MP (or legacy BGP) record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Message {
    /// UPDATE (type 2), boxed: it is much larger than the other variants.
    Update(Box<Update>),
    /// OPEN (type 1), not decoded further.
    Open,
    /// NOTIFICATION (type 3).
    Notification {
        /// Error code.
        code: u8,
        /// Error subcode.
        subcode: u8,
    },
    /// KEEPALIVE (type 4).
    Keepalive,
    /// Any other message type (ROUTE-REFRESH, ...).
    Other(u8),
}

impl Message {
    /// Decodes a BGP message with its 19-byte header (marker, length, type).
    pub(crate) fn decode(data: &[u8], ctx: AttrContext) -> Result<Message, Fault> {
        let mut c = Cursor::new(data);
        let marker = c.take(16, "bgp header")?;
        if marker.iter().any(|&b| b != 0xff) {
            return Err(Fault::BadMarker);
        }
        let len = usize::from(c.u16("bgp header")?);
        let ty = c.u8("bgp header")?;
        let body_len = len
            .checked_sub(19)
            .ok_or(Fault::BadLength("bgp message", len))?;
        let body = c.take(body_len, "bgp message")?;
        Ok(match ty {
            1 => Message::Open,
            2 => Message::Update(Box::new(Update::decode(body, ctx)?)),
            3 => {
                let mut b = Cursor::new(body);
                Message::Notification {
                    code: b.u8("notification")?,
                    subcode: b.u8("notification")?,
                }
            }
            4 => Message::Keepalive,
            t => Message::Other(t),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTX2: AttrContext = AttrContext {
        asn4: false,
        addpath: false,
    };
    const CTX4: AttrContext = AttrContext {
        asn4: true,
        addpath: false,
    };

    #[test]
    fn origin_path_nexthop_med_localpref() {
        // ORIGIN IGP; AS_PATH SEQUENCE 1853 1239; NEXT_HOP 193.203.0.1; MED 10;
        // LOCAL_PREF 100; ATOMIC_AGGREGATE.
        let bytes = [
            0x40, 1, 1, 0, //
            0x40, 2, 6, 2, 2, 0x07, 0x3d, 0x04, 0xd7, //
            0x40, 3, 4, 193, 203, 0, 1, //
            0x80, 4, 4, 0, 0, 0, 10, //
            0x40, 5, 4, 0, 0, 0, 100, //
            0x40, 6, 0,
        ];
        let a = Attributes::decode(&bytes, CTX2).unwrap();
        assert_eq!(a.origin, Some(0));
        assert_eq!(a.as_path.unwrap().to_string(), "1853 1239");
        assert_eq!(a.next_hop, Some(Ipv4Addr::new(193, 203, 0, 1)));
        assert_eq!(a.med, Some(10));
        assert_eq!(a.local_pref, Some(100));
        assert!(a.atomic_aggregate);
    }

    #[test]
    fn as_path_sets_and_confederations() {
        // SEQUENCE 1 2, SET {3,4}, CONFED_SEQUENCE (5), CONFED_SET [6,7], 4-byte ASNs.
        let mut v = vec![2, 2, 0, 0, 0, 1, 0, 0, 0, 2, 1, 2, 0, 0, 0, 3, 0, 0, 0, 4];
        v.extend([3, 1, 0, 0, 0, 5, 4, 2, 0, 0, 0, 6, 0, 0, 0, 7]);
        let p = AsPath::decode(&v, true).unwrap();
        assert_eq!(p.to_string(), "1 2 {3,4} (5) [6,7]");
        assert_eq!(p.count(), 5);
        assert_eq!(AsPath::decode(&[5, 0], true), Err(Fault::BadSegmentType(5)));
        assert_eq!(
            AsPath::decode(&[2, 2, 0, 1], false),
            Err(Fault::Truncated("as path segment"))
        );
    }

    #[test]
    fn as4_path_and_aggregator_merge() {
        // 2-byte session: AS_PATH 3333 23456 23456, AS4_PATH 196608 200000;
        // AGGREGATOR 23456 10.0.0.1, AS4_AGGREGATOR 200000 10.0.0.1.
        let bytes = [
            0x40, 2, 8, 2, 3, 0x0d, 0x05, 0x5b, 0xa0, 0x5b, 0xa0, //
            0xc0, 7, 6, 0x5b, 0xa0, 10, 0, 0, 1, //
            0xc0, 17, 10, 2, 2, 0, 3, 0, 0, 0, 3, 0x0d, 0x40, //
            0xc0, 18, 8, 0, 3, 0x0d, 0x40, 10, 0, 0, 1,
        ];
        let a = Attributes::decode(&bytes, CTX2).unwrap();
        assert_eq!(a.as_path.unwrap().to_string(), "3333 196608 200000");
        assert_eq!(a.aggregator.unwrap().asn, 200000);
        // On a 4-byte session the AS4 attributes are left alone.
        let a = Attributes::decode(&bytes[..20], CTX4);
        assert!(a.is_err(), "2-byte AS_PATH read as 4-byte must not decode");
    }

    #[test]
    fn aggregator_with_real_asn_blocks_as4_merge() {
        let bytes = [
            0x40, 2, 6, 2, 2, 0, 1, 0x5b, 0xa0, //
            0xc0, 7, 6, 0, 9, 10, 0, 0, 1, //
            0xc0, 17, 6, 2, 1, 0, 3, 0x0d, 0x40, //
            0xc0, 18, 8, 0, 3, 0x0d, 0x40, 10, 0, 0, 1,
        ];
        let a = Attributes::decode(&bytes, CTX2).unwrap();
        assert_eq!(a.as_path.unwrap().to_string(), "1 23456");
        assert_eq!(a.aggregator.unwrap().asn, 9);
    }

    #[test]
    fn communities_and_large_communities() {
        let bytes = [
            0xc0, 8, 8, 0x0d, 0x05, 0x01, 0x9a, 0xff, 0xff, 0xff, 0x01, //
            0xc0, 32, 12, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
        ];
        let a = Attributes::decode(&bytes, CTX4).unwrap();
        assert_eq!(a.communities, Some(vec![0x0d05_019a, 0xffff_ff01]));
        assert_eq!(a.large_communities, Some(vec![[1, 2, 3]]));
        assert_eq!(
            Attributes::decode(&[0xc0, 8, 3, 0, 0, 0], CTX4),
            Err(Fault::BadLength("communities", 3))
        );
    }

    #[test]
    fn mp_reach_and_unreach_ipv6() {
        // MP_REACH: AFI 2 SAFI 1, next hop 2001:db8::1 (16 bytes), reserved, 2001:db8::/32.
        let mut v = vec![0x80, 14, 26, 0, 2, 1, 16, 0x20, 0x01, 0x0d, 0xb8];
        v.extend([0; 11]);
        v.extend([1, 0, 32, 0x20, 0x01, 0x0d, 0xb8]);
        // MP_UNREACH: AFI 2 SAFI 1, 2001:db8:1::/48.
        v.extend([0x80, 15, 10, 0, 2, 1, 48, 0x20, 0x01, 0x0d, 0xb8, 0, 1]);
        let a = Attributes::decode(&v, CTX4).unwrap();
        let r = &a.mp_reach[0];
        assert_eq!((r.afi, r.safi, r.abbreviated), (2, 1, false));
        assert_eq!(r.next_hops, vec!["2001:db8::1".parse::<IpAddr>().unwrap()]);
        assert_eq!(r.nlri[0].prefix.to_string(), "2001:db8::/32");
        assert_eq!(
            a.mp_unreach[0].nlri[0].prefix.to_string(),
            "2001:db8:1::/48"
        );
    }

    #[test]
    fn mp_reach_abbreviated_form() {
        let mut v = vec![16, 0xfe, 0x80];
        v.extend([0; 13]);
        v.push(1);
        let r = MpReach::decode(&v, false).unwrap();
        assert!(r.abbreviated);
        assert_eq!(r.afi, 2);
        assert_eq!(r.next_hops, vec!["fe80::1".parse::<IpAddr>().unwrap()]);
    }

    #[test]
    fn truncated_attribute_is_an_error() {
        assert_eq!(
            Attributes::decode(&[0x40, 3, 4, 1, 2], CTX4),
            Err(Fault::Truncated("attribute"))
        );
        assert_eq!(
            Attributes::decode(&[0x40, 1, 0], CTX4),
            Err(Fault::Truncated("origin"))
        );
    }

    #[test]
    fn update_with_addpath() {
        // Withdrawn: path 7, 10.0.0.0/8; no attributes; NLRI: path 9, 10.1.0.0/16.
        let v = [0, 6, 0, 0, 0, 7, 8, 10, 0, 0, 0, 0, 0, 9, 16, 10, 1];
        let ctx = AttrContext {
            asn4: true,
            addpath: true,
        };
        let u = Update::decode(&v, ctx).unwrap();
        assert_eq!(u.withdrawn[0].path_id, Some(7));
        assert_eq!(u.announced[0].prefix.to_string(), "10.1.0.0/16");
        assert_eq!(u.announced[0].path_id, Some(9));
    }

    #[test]
    fn bgp_message_header_checks() {
        let mut m = vec![0xff; 16];
        m.extend([0, 19, 4]);
        assert_eq!(Message::decode(&m, CTX4), Ok(Message::Keepalive));
        m[3] = 0;
        assert_eq!(Message::decode(&m, CTX4), Err(Fault::BadMarker));
        let mut m = vec![0xff; 16];
        m.extend([0, 18, 4]);
        assert_eq!(
            Message::decode(&m, CTX4),
            Err(Fault::BadLength("bgp message", 18))
        );
    }
}
