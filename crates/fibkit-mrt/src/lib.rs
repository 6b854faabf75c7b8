//! MRT (RFC 6396) reader: BGP RIB dumps and update streams as typed records.
//!
//! MRT is the format route collectors (RIPE RIS, RouteViews) and routing daemons (BIRD,
//! Quagga, OpenBGPD) write their BGP tables and message logs in. This crate reads it
//! so that fibkit can load real Internet tables and replay real update streams.
//!
//! # What it reads
//!
//! [`Reader`] takes any [`std::io::Read`]; gzip (`1f 8b`) and bzip2 (`BZh`) input is
//! recognised by its first bytes and decompressed, anything else is read as plain MRT.
//! It decodes:
//!
//! - **TABLE_DUMP** (type 12), IPv4 and IPv6: one RIB entry per record;
//! - **TABLE_DUMP_V2** (type 13): PEER_INDEX_TABLE, RIB_IPV4/IPV6_UNICAST/MULTICAST,
//!   RIB_GENERIC (IPv4/IPv6 unicast/multicast) and the RFC 8050 ADD-PATH variants,
//!   each entry with its peer resolved from the peer index table;
//! - **BGP4MP** and **BGP4MP_ET** (types 16, 17): MESSAGE, MESSAGE_AS4, MESSAGE_LOCAL,
//!   MESSAGE_AS4_LOCAL, their ADD-PATH variants, STATE_CHANGE and STATE_CHANGE_AS4;
//! - the deprecated **BGP** type (5): UPDATE, KEEPALIVE and STATE_CHANGE.
//!
//! Other types and subtypes (BGP4MP_ENTRY, OSPF, ...) come back as
//! [`Body::Unsupported`], to be counted and skipped as bgpdump does.
//!
//! # What it yields
//!
//! A stream of `Result<`[`Record`]`, `[`Error`]`>`. A record has its timestamp, type,
//! subtype, byte offset and a typed [`Body`]; BGP UPDATEs are decoded into withdrawn
//! routes, [`Attributes`] (ORIGIN, AS_PATH with 2- or 4-byte AS numbers and all four
//! segment kinds, NEXT_HOP, MED, LOCAL_PREF, ATOMIC_AGGREGATE, AGGREGATOR, COMMUNITIES,
//! LARGE_COMMUNITY, MP_REACH_NLRI / MP_UNREACH_NLRI, AS4_PATH / AS4_AGGREGATOR merged
//! into the path as bgpdump does) and NLRI. Prefixes are [`Prefix`] values, canonical
//! (bits past the length cleared, as bgpdump masks them).
//!
//! Decoding never panics on input: every read is bounds-checked, and a record that does
//! not decode gives an [`Error`] naming its byte offset and the [`Fault`]. A malformed
//! record can be skipped ([`Error::is_fatal`] is false); a truncated stream ends the
//! iteration.
//!
//! # Output formats
//!
//! [`bgpdump::write_lines`] prints a record exactly as `bgpdump -m` does (the
//! pipe-separated `TABLE_DUMP2|…|B|…`, `BGP4MP|…|A|…` lines); the crate's tests compare
//! it line by line with bgpdump's own regression outputs.
//!
//! ```no_run
//! let file = std::fs::File::open("updates.20160811.1600.gz")?;
//! let mut text = String::new();
//! for record in fibkit_mrt::Reader::new(file)? {
//!     fibkit_mrt::bgpdump::write_lines(&record?, &mut text);
//! }
//! print!("{text}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod bgp;
pub mod bgpdump;
mod error;
mod prefix;
mod reader;
pub mod record;

pub use bgp::{Attributes, Message, Nlri, Update};
pub use error::{Error, Fault};
pub use prefix::{DisplayIp, Prefix};
pub use reader::{decompress, Compression, Reader};
pub use record::{Body, Record};
