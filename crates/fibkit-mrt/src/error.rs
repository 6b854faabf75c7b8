//! Errors: what went wrong, and at which record.
//!
//! Every error names the byte offset (in the decompressed stream) of the MRT record it
//! belongs to. [`Error::Malformed`] leaves the record framing intact, so a reader can
//! skip the record and go on; the other variants end the stream.

use std::fmt;

/// A defect inside one record's body: the bytes were all there, but do not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// A field runs past the end of its record, message or attribute.
    Truncated(&'static str),
    /// A length field holds a value the format does not allow.
    BadLength(&'static str, usize),
    /// A prefix length exceeds the address size (32 or 128 bits).
    BadPrefixLength(u8),
    /// An address family other than IPv4 (1) and IPv6 (2) where one of them is needed.
    BadAfi(u16),
    /// An AS_PATH segment type other than AS_SET, AS_SEQUENCE, AS_CONFED_SEQUENCE and
    /// AS_CONFED_SET.
    BadSegmentType(u8),
    /// A BGP message whose 16-byte marker is not all ones.
    BadMarker,
    /// A TABLE_DUMP_V2 RIB record before any PEER_INDEX_TABLE.
    NoPeerIndexTable,
    /// A RIB entry names a peer index beyond the PEER_INDEX_TABLE.
    UnknownPeer(u16),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Truncated(what) => write!(f, "{what} truncated"),
            Fault::BadLength(what, n) => write!(f, "bad {what} length {n}"),
            Fault::BadPrefixLength(n) => write!(f, "bad prefix length {n}"),
            Fault::BadAfi(afi) => write!(f, "unknown address family {afi}"),
            Fault::BadSegmentType(t) => write!(f, "bad as path segment type {t}"),
            Fault::BadMarker => f.write_str("bad bgp marker"),
            Fault::NoPeerIndexTable => f.write_str("rib record before any peer index table"),
            Fault::UnknownPeer(i) => write!(f, "peer index {i} not in the peer index table"),
        }
    }
}

impl std::error::Error for Fault {}

/// An error reading an MRT stream; each variant carries the byte offset of its record.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading or decompressing the input failed.
    Io {
        /// Offset of the record being read.
        offset: u64,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The input ends inside a 12-byte record header.
    TruncatedHeader {
        /// Offset of the header.
        offset: u64,
        /// Bytes of it present.
        got: usize,
    },
    /// The input ends inside a record body.
    TruncatedRecord {
        /// Offset of the record.
        offset: u64,
        /// Body length the header declares.
        declared: u32,
        /// Body bytes present.
        got: usize,
    },
    /// The record is complete but its body does not decode.
    Malformed {
        /// Offset of the record.
        offset: u64,
        /// MRT type of the record.
        mrt_type: u16,
        /// MRT subtype of the record.
        subtype: u16,
        /// What is wrong.
        fault: Fault,
    },
}

impl Error {
    /// Byte offset of the record, in the decompressed stream.
    pub fn offset(&self) -> u64 {
        match self {
            Error::Io { offset, .. }
            | Error::TruncatedHeader { offset, .. }
            | Error::TruncatedRecord { offset, .. }
            | Error::Malformed { offset, .. } => *offset,
        }
    }

    /// Whether the stream cannot go on after this error (its framing is lost).
    pub fn is_fatal(&self) -> bool {
        !matches!(self, Error::Malformed { .. })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { source, .. } => write!(f, "read error: {source}"),
            Error::TruncatedHeader { got, .. } => {
                write!(f, "truncated record header ({got} of 12 bytes)")
            }
            Error::TruncatedRecord { declared, got, .. } => {
                write!(f, "truncated record ({got} of {declared} bytes)")
            }
            Error::Malformed {
                mrt_type,
                subtype,
                fault,
                ..
            } => write!(f, "type {mrt_type} subtype {subtype}: {fault}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Malformed { fault, .. } => Some(fault),
            _ => None,
        }
    }
}
