//! Reading an `ip -batch` file as iproute2 6.1 does (`do_batch`, `getcmdline`,
//! `makeargs` in lib/utils.c).
//!
//! A physical line is cut at its first `#`; a line that then ends in a backslash right
//! before its newline continues on the next one (itself cut at its `#`); a command's
//! line number is that of its last physical line. Words are split at spaces, tabs,
//! carriage returns and newlines; a word that starts with `"` or `'` runs to the next
//! such quote, with no escapes, and the character after the closing quote starts
//! the next word. A quote inside a word is an ordinary character.

/// The batch's longest command: `makeargs` is given room for this many words, the
/// last of them its terminating null.
pub const MAX_ARGS: usize = 512;

/// What reading the next command gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A command (never empty) and the number of its last physical line.
    Command {
        /// Line number, from 1.
        line: usize,
        /// Its words.
        words: Vec<String>,
    },
    /// Reading stops: the message iproute2 prints on stderr, and `Some(status)` when
    /// it exits with that status on the spot (`makeargs` on an unterminated quote or
    /// too many words), `None` when the batch just ends there with the status it has
    /// (a continuation line missing at the end of the file).
    Stop {
        /// The message, with its newline.
        stderr: String,
        /// The exit status, for a stop that exits.
        exits: Option<u8>,
    },
}

/// The commands of a batch file, read one at a time as `do_batch` reads them (blank
/// lines skipped).
pub struct Reader<'a> {
    text: &'a [u8],
    pos: usize,
    lineno: usize,
    done: bool,
}

impl<'a> Reader<'a> {
    /// A reader of `text` (the file's bytes).
    pub fn new(text: &'a [u8]) -> Reader<'a> {
        Reader {
            text,
            pos: 0,
            lineno: 0,
            done: false,
        }
    }

    /// `getline`: the next physical line with its newline (the last one may have
    /// none); `None` at the end.
    fn getline(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let n = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        self.pos += n;
        self.lineno += 1;
        Some(&rest[..n])
    }

    /// `getcmdline`: one command line, continuation lines joined; `Err` for a missing
    /// continuation line.
    fn getcmdline(&mut self) -> Option<Result<Vec<u8>, ()>> {
        let first = self.getline()?;
        let mut line = c_string(first).to_vec();
        cut_comment(&mut line);
        while let Some(at) = line.windows(2).position(|w| w == b"\\\n") {
            let Some(next) = self.getline() else {
                return Some(Err(()));
            };
            line.truncate(at);
            let mut next = c_string(next).to_vec();
            cut_comment(&mut next);
            line.extend_from_slice(&next);
        }
        Some(Ok(line))
    }
}

/// A C string's view of a buffer: what comes before its first null byte.
fn c_string(b: &[u8]) -> &[u8] {
    b.iter().position(|&c| c == 0).map_or(b, |i| &b[..i])
}

fn cut_comment(line: &mut Vec<u8>) {
    if let Some(i) = line.iter().position(|&c| c == b'#') {
        line.truncate(i);
    }
}

/// fib's convenience: a command may start with the word `ip`, which is dropped when
/// words follow it (`ip` alone is what iproute2 makes of it: an unknown object).
pub fn drop_leading_ip(words: &mut Vec<String>) {
    if words.len() > 1 && words[0] == "ip" {
        words.remove(0);
    }
}

/// `makeargs`: the words of one command line, or the message and status of its
/// `exit(1)`.
pub fn makeargs(line: &[u8]) -> Result<Vec<String>, String> {
    let ws = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let mut words = Vec::new();
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && ws(line[i]) {
            i += 1;
        }
        if i == line.len() {
            break;
        }
        if words.len() >= MAX_ARGS - 1 {
            return Err("Too many arguments to command\n".into());
        }
        let c = line[i];
        if c == b'"' || c == b'\'' {
            let start = i + 1;
            let Some(len) = line[start..].iter().position(|&b| b == c) else {
                return Err("Unterminated quoted string\n".into());
            };
            words.push(String::from_utf8_lossy(&line[start..start + len]).into_owned());
            // the closing quote is overwritten by the word's end
            i = start + len + 1;
        } else {
            let start = i;
            while i < line.len() && !ws(line[i]) {
                i += 1;
            }
            words.push(String::from_utf8_lossy(&line[start..i]).into_owned());
            i += 1;
        }
    }
    Ok(words)
}

impl Iterator for Reader<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        while !self.done {
            let line = match self.getcmdline()? {
                Ok(l) => l,
                Err(()) => {
                    self.done = true;
                    return Some(Step::Stop {
                        stderr: "Missing continuation line\n".into(),
                        exits: None,
                    });
                }
            };
            match makeargs(&line) {
                Ok(words) if words.is_empty() => continue,
                Ok(words) => {
                    return Some(Step::Command {
                        line: self.lineno,
                        words,
                    })
                }
                Err(stderr) => {
                    self.done = true;
                    return Some(Step::Stop {
                        stderr,
                        exits: Some(1),
                    });
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmds(text: &str) -> Vec<Step> {
        Reader::new(text.as_bytes()).collect()
    }

    /// The last step of `text`, which stops the batch, and how many steps there were.
    fn last_stop(text: &str) -> (Step, usize) {
        let got = cmds(text);
        let n = got.len();
        (got.into_iter().last().expect("a step"), n)
    }

    fn stop(msg: &str, exits: Option<u8>) -> Step {
        Step::Stop {
            stderr: msg.into(),
            exits,
        }
    }

    fn cmd(line: usize, w: &[&str]) -> Step {
        Step::Command {
            line,
            words: w.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn comments_blank_lines_and_continuations() {
        let got = cmds("# c\n\nroute add 10.0.0.0/8 \\\n  dev d0 # x\nlink show\n");
        assert_eq!(
            got,
            vec![
                cmd(4, &["route", "add", "10.0.0.0/8", "dev", "d0"]),
                cmd(5, &["link", "show"])
            ]
        );
        // a comment before the backslash: no continuation
        let got = cmds("route show # \\\nlink show\n");
        assert_eq!(
            got,
            vec![cmd(1, &["route", "show"]), cmd(2, &["link", "show"])]
        );
        // a backslash before a carriage return, or on the last line without a
        // newline, is a character of the word
        let got = cmds("a b\\\r\nc d\\");
        assert_eq!(got, vec![cmd(1, &["a", "b\\"]), cmd(2, &["c", "d\\"])]);
    }

    #[test]
    fn a_missing_continuation_line_ends_the_batch() {
        assert_eq!(
            last_stop("link show\nroute add \\\n"),
            (stop("Missing continuation line\n", None), 2)
        );
    }

    #[test]
    fn quotes_start_words_only() {
        let got = cmds("link set d0 alias \"a b\"c 'x\"y' a\"b \"\"\n");
        assert_eq!(
            got,
            vec![cmd(
                1,
                &["link", "set", "d0", "alias", "a b", "c", "x\"y", "a\"b", ""]
            )]
        );
        assert_eq!(
            last_stop("link show\nlink set d0 alias \"ab\nlink show\n"),
            (stop("Unterminated quoted string\n", Some(1)), 2)
        );
    }

    #[test]
    fn at_most_511_words() {
        let ok = vec!["x"; MAX_ARGS - 1].join(" ");
        assert!(makeargs(ok.as_bytes()).is_ok_and(|w| w.len() == MAX_ARGS - 1));
        let over = vec!["x"; MAX_ARGS].join(" ");
        assert_eq!(
            makeargs(over.as_bytes()),
            Err("Too many arguments to command\n".into())
        );
    }
}
