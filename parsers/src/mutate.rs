//! Deterministic damage to a tool's output, for the mutation tests of this crate and of
//! the command line: bit flips, bytes deleted or inserted, a line duplicated, a number
//! replaced by `1e400`, `NaN`, `-0` or 400 digits, a cut, NUL bytes, ANSI escapes. Test
//! support only (feature `test-support`), not public API.

use std::path::{Path, PathBuf};

/// The kinds of damage [`mutate`] knows (`0..KINDS`).
pub const KINDS: usize = 11;

/// xorshift64: the mutations are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// The files under `dir`, recursively and sorted, less the corpus' `MANIFEST` and
/// `README.md` files (which are no tool's output).
pub fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if !p.ends_with("MANIFEST") && !p.ends_with("README.md") {
            out.push(p);
        }
    }
}

/// The positions and lengths of the numbers in `b` (digit runs, with a dot).
fn numbers(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            out.push((start, i - start));
        } else {
            i += 1;
        }
    }
    out
}

/// Mutation `kind` of `bytes`, placed by `rng`.
pub fn mutate(bytes: &[u8], kind: usize, rng: &mut Rng) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let at = rng.below(b.len() + 1);
    match kind {
        0 if !b.is_empty() => {
            let i = at.min(b.len() - 1);
            b[i] ^= 1 << rng.below(8);
        }
        1 if !b.is_empty() => {
            let n = 1 + rng.below(8);
            b.drain(at.min(b.len() - 1)..(at + n).min(b.len()));
        }
        2 => b.insert(at, rng.next_u64() as u8),
        3 => {
            // A line duplicated in place.
            let start = b[..at]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
            let end = b[at..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |i| at + i + 1);
            let line = b[start..end].to_vec();
            b.splice(end..end, line);
        }
        4..=7 => {
            let nums = numbers(&b);
            if !nums.is_empty() {
                let (s, n) = nums[rng.below(nums.len())];
                let with: Vec<u8> = match kind {
                    4 => b"1e400".to_vec(),
                    5 => b"NaN".to_vec(),
                    6 => b"-0".to_vec(),
                    _ => std::iter::repeat_n(b'9', 400).collect(),
                };
                b.splice(s..s + n, with);
            }
        }
        8 => b.truncate(at),
        9 => {
            let n = [1, 100, 70_000][rng.below(3)];
            b.splice(at..at, std::iter::repeat_n(0u8, n));
        }
        10 => {
            let esc: &[u8] = [&b"\x1b[31m"[..], b"\x1b]0;title\x07", b"\x1b[2J\x9b"][rng.below(3)];
            b.splice(at..at, esc.iter().copied());
        }
        _ => {}
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_is_what_it_says() {
        let mut rng = Rng(1);
        let b = b"a 12.5 x\nline two\n";
        assert_eq!(mutate(b, 4, &mut rng), b"a 1e400 x\nline two\n");
        assert_eq!(mutate(b, 5, &mut rng), b"a NaN x\nline two\n");
        assert!(mutate(b, 8, &mut rng).len() <= b.len());
        let dup = mutate(b, 3, &mut rng);
        assert_eq!(dup.iter().filter(|&&c| c == b'\n').count(), 3);
    }
}
