//! The record reader: decompression by magic bytes, framing, dispatch by type.

use std::io::{self, BufRead, BufReader, Read};

use crate::error::{Error, Fault};
use crate::record::{self, Body, Peer, Record};

/// Compression of an input, as recognised from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain MRT.
    None,
    /// gzip (`1f 8b`), possibly several members.
    Gzip,
    /// bzip2 (`BZh`), possibly several streams.
    Bzip2,
}

/// Reads MRT records from a byte stream, plain, gzip or bzip2.
///
/// An iterator of `Result<Record, Error>`. After an error for which
/// [`Error::is_fatal`] holds, it yields nothing more; after any other error the next
/// call goes on with the following record. TABLE_DUMP_V2 RIB entries come with their
/// peer resolved from the latest PEER_INDEX_TABLE.
pub struct Reader<'a> {
    input: Box<dyn BufRead + 'a>,
    offset: u64,
    peers: Option<Vec<Peer>>,
    compression: Compression,
    done: bool,
}

impl std::fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("offset", &self.offset)
            .field("compression", &self.compression)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

fn fill(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(buf.get_mut(got..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// `input` decompressed if its first bytes are a gzip or bzip2 magic number, else as
/// it is; with the compression recognised. Fails only if reading those bytes fails.
pub fn decompress<'a>(
    mut input: impl Read + 'a,
) -> io::Result<(Compression, Box<dyn BufRead + 'a>)> {
    let mut head = [0u8; 3];
    let got = fill(&mut input, &mut head)?;
    let head = head.get(..got).unwrap_or_default().to_vec();
    let compression = if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(b"BZh") {
        Compression::Bzip2
    } else {
        Compression::None
    };
    let whole = io::Cursor::new(head).chain(input);
    let cap = 1 << 16;
    let out: Box<dyn BufRead + 'a> = match compression {
        Compression::Gzip => Box::new(BufReader::with_capacity(
            cap,
            flate2::read::MultiGzDecoder::new(whole),
        )),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            cap,
            bzip2::read::MultiBzDecoder::new(whole),
        )),
        Compression::None => Box::new(BufReader::with_capacity(cap, whole)),
    };
    Ok((compression, out))
}

impl<'a> Reader<'a> {
    /// A reader over `input`, decompressed as [`decompress`] does. Fails only if reading
    /// the first bytes fails.
    pub fn new(input: impl Read + 'a) -> io::Result<Reader<'a>> {
        let (compression, input) = decompress(input)?;
        Ok(Reader {
            input,
            offset: 0,
            peers: None,
            compression,
            done: false,
        })
    }

    /// The compression recognised.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Offset of the next record in the decompressed stream.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn next_record(&mut self) -> Option<Result<Record, Error>> {
        let offset = self.offset;
        let io_err = |source| Error::Io { offset, source };
        let mut header = [0u8; 12];
        let got = match fill(&mut self.input, &mut header) {
            Ok(n) => n,
            Err(e) => return Some(Err(io_err(e))),
        };
        if got == 0 {
            return None;
        }
        if got < header.len() {
            return Some(Err(Error::TruncatedHeader { offset, got }));
        }
        let [t0, t1, t2, t3, y0, y1, s0, s1, l0, l1, l2, l3] = header;
        let timestamp = u32::from_be_bytes([t0, t1, t2, t3]);
        let mrt_type = u16::from_be_bytes([y0, y1]);
        let subtype = u16::from_be_bytes([s0, s1]);
        let declared = u32::from_be_bytes([l0, l1, l2, l3]);
        // Read through `take` so that a corrupt huge length costs no huge allocation.
        let mut body = Vec::new();
        if let Err(e) = (&mut self.input)
            .take(u64::from(declared))
            .read_to_end(&mut body)
        {
            return Some(Err(io_err(e)));
        }
        if body.len() as u64 != u64::from(declared) {
            return Some(Err(Error::TruncatedRecord {
                offset,
                declared,
                got: body.len(),
            }));
        }
        self.offset = offset + 12 + u64::from(declared);
        let malformed = |fault| Error::Malformed {
            offset,
            mrt_type,
            subtype,
            fault,
        };
        let mut data = body.as_slice();
        let mut microseconds = None;
        if mrt_type == record::TYPE_BGP4MP_ET {
            let Some((us, rest)) = data.split_first_chunk::<4>() else {
                return Some(Err(malformed(Fault::Truncated("microsecond timestamp"))));
            };
            microseconds = Some(u32::from_be_bytes(*us));
            data = rest;
        }
        let parsed = match mrt_type {
            record::TYPE_BGP => record::legacy_bgp(subtype, data),
            record::TYPE_TABLE_DUMP => record::table_dump(subtype, data),
            record::TYPE_TABLE_DUMP_V2 if subtype == 1 => record::peer_index_table(data).map(|t| {
                self.peers = Some(t.peers.clone());
                Body::PeerIndexTable(t)
            }),
            record::TYPE_TABLE_DUMP_V2 => record::rib(subtype, data, self.peers.as_deref()),
            record::TYPE_BGP4MP | record::TYPE_BGP4MP_ET => record::bgp4mp(subtype, data),
            _ => Ok(Body::Unsupported),
        };
        Some(match parsed {
            Ok(body) => Ok(Record {
                offset,
                timestamp,
                microseconds,
                mrt_type,
                subtype,
                body,
            }),
            Err(fault) => Err(malformed(fault)),
        })
    }
}

impl Iterator for Reader<'_> {
    type Item = Result<Record, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_record();
        match &r {
            None => self.done = true,
            Some(Err(e)) if e.is_fatal() => self.done = true,
            _ => {}
        }
        r
    }
}
