//! The fixed look of every chart: size, fonts, the colour palette (Okabe–Ito, safe for
//! colour-blind readers) paired with dash patterns and markers so that lines stay
//! distinct in greyscale, and the verdict colours. Constants only.

use plotters::style::RGBColor;

/// Chart size in pixels.
pub const WIDTH: u32 = 900;
pub const HEIGHT: u32 = 420;
/// Font family for every label (the SVG names it; the browser picks the face).
pub const FONT: &str = "sans-serif";
/// Chart titles longer than this are shortened in the middle (the page heading has them whole).
pub const TITLE_CHARS: usize = 72;

/// Okabe–Ito colours, without yellow (unreadable on white), ordered so neighbours
/// differ in lightness as well as hue.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(0, 0, 0),       // black
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
];

/// Grey for reference lines and neutral verdicts.
pub const GREY: RGBColor = RGBColor(120, 120, 120);
/// SLO lines.
pub const SLO: RGBColor = RGBColor(200, 0, 0);

/// How a line is drawn, besides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    Solid,
    /// Dash length and gap, pixels.
    Dashed(u32, u32),
}

/// The marker drawn on a line's points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    None,
    Circle,
    Triangle,
    Cross,
    Square,
}

/// The look of the `i`-th line of a chart: colour, dash and marker cycle at different
/// periods so any two of the first 20 lines differ in at least two of them.
pub fn line_look(i: usize) -> (RGBColor, Dash, Marker) {
    const DASHES: [Dash; 3] = [Dash::Solid, Dash::Dashed(8, 4), Dash::Dashed(2, 3)];
    const MARKERS: [Marker; 4] = [
        Marker::Circle,
        Marker::Triangle,
        Marker::Square,
        Marker::Cross,
    ];
    (
        PALETTE[i % PALETTE.len()],
        DASHES[i % DASHES.len()],
        MARKERS[i % MARKERS.len()],
    )
}

/// Colour and marker of a before/after verdict (`better`, `worse`, `inconclusive`;
/// others neutral).
pub fn verdict_look(verdict: &str) -> (RGBColor, Marker) {
    match verdict {
        "better" => (PALETTE[0], Marker::Triangle),
        "worse" => (PALETTE[1], Marker::Square),
        "inconclusive" => (PALETTE[5], Marker::Cross),
        _ => (GREY, Marker::Circle),
    }
}
