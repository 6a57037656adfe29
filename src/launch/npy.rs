//! `.npy` files (format versions 1 to 3): little-endian numeric dtypes, bool, and
//! structured dtypes (kept as raw bytes with their item size), C or Fortran order.

use std::path::Path;

use crate::analysis::types::Scalar;

/// An array read from or written to an `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray {
    /// The dtype as NumPy writes it (`<f4`, `|b1`, or a structured list).
    pub descr: String,
    pub itemsize: usize,
    pub shape: Vec<usize>,
    pub fortran_order: bool,
    pub data: Vec<u8>,
}

/// The NumPy dtype string of a scalar type.
pub fn descr_of(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "|b1",
        Scalar::I8 => "|i1",
        Scalar::U8 => "|u1",
        Scalar::I16 => "<i2",
        Scalar::U16 => "<u2",
        Scalar::I32 => "<i4",
        Scalar::U32 => "<u4",
        Scalar::I64 => "<i8",
        Scalar::U64 => "<u8",
        Scalar::F16 => "<f2",
        Scalar::BF16 => "<V2",
        Scalar::F32 => "<f4",
        Scalar::F64 => "<f8",
        Scalar::C64 => "<c8",
        Scalar::C128 => "<c16",
    }
}

/// The scalar type of a simple dtype string (`<f4`, `|u1`, `=i8`).
pub fn scalar_of_descr(descr: &str) -> Option<Scalar> {
    let code = descr.trim_start_matches(['<', '|', '=']);
    Some(match code {
        "b1" | "?" => Scalar::Bool,
        "i1" => Scalar::I8,
        "u1" => Scalar::U8,
        "i2" => Scalar::I16,
        "u2" => Scalar::U16,
        "i4" => Scalar::I32,
        "u4" => Scalar::U32,
        "i8" => Scalar::I64,
        "u8" => Scalar::U64,
        "f2" => Scalar::F16,
        "f4" => Scalar::F32,
        "f8" => Scalar::F64,
        "c8" => Scalar::C64,
        "c16" => Scalar::C128,
        _ => return None,
    })
}

/// Bytes per item of a structured dtype such as `[('s0', '<u8'), ('s1', '<u8')]`. NumPy
/// writes an aligned dtype's padding as unnamed void fields (`('', '|V7')`), so the fields
/// and the padding together make the item; an array field has its shape after its type
/// (`('pos', '<f4', (3,))`), a nested record its own list (`('inner', [('x', '<f4')])`).
fn structured_itemsize(descr: &str) -> Option<usize> {
    let mut rest = descr;
    let size = fields_size(&mut rest)?;
    (rest.trim().is_empty() && size > 0).then_some(size)
}

/// The bytes the fields of the list `[(...), ...]` at the start of `text` take; consumes it.
fn fields_size(text: &mut &str) -> Option<usize> {
    expect(text, '[')?;
    let mut size = 0usize;
    while expect(text, ']').is_none() {
        expect(text, '(')?;
        quoted(text)?;
        expect(text, ',')?;
        let item = if text.trim_start().starts_with('[') {
            fields_size(text)?
        } else {
            let ty = quoted(text)?;
            match ty.strip_prefix(['|', '<', '>', '=']).and_then(|p| p.strip_prefix('V')) {
                Some(n) => n.parse::<usize>().ok()?,
                None => scalar_of_descr(ty)?.itemsize() as usize,
            }
        };
        let mut count = 1usize;
        if expect(text, ',').is_some() {
            expect(text, '(')?;
            while expect(text, ')').is_none() {
                let t = text.trim_start();
                let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
                count = count.checked_mul(t[..digits].parse().ok()?)?;
                *text = &t[digits..];
                let _ = expect(text, ',');
            }
        }
        expect(text, ')')?;
        size = size.checked_add(item.checked_mul(count)?)?;
        let _ = expect(text, ',');
    }
    Some(size)
}

/// Consumes `c`, after any spaces, from the start of `text`.
fn expect(text: &mut &str, c: char) -> Option<()> {
    *text = text.trim_start().strip_prefix(c)?;
    Some(())
}

/// Consumes a quoted string from the start of `text`: its contents.
fn quoted<'t>(text: &mut &'t str) -> Option<&'t str> {
    let t = text.trim_start();
    let quote = t.chars().next().filter(|&q| q == '\'' || q == '"')?;
    let end = t[1..].find(quote)? + 1;
    *text = &t[end + 1..];
    Some(&t[1..end])
}

impl NpyArray {
    pub fn new(scalar: Scalar, shape: Vec<usize>, data: Vec<u8>) -> Self {
        Self { descr: descr_of(scalar).to_string(), itemsize: scalar.itemsize() as usize, shape, fortran_order: false, data }
    }

    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn scalar(&self) -> Option<Scalar> {
        scalar_of_descr(&self.descr)
    }

