//! One captured upstream error, as the classifier reads it.

/// Borrowed view of an error: header names are already lower-cased.
#[derive(Debug, Clone, Copy)]
pub struct ErrorInput<'a> {
    pub provider: Option<&'a str>,
    pub status: u16,
    pub headers: &'a [(String, String)],
    pub body: &'a str,
    pub model: Option<&'a str>,
    pub backoff_level: u32,
    pub now_ms: i64,
}

impl ErrorInput<'_> {
    /// Header lookup by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Lower-cases header names once, so lookups are plain comparisons.
pub fn normalize_headers<'a, I>(pairs: I) -> Vec<(String, String)>
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    pairs
        .into_iter()
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.to_string()))
        .collect()
}
