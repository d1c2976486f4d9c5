//! The benchmark's input: the file `espalier bench mask --export` writes (also read
//! by `bench/constraint-wasm`): little-endian `u32`s, the vocabulary size and
//! EOS id, then per token its length, a special flag byte and its bytes, then the
//! number of files and per file its token count and ids.

use espalier_constraint::Vocab;

/// The parsed input.
pub struct Input {
    pub tokens: Vec<Vec<u8>>,
    pub special: Vec<u32>,
    pub eos: u32,
    pub files: Vec<Vec<u32>>,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], String> {
        let s = self.b.get(self.at..self.at + n).ok_or_else(|| format!("cut short at byte {} (reading {what})", self.at))?;
        self.at += n;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
}

impl Input {
    /// Parses the input; a clear error when it is cut short or ids are out of range.
    pub fn parse(b: &[u8]) -> Result<Input, String> {
        let mut r = Reader { b, at: 0 };
        let n = r.u32("vocabulary size")? as usize;
        let eos = r.u32("EOS id")?;
        let mut tokens = Vec::with_capacity(n);
        let mut special = Vec::new();
        for id in 0..n {
            let len = r.u32("token length")? as usize;
            let flag = r.take(1, "special flag")?[0];
            tokens.push(r.take(len, "token bytes")?.to_vec());
            if flag != 0 {
                special.push(id as u32);
            }
        }
        let nfiles = r.u32("file count")? as usize;
        let mut files = Vec::with_capacity(nfiles.min(1 << 16));
        for _ in 0..nfiles {
            let k = r.u32("token count")? as usize;
            let ids = (0..k).map(|_| r.u32("token id")).collect::<Result<Vec<u32>, String>>()?;
            if let Some(bad) = ids.iter().find(|&&id| id as usize >= n) {
                return Err(format!("token id {bad} out of the vocabulary ({n})"));
            }
            files.push(ids);
        }
        if eos as usize >= n {
            return Err(format!("EOS id {eos} out of the vocabulary ({n})"));
        }
        Ok(Input { tokens, special, eos, files })
    }

    /// The text around step `pos` of file `f`, for error messages.
    pub fn context(&self, vocab: &Vocab, f: usize, pos: usize) -> String {
        let ids = &self.files[f];
        let before: Vec<u8> = ids[pos.saturating_sub(10)..pos].iter().flat_map(|&i| vocab.bytes(i).to_vec()).collect();
        let tok = ids.get(pos).map(|&i| vocab.bytes(i).to_vec()).unwrap_or_default();
        format!("{:?} | {:?}", String::from_utf8_lossy(&before), String::from_utf8_lossy(&tok))
    }
}