    pub fn read(path: &Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
            return Err("not an .npy file (bad magic)".into());
        }
        let (header_len, start) = match bytes[6] {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
            2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
            v => return Err(format!("unsupported .npy version {v}")),
        };
        let header = bytes
            .get(start..start + header_len)
            .and_then(|h| std::str::from_utf8(h).ok())
            .ok_or("truncated .npy header")?;
        let field = |key: &str| -> Option<&str> {
            let at = header.find(&format!("'{key}'"))? + key.len() + 2;
            Some(header[at..].trim_start().trim_start_matches(':').trim_start())
        };
        let descr_text = field("descr").ok_or("no descr in the .npy header")?;
        let descr = if let Some(rest) = descr_text.strip_prefix('\'') {
            rest.split('\'').next().unwrap_or("").to_string()
        } else {
            // The list ends where its fields, nested lists included, do.
            let mut rest = descr_text;
            fields_size(&mut rest).ok_or("malformed structured descr")?;
            descr_text[..descr_text.len() - rest.len()].to_string()
        };
        let itemsize = match scalar_of_descr(&descr) {
            Some(s) if descr.starts_with('>') => return Err(format!("big-endian dtype {descr} is not supported ({s})")),
            Some(s) => s.itemsize() as usize,
            None => structured_itemsize(&descr).ok_or_else(|| format!("unsupported dtype {descr}"))?,
        };
        let fortran_order = field("fortran_order").is_some_and(|v| v.starts_with("True"));
        let shape_text = field("shape").ok_or("no shape in the .npy header")?;
        let shape_text = shape_text.trim_start_matches('(');
        let shape_text = &shape_text[..shape_text.find(')').ok_or("malformed shape")?];
        let shape: Vec<usize> = shape_text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.trim_end_matches('L').parse::<usize>().map_err(|_| format!("malformed shape `{s}`")))
            .collect::<Result<_, _>>()?;
        let data = bytes[start + header_len..].to_vec();
        let expected = shape
            .iter()
            .try_fold(itemsize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| format!("shape {shape:?} is too large"))?;
        if data.len() < expected {
            return Err(format!("truncated data: {} bytes, expected {expected}", data.len()));
        }
        Ok(Self { descr, itemsize, shape, fortran_order, data: data[..expected].to_vec() })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let descr = if self.descr.starts_with('[') { self.descr.clone() } else { format!("'{}'", self.descr) };
        let shape = match self.shape.as_slice() {
            [n] => format!("({n},)"),
            dims => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
        };
        let mut header = format!(
            "{{'descr': {descr}, 'fortran_order': {}, 'shape': {shape}, }}",
            if self.fortran_order { "True" } else { "False" }
        );
        // Pad so the data starts on a 64-byte boundary, ending the header with a newline.
        let total = 10 + header.len() + 1;
        header.push_str(&" ".repeat((64 - total % 64) % 64));
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    pub fn write(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, self.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_simple_and_structured_dtypes() {
        let a = NpyArray::new(Scalar::F32, vec![2, 3], (0..24).collect());
        let b = NpyArray::parse(&a.to_bytes()).unwrap();
        assert_eq!(a, b);
        assert_eq!(b.to_bytes().len() % 64, 24);
        let rec = NpyArray {
            descr: "[('s0', '<u8'), ('s1', '<u8')]".into(),
            itemsize: 16,
            shape: vec![2],
            fortran_order: false,
            data: vec![7; 32],
        };
        assert_eq!(NpyArray::parse(&rec.to_bytes()).unwrap(), rec);
        // An aligned dtype (`np.dtype([...], align=True)`), as NumPy writes it: its padding
        // is unnamed void fields.
        let aligned = NpyArray {
            descr: "[('a', '|i1'), ('', '|V7'), ('b', '<f8'), ('c', '<i2'), ('', '|V6')]".into(),
            itemsize: 24,
            shape: vec![2],
            fortran_order: false,
            data: vec![3; 48],
        };
        assert_eq!(NpyArray::parse(&aligned.to_bytes()).unwrap(), aligned);
        // Array fields, as NumPy writes them: 12 + 4 + 12 bytes.
        let nested = NpyArray {
            descr: "[('pos', '<f4', (3,)), ('id', '<i4'), ('m', '<i2', (2, 3))]".into(),
            itemsize: 28,
            shape: vec![2],
            fortran_order: false,
            data: vec![1; 56],
        };
        assert_eq!(NpyArray::parse(&nested.to_bytes()).unwrap(), nested);
        assert_eq!(structured_itemsize("[('a', '|i1'), ('', '|V7'), ('pos', '<f8', (2,))]"), Some(24));
        // A record nested in a record, as NumPy writes it.
        assert_eq!(structured_itemsize("[('inner', [('x', '<f4'), ('y', '<i4')]), ('w', '<f8'), ('v', '<f4', (2,))]"), Some(24));
        assert_eq!(structured_itemsize("[('inner', [('x', '<f4')], (2,))]"), Some(8));
        assert_eq!(structured_itemsize("[('inner', [('x', '<f4')]"), None);
        assert!(NpyArray::parse(b"nope").is_err());
    }
}
