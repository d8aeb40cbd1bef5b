//! The façade's one key format: 16 bytes, written as 32 hex digits.

use core::fmt;

/// A façade key: 128 bits, the same for both modes and every surface (the
/// library, the CLI's `--key-file`, the PostgreSQL functions' `bytea`, and
/// Python's `bytes` or hex `str`). Its `Debug` does not show it.
///
/// ```
/// use uuidkit::facade::FacadeKey;
/// let k = FacadeKey::parse_hex("000102030405060708090a0b0c0d0e0f\n")?;
/// assert_eq!(k, FacadeKey::from_bytes(core::array::from_fn(|i| i as u8)));
/// assert_eq!(format!("{k:?}"), "FacadeKey(..)");
/// # Ok::<(), uuidkit::facade::KeyError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct FacadeKey([u8; 16]);

impl fmt::Debug for FacadeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FacadeKey(..)")
    }
}

/// The full mode's AES-128 key, derived from the façade key with SipHash-2-4
/// on two labels. No uuidv47 message is 33 bytes long, so the derivation
/// never evaluates SipHash on an input the uuidv47 mode does.
const AES_KEY_LABELS: [&[u8; 33]; 2] = [
    b"uuidkit facade full AES-128 key 0",
    b"uuidkit facade full AES-128 key 1",
];

impl FacadeKey {
    /// A key from its 16 bytes (uuidv47's `k0` is the first 8 read
    /// little-endian, `k1` the last 8).
    ///
    /// ```
    /// let k = uuidkit::facade::FacadeKey::from_bytes([0xAB; 16]);
    /// assert_eq!(k.as_bytes(), &[0xAB; 16]);
    /// ```
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 16]) -> FacadeKey {
        FacadeKey(bytes)
    }

    /// The key's 16 bytes.
    ///
    /// ```
    /// let k = uuidkit::facade::FacadeKey::from_bytes([1; 16]);
    /// assert_eq!(k.as_bytes()[15], 1);
    /// ```
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// Reads a key written as 32 hex digits, either case, with any ASCII
    /// whitespace around it (a key file's final newline).
    ///
    /// # Errors
    ///
    /// [`KeyError`] naming the first character that is not a hex digit, or
    /// the number of digits when it is not 32.
    ///
    /// ```
    /// use uuidkit::facade::FacadeKey;
    /// let e = FacadeKey::parse_hex("0011").unwrap_err();
    /// assert_eq!(e.to_string(), "a façade key has 32 hex digits (16 bytes), got 4");
    /// let e = FacadeKey::parse_hex("00112233445566778899aabbccddeefg").unwrap_err();
    /// assert_eq!(e.to_string(), "invalid character 'g' at position 31 of the façade key: expected a hex digit");
    /// ```
    pub fn parse_hex(text: &str) -> Result<FacadeKey, KeyError> {
        let lead = text.len() - text.trim_ascii_start().len();
        let t = text.trim_ascii();
        if let Some((i, c)) = t.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
            return Err(KeyError::Char {
                ch: c,
                position: lead + i,
            });
        }
        if t.len() != 32 {
            return Err(KeyError::Length { digits: t.len() });
        }
        let mut out = [0u8; 16];
        for (i, pair) in t.as_bytes().chunks_exact(2).enumerate() {
            out[i] = (hex_value(pair[0]) << 4) | hex_value(pair[1]);
        }
        Ok(FacadeKey(out))
    }

    /// The key as 32 lowercase hex digits, as [`FacadeKey::parse_hex`] reads
    /// it.
    ///
    /// ```
    /// let k = uuidkit::facade::FacadeKey::from_bytes([0xA5; 16]);
    /// assert_eq!(k.to_hex().to_string(), "a5".repeat(16));
    /// ```
    #[must_use]
    pub fn to_hex(&self) -> KeyHex {
        let mut out = [0u8; 32];
        for (i, b) in self.0.iter().enumerate() {
            out[2 * i] = b"0123456789abcdef"[usize::from(b >> 4)];
            out[2 * i + 1] = b"0123456789abcdef"[usize::from(b & 15)];
        }
        KeyHex(out)
    }

    /// Reads a key file: 32 hex digits, with any whitespace around them.
    ///
    /// # Errors
    ///
    /// [`KeyError::Io`] if the file cannot be read (with the OS error's
    /// kind), else as [`FacadeKey::parse_hex`].
    ///
    /// ```
    /// let e = uuidkit::facade::FacadeKey::from_file("/nonexistent/key").unwrap_err();
    /// assert_eq!(e.to_string(), "cannot read the façade key file: entity not found");
    /// ```
    #[cfg(feature = "std")]
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<FacadeKey, KeyError> {
        let text = std::fs::read(path).map_err(|e| KeyError::Io(e.kind()))?;
        match core::str::from_utf8(&text) {
            Ok(t) => FacadeKey::parse_hex(t),
            Err(e) => Err(KeyError::NotText {
                position: e.valid_up_to(),
            }),
        }
    }

    /// The full mode's AES-128 key (see [`AES_KEY_LABELS`]).
    pub(super) fn full_mode_aes_key(&self) -> [u8; 16] {
        let sip = siphasher::sip::SipHasher24::new_with_key(&self.0);
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&sip.hash(AES_KEY_LABELS[0]).to_le_bytes());
        out[8..].copy_from_slice(&sip.hash(AES_KEY_LABELS[1]).to_le_bytes());
        out
    }
}

const fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
}

/// A key's 32 hex digits, from [`FacadeKey::to_hex`].
///
/// ```
/// let k = uuidkit::facade::FacadeKey::from_bytes([0; 16]);
/// assert_eq!(k.to_hex().as_str(), "0".repeat(32));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct KeyHex([u8; 32]);

impl KeyHex {
    /// The digits.
    ///
    /// ```
    /// let k = uuidkit::facade::FacadeKey::from_bytes([0xFF; 16]);
    /// assert_eq!(k.to_hex().as_str().len(), 32);
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl fmt::Display for KeyHex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for KeyHex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyHex(..)")
    }
}

/// Why a façade key was refused.
///
/// ```
/// use uuidkit::facade::{FacadeKey, KeyError};
/// assert_eq!(FacadeKey::parse_hex(""), Err(KeyError::Length { digits: 0 }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// Not 32 hex digits.
    Length {
        /// How many there were (after trimming whitespace).
        digits: usize,
    },
    /// A character that is not a hex digit.
    Char {
        /// The character.
        ch: char,
        /// Its byte offset in the text.
        position: usize,
    },
    /// A key file that is not UTF-8 text (a raw 16-byte file, say).
    NotText {
        /// The offset of the first byte that is not.
        position: usize,
    },
    /// A key file that cannot be read.
    #[cfg(feature = "std")]
    Io(std::io::ErrorKind),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Length { digits } => {
                write!(f, "a façade key has 32 hex digits (16 bytes), got {digits}")
            }
            KeyError::Char { ch, position } => write!(
                f,
                "invalid character {ch:?} at position {position} of the façade key: expected a hex digit"
            ),
            KeyError::NotText { position } => write!(
                f,
                "the façade key file is not text (byte {position}): expected 32 hex digits"
            ),
            #[cfg(feature = "std")]
            KeyError::Io(kind) => write!(f, "cannot read the façade key file: {kind}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for KeyError {}
