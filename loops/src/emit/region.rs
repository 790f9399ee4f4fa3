//! Where the emitters write in the user's file: the region's bytes, what
//! replaces them, and the reference program (the file unchanged but for
//! the `#pragma scop` / `#pragma endscop` lines, which become comments).

use std::ops::Range;

use crate::frontend::{Kernel, RegionKind};

/// How a kernel's region sits in its file.
pub(crate) struct Placement {
    /// The bytes a transformed region replaces: the pragma lines and
    /// what is between them, or the nest's `for` statement (from the
    /// start of its line when only blanks precede it).
    pub replaced: Range<usize>,
    /// The region starts in the middle of a line: the replacement starts
    /// on a new one.
    pub newline_before: bool,
    /// The indentation of the region's first line.
    pub indent: String,
    /// The `#pragma scop` and `#pragma endscop` lines (ends of lines
    /// included), for a scop region.
    pub pragmas: Option<(Range<usize>, Range<usize>)>,
}

/// Where the region is.
pub(crate) fn placement(kernel: &Kernel) -> Placement {
    let source = &kernel.source;
    let region = &kernel.region;
    match kernel.region_kind {
        RegionKind::Scop => {
            // The region starts just after the scop line and ends at the
            // start of the endscop line.
            let scop_start = source[..region.start.saturating_sub(1)]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            let endscop_end = source[region.end..]
                .find('\n')
                .map_or(source.len(), |i| region.end + i + 1);
            Placement {
                replaced: scop_start..endscop_end,
                newline_before: false,
                indent: indentation(&source[scop_start..region.start]),
                pragmas: Some((scop_start..region.start, region.end..endscop_end)),
            }
        }
        RegionKind::Nest { .. } => {
            let line_start = source[..region.start].rfind('\n').map_or(0, |i| i + 1);
            let before = &source[line_start..region.start];
            let alone = before.trim().is_empty();
            Placement {
                replaced: if alone { line_start } else { region.start }..region.end,
                newline_before: !alone,
                indent: indentation(before),
                pragmas: None,
            }
        }
    }
}

/// The unmodified program, its two region pragmas (if any) turned into
/// comments: compilers that reject unknown pragmas build it as it is.
pub fn reference_code(kernel: &Kernel) -> String {
    let source = &kernel.source;
    let Some((scop, endscop)) = placement(kernel).pragmas else {
        return source.clone();
    };
    let mut file = String::with_capacity(source.len());
    file.push_str(&source[..scop.start]);
    file.push_str(&commented(&source[scop.clone()]));
    file.push_str(&source[scop.end..endscop.start]);
    file.push_str(&commented(&source[endscop.clone()]));
    file.push_str(&source[endscop.end..]);
    file
}

/// A line as a comment, with its indentation.
pub(crate) fn commented(line: &str) -> String {
    let body = line.trim_end_matches(['\n', '\r']);
    format!("{}/* {} */\n", indentation(body), body.trim())
}

/// The blanks a line starts with.
pub(crate) fn indentation(line: &str) -> String {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}
