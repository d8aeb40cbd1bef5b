//! Short text kept inline, with no allocation, so that the errors carrying
//! it ([`NodeLost`](crate::node::NodeLost), [`GenError`](crate::GenError)) stay
//! `Copy` and work without `std`.

/// Up to [`InlineText::CAPACITY`] bytes of UTF-8; longer text is cut at a
/// character boundary and ends in `…`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct InlineText {
    len: u8,
    bytes: [u8; InlineText::CAPACITY],
}

impl InlineText {
    /// The longest text kept, in bytes.
    pub(crate) const CAPACITY: usize = 94;

    /// No text.
    pub(crate) const EMPTY: InlineText = InlineText {
        len: 0,
        bytes: [0; InlineText::CAPACITY],
    };

    /// `text`, cut to fit.
    pub(crate) fn new(text: &str) -> InlineText {
        let mut kept = text;
        let mut ellipsis = "";
        if text.len() > Self::CAPACITY {
            ellipsis = "…";
            let mut end = Self::CAPACITY - ellipsis.len();
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            kept = &text[..end];
        }
        let mut out = Self::EMPTY;
        out.bytes[..kept.len()].copy_from_slice(kept.as_bytes());
        out.bytes[kept.len()..kept.len() + ellipsis.len()].copy_from_slice(ellipsis.as_bytes());
        // Both parts fit CAPACITY, which fits a u8.
        out.len = (kept.len() + ellipsis.len()) as u8;
        out
    }

    /// The length and the bytes, for copying through memory shared between
    /// threads (`NodeSlot`).
    #[cfg(feature = "std")]
    pub(crate) const fn raw(&self) -> (u8, &[u8; InlineText::CAPACITY]) {
        (self.len, &self.bytes)
    }

    /// The inverse of [`raw`](Self::raw). Bytes that are not UTF-8 read back
    /// as no text, never as a panic.
    #[cfg(feature = "std")]
    pub(crate) fn from_raw(len: u8, bytes: [u8; InlineText::CAPACITY]) -> InlineText {
        InlineText {
            len: len.min(InlineText::CAPACITY as u8),
            bytes,
        }
    }

    /// The text, empty if none.
    pub(crate) fn as_str(&self) -> &str {
        // Only `new` writes the bytes: whole characters of a `&str`.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl core::fmt::Debug for InlineText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}
