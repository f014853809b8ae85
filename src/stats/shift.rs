//! The per-cell location test and its family correction, over whole runs.
//!
//! Statistic: Yuen's studentized trimmed-mean difference (Yuen 1974, *Biometrika*
//! 61:165–170; Wilcox 2012, §5.3), candidate minus baseline, on whatever scale the caller
//! passes (the analyses pass log values, so a shift is a ratio). Nothing is dropped
//! before the test: the trimming is part of the statistic and is recomputed on every
//! rearrangement, so exchangeability holds and the test is exact at any level its
//! rearrangement count allows.
//!
//! The trimming adapts to the data without costing validity: it is chosen once per cell
//! from the pooled values of both sides, which every rearrangement leaves unchanged
//! (Hogg, Fisher & Randles 1975, *JASA* 70:656–661), as the fraction in [`TRIMS`] whose
//! estimated variance of the trimmed mean is smallest (Jaeckel 1971, *Ann. Math. Stat.*
//! 42:1540–1552), a larger fraction winning only below [`TRIM_GAIN`] × the smaller's.
//! Measured (single cell, 10 runs a side, α 1%): on normal log noise the mean's power
//! is kept (0.92 against 0.84 for a fixed 20% trim), on a quarter of runs in a slow mode
//! 0.70 (fixed 20%: 0.61; Mann–Whitney: 0.64), and one wild run ×2 in half the pairs
//! costs the mean half its power (0.47) while the adaptive trim keeps 0.86. Sides below
//! [`TRIM_FROM`] (8) replicates are never trimmed: a 20% trim keeps 3 of 5 runs, and the
//! heavy tails of a studentized statistic with 2 degrees of freedom would swamp a family
//! of 24 cells; with 5 runs a wild run costs that cell power (its variance grows), never
//! validity (the permutation null holds whatever the statistic). From 8 a side a 20% trim
//! cuts one run each: JLBH files of 10 runs (9 after the warm-up) with a 5% chance per run
//! of a ×3 stall, +10% at p99, gate `end_to_end@99=+5%`: caught in 69% of 300 pairs
//! (untrimmed below 10: 54%; one-sided Mann–Whitney: 70%), A/A 1.0%.
//!
//! Null distribution: the rearrangements of whole runs between the two sides (Fisher
//! 1935; Pitman 1937). Every rearrangement is enumerated when there are at most
//! [`Plan::max_enumerated`]; beyond that `Plan::resamples` random rearrangements are
//! drawn with a fixed seed and p = (k + 1)/(B + 1) (Phipson & Smyth 2010, *Stat. Appl.
//! Genet. Mol. Biol.* 9(1):39), which stays valid (never below the true p on average).
//!
//! Family: Westfall–Young step-down max-T (Westfall & Young 1993, *Resampling-Based
//! Multiple Testing*, Algorithm 2.8) over the same rearrangements for every cell, so the
//! correlation between cells of one run (the percentiles of one ladder) is kept and a
//! change confined to one cell is not diluted by the cells that did not move: its
//! adjusted p depends on how large the other cells' statistics get by chance, not on
//! how many there are. Studentized statistics make the cells commensurable.

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;

/// Fractions the trimming is chosen from (each end of each side).
pub const TRIMS: [f64; 3] = [0.0, 0.1, 0.2];
/// A larger trim is chosen only when its estimated variance is below this fraction of
/// the smaller one's: the estimate is itself noisy, and trimming normal data loses power.
pub const TRIM_GAIN: f64 = 0.8;
/// Smallest side that is trimmed; smaller sides use every value untrimmed.
pub const TRIM_FROM: usize = 8;

/// Values cut from each end of a side of `n` at fraction `gamma`: none below
/// [`TRIM_FROM`], else the trimmed mean's own count.
pub fn side_trim_count(n: usize, gamma: f64) -> usize {
    if n >= TRIM_FROM {
        super::describe::trim_count(n, gamma)
    } else {
        0
    }
}

/// The trimming fraction for a cell, from its pooled values sorted ascending and the
/// sides' sizes: the fraction of [`TRIMS`] with the smallest estimated variance of the
/// trimmed mean, s²_w / ((h/N)²·N) (Jaeckel 1971), a larger one winning only below
/// [`TRIM_GAIN`] × the best so far. Each fraction is judged with the values the sides
/// would really cut ([`side_trim_count`]); one that cuts no more than a smaller one is
/// not a choice (at 9 a side, 10% cuts nothing, so 20% is weighed against none). Depends
/// on the pooled values and the sizes only, so it is the same for every rearrangement.
fn choose_trim(pooled: &[f64], (nb, nc): (usize, usize)) -> f64 {
    let n = pooled.len();
    let mut best: Option<(f64, f64)> = None;
    let mut last_k = None;
    for gamma in TRIMS {
        let k = side_trim_count(nb, gamma) + side_trim_count(nc, gamma);
        if last_k == Some(k) {
            continue;
        }
        last_k = Some(k);
        let h = n.saturating_sub(2 * k);
        if h < 2 {
            break;
        }
        let (lo, hi) = (pooled[k], pooled[n - 1 - k]);
        let w = || pooled.iter().map(|v| v.clamp(lo, hi));
        let wm = w().sum::<f64>() / n as f64;
        let sw2 = w().map(|v| (v - wm).powi(2)).sum::<f64>() / (n - 1) as f64;
        let hf = h as f64 / n as f64;
        let var = sw2 / (hf * hf * n as f64);
        match best {
            Some((_, b)) if var >= TRIM_GAIN * b => {}
            _ => best = Some((gamma, var)),
        }
    }
    best.map_or(0.0, |(g, _)| g)
}

/// The trimmed-mean difference candidate − baseline with the trimming the test uses
/// (the point estimate of the shift). `None` when a side has fewer than two values.
pub fn trimmed_shift(baseline: &[f64], candidate: &[f64]) -> Option<f64> {
    let sorted = |v: &[f64]| {
        let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        s.sort_by(f64::total_cmp);
        s
    };
    let (b, c) = (sorted(baseline), sorted(candidate));
    let pooled = sorted(&[b.as_slice(), c.as_slice()].concat());
    yuen_sorted(&c, &b, choose_trim(&pooled, (b.len(), c.len()))).map(|(d, _)| d)
}

/// How the rearrangements are chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Largest number of rearrangements C(N, n_baseline) enumerated exactly.
    pub max_enumerated: u64,
    /// Random rearrangements drawn beyond that.
    pub resamples: usize,
    pub seed: u64,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            max_enumerated: 20_000,
            resamples: 4_999,
            seed: 0x5eed,
        }
    }
}

/// How the null distribution was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Every rearrangement of the runs.
    ExactPermutation,
    /// This many random rearrangements, p = (k + 1)/(B + 1).
    SampledPermutation,
}

/// Yuen's statistic on two sorted samples trimmed at `gamma`: (trimmed-mean difference
/// x − y, its standard error²). `None` when a side has fewer than two values.
fn yuen_sorted(x: &[f64], y: &[f64], gamma: f64) -> Option<(f64, f64)> {
    let (mx, dx) = side(x, gamma)?;
    let (my, dy) = side(y, gamma)?;
    Some((mx - my, dx + dy))
}

/// Trimmed mean and d = (n − 1)·s²_w / (h(h − 1)) of one sorted side (Wilcox 2012,
/// eq. 5.8).
fn side(s: &[f64], gamma: f64) -> Option<(f64, f64)> {
    let n = s.len();
    if n < 2 {
        return None;
    }
    let g = side_trim_count(n, gamma);
    let h = n - 2 * g;
    if h < 2 {
        return None;
    }
    let tm = s[g..n - g].iter().sum::<f64>() / h as f64;
    let (lo, hi) = (s[g], s[n - 1 - g]);
    let wm = s.iter().map(|v| v.clamp(lo, hi)).sum::<f64>() / n as f64;
    let sw2 = s
        .iter()
        .map(|v| (v.clamp(lo, hi) - wm).powi(2))
        .sum::<f64>()
        / (n - 1) as f64;
    let hf = h as f64;
    Some((tm, (n as f64 - 1.0) * sw2 / (hf * (hf - 1.0))))
}

/// The studentized statistic from (difference, se²): ±∞ for separated constant sides,
/// 0 for equal ones.
fn studentize(diff: f64, se2: f64, scale: f64) -> f64 {
    // Differences at rounding level of the values are no difference.
    if diff.abs() <= 1e-12 * scale {
        return 0.0;
    }
    if se2 <= 1e-24 * scale * scale {
        return diff.signum() * f64::INFINITY;
    }
    diff / se2.sqrt()
}

/// One cell's values, one per pooled run (`None` where the run lacks the cell), sorted
/// once so every rearrangement splits an already-sorted list.
struct Prepared {
    /// (value, pooled run index), ascending by value.
    sorted: Vec<(f64, usize)>,
    scale: f64,
    /// Trimming fraction, from the pooled values ([`choose_trim`]).
    gamma: f64,
}

impl Prepared {
    /// The cell's values, the first `n_baseline` positions the baseline's.
    fn new(values: &[Option<f64>], n_baseline: usize) -> Prepared {
        let mut sorted: Vec<(f64, usize)> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.filter(|x| x.is_finite()).map(|x| (x, i)))
            .collect();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let scale = sorted
            .iter()
            .map(|v| v.0.abs())
            .fold(0.0, f64::max)
            .max(1.0);
        let pooled: Vec<f64> = sorted.iter().map(|v| v.0).collect();
        let nb = sorted.iter().filter(|v| v.1 < n_baseline).count();
        let gamma = choose_trim(&pooled, (nb, pooled.len() - nb));
        Prepared {
            sorted,
            scale,
            gamma,
        }
    }

    /// The statistic (candidate − baseline) when `is_base[i]` marks the baseline runs;
    /// `None` when a side has fewer than two values.
    fn stat(&self, is_base: &[bool], bx: &mut Vec<f64>, cx: &mut Vec<f64>) -> Option<f64> {
        bx.clear();
        cx.clear();
        for &(v, i) in &self.sorted {
            if is_base[i] {
                bx.push(v);
            } else {
                cx.push(v);
            }
        }
        let (d, se2) = yuen_sorted(cx, bx, self.gamma)?;
        Some(studentize(d, se2, self.scale))
    }
}

/// One cell of a family: its values per pooled run and which sign is "worse".
#[derive(Debug, Clone)]
pub struct FamilyCell {
    /// One value per pooled run: the `n_baseline` baseline runs first, then the
    /// candidate runs.
    pub values: Vec<Option<f64>>,
    /// +1 when a larger candidate is worse (lower is better), −1 otherwise.
    pub worse_sign: f64,
    /// Whether the cell belongs to the family whose adjusted p-values are computed
    /// (the others get raw p-values only).
    pub member: bool,
}

/// The test of one cell within its family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellTest {
    /// Observed studentized statistic, candidate − baseline.
    pub t: f64,
    /// Raw one-sided p for "the candidate is worse".
    pub p_worse: f64,
    /// Raw two-sided p (|t| as extreme).
    pub p_two_sided: f64,
    /// Step-down max-T adjusted one-sided p (worse); `None` outside the family.
    pub p_worse_adjusted: Option<f64>,
    /// Step-down max-T adjusted two-sided p; `None` outside the family.
    pub p_two_sided_adjusted: Option<f64>,
}

/// Outcome of a family test.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyTest {
    pub method: Method,
    /// Rearrangements the p-values are counted over (all of them, or B).
    pub rearrangements: u64,
    /// Smallest p-value any cell can get: 1/C or 1/(B + 1).
    pub p_floor: f64,
    /// One per input cell; `None` when a side of the cell has fewer than two values.
    pub cells: Vec<Option<CellTest>>,
}

/// C(n, k) as a float.
pub fn choose(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Visits every assignment of `n_base` of `n` runs to the baseline (lexicographic order
/// of index sets), or `plan.resamples` random ones after the observed one. The first
/// call always receives the observed assignment. Returns (method, count excluding the
/// observed one when sampled).
fn rearrangements(
    n: usize,
    n_base: usize,
    plan: &Plan,
    mut visit: impl FnMut(&[bool]),
) -> (Method, u64) {
    let mut mask = vec![false; n];
    for m in mask.iter_mut().take(n_base) {
        *m = true;
    }
    visit(&mask);
    let total = choose(n, n_base);
    if total <= plan.max_enumerated as f64 {
        let mut idx: Vec<usize> = (0..n_base).collect();
        loop {
            let mut i = n_base;
            while i > 0 && idx[i - 1] == n - n_base + i - 1 {
                i -= 1;
            }
            if i == 0 {
                break;
            }
            idx[i - 1] += 1;
            for j in i..n_base {
                idx[j] = idx[j - 1] + 1;
            }
            mask.iter_mut().for_each(|m| *m = false);
            for &j in &idx {
                mask[j] = true;
            }
            visit(&mask);
        }
        (Method::ExactPermutation, total.round() as u64)
    } else {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(plan.seed);
        let mut order: Vec<usize> = (0..n).collect();
        for _ in 0..plan.resamples {
            order.shuffle(&mut rng);
            mask.iter_mut().for_each(|m| *m = false);
            for &j in &order[..n_base] {
                mask[j] = true;
            }
            visit(&mask);
        }
        (Method::SampledPermutation, plan.resamples as u64)
    }
}

/// Tests every cell of a family of `n_baseline` baseline runs and the candidate runs
/// after them. `None` when either side has no run.
pub fn family_test(cells: &[FamilyCell], n_baseline: usize, plan: &Plan) -> Option<FamilyTest> {
    let n = cells.first().map_or(0, |c| c.values.len());
    if n_baseline == 0 || n_baseline >= n || cells.iter().any(|c| c.values.len() != n) {
        return None;
    }
    let prepared: Vec<Prepared> = cells
        .iter()
        .map(|c| Prepared::new(&c.values, n_baseline))
        .collect();
    let (mut bx, mut cx) = (Vec::new(), Vec::new());
    let mut observed: Option<Vec<Option<f64>>> = None;
    // Cells in the family (observed statistic defined), by descending signed / absolute
    // observed statistic, for the two step-down passes.
    let mut order_one: Vec<usize> = Vec::new();
    let mut order_two: Vec<usize> = Vec::new();
    let mut ge_one: Vec<u64> = Vec::new();
    let mut ge_two: Vec<u64> = Vec::new();
    let mut raw_one = vec![0u64; cells.len()];
    let mut raw_two = vec![0u64; cells.len()];
    let mut stats: Vec<Option<f64>> = vec![None; cells.len()];
    let tol = |s: f64| s - 1e-9 * s.abs().min(1e300);
    let (method, count) = rearrangements(n, n_baseline, plan, |mask| {
        for (k, p) in prepared.iter().enumerate() {
            stats[k] = p.stat(mask, &mut bx, &mut cx);
        }
        let obs = match &observed {
            Some(o) => o,
            None => {
                observed = Some(stats.clone());
                let o = observed.as_ref().unwrap_or(&stats);
                order_one = (0..cells.len())
                    .filter(|&k| o[k].is_some() && cells[k].member)
                    .collect();
                order_two = order_one.clone();
                let signed = |k: usize| o[k].unwrap_or(0.0) * cells[k].worse_sign;
                let abs = |k: usize| o[k].unwrap_or(0.0).abs();
                order_one.sort_by(|&a, &b| signed(b).total_cmp(&signed(a)));
                order_two.sort_by(|&a, &b| abs(b).total_cmp(&abs(a)));
                ge_one = vec![0; order_one.len()];
                ge_two = vec![0; order_two.len()];
                // The observed assignment is counted only through the sampled formula.
                return;
            }
        };
        // Raw per-cell tails.
        for k in 0..cells.len() {
            if let (Some(s), Some(o)) = (stats[k], obs[k]) {
                let sign = cells[k].worse_sign;
                if s * sign >= tol(o * sign) {
                    raw_one[k] += 1;
                }
                if s.abs() >= tol(o.abs()) {
                    raw_two[k] += 1;
                }
            }
        }
        // Successive maxima from the least extreme cell up (Westfall & Young 1993, Alg. 2.8).
        let mut u = f64::NEG_INFINITY;
        for (r, &k) in order_one.iter().enumerate().rev() {
            if let Some(s) = stats[k] {
                u = u.max(s * cells[k].worse_sign);
            }
            let o = obs[k].unwrap_or(0.0) * cells[k].worse_sign;
            if u >= tol(o) {
                ge_one[r] += 1;
            }
        }
        let mut u = f64::NEG_INFINITY;
        for (r, &k) in order_two.iter().enumerate().rev() {
            if let Some(s) = stats[k] {
                u = u.max(s.abs());
            }
            if u >= tol(obs[k].unwrap_or(0.0).abs()) {
                ge_two[r] += 1;
            }
        }
    });
    let observed = observed?;
    // Exact: the observed assignment is one of the C rearrangements and always counts;
    // sampled: (k + 1)/(B + 1).
    let p = |k: u64| {
        (k + 1) as f64
            / (count as f64
                + if method == Method::ExactPermutation {
                    0.0
                } else {
                    1.0
                })
    };
    let p_floor = p(0);
    let step_down = |order: &[usize], ge: &[u64]| {
        let mut adj = vec![None; cells.len()];
        let mut running: f64 = 0.0;
        for (r, &k) in order.iter().enumerate() {
            running = running.max(p(ge[r]).min(1.0));
            adj[k] = Some(running);
        }
        adj
    };
    let adj_one = step_down(&order_one, &ge_one);
    let adj_two = step_down(&order_two, &ge_two);
    let out = (0..cells.len())
        .map(|k| {
            observed[k].map(|t| CellTest {
                t,
                p_worse: p(raw_one[k]).min(1.0),
                p_two_sided: p(raw_two[k]).min(1.0),
                p_worse_adjusted: adj_one[k],
                p_two_sided_adjusted: adj_two[k],
            })
        })
        .collect();
    Some(FamilyTest {
        method,
        rearrangements: count,
        p_floor,
        cells: out,
    })
}

/// One interval's rearrangements, stored once for every δ tried: per rearrangement, the
/// pooled indices of its smaller side (the candidate's when the sides are equal), so a
/// statistic costs that side's size plus a few prefix-sum lookups for the other side.
struct Splits {
    /// Pooled indices (baseline first, then candidate) of each rearrangement's smaller
    /// side, `width` of them per rearrangement, the observed rearrangement first.
    small: Vec<u32>,
    /// Size of the smaller side (every rearrangement keeps the sides' sizes).
    width: usize,
    /// Whether the smaller side is the baseline.
    small_is_base: bool,
}

impl Splits {
    /// No rearrangement yet, for `n` pooled values of which `n_base` are the baseline's.
    fn empty(n: usize, n_base: usize) -> Splits {
        let small_is_base = n_base < n - n_base;
        Splits {
            small: Vec::new(),
            width: n_base.min(n - n_base),
            small_is_base,
        }
    }

    /// From whole masks (true: baseline).
    #[cfg(test)]
    fn new(masks: Vec<Vec<bool>>, n_base: usize) -> Splits {
        let n = masks.first().map_or(0, Vec::len);
        let mut splits = Splits::empty(n, n_base);
        for m in &masks {
            splits.push(m);
        }
        splits
    }

    /// Adds a rearrangement given as a mask over the pooled values (true: baseline).
    fn push(&mut self, mask: &[bool]) {
        self.small
            .extend((0..mask.len() as u32).filter(|&i| mask[i as usize] == self.small_is_base));
    }

    /// Number of rearrangements, the observed one included.
    fn len(&self) -> usize {
        self.small.len().checked_div(self.width).unwrap_or(0)
    }

    /// The smaller side of rearrangement `k`.
    fn side(&self, k: usize) -> &[u32] {
        &self.small[k * self.width..(k + 1) * self.width]
    }
}

/// One δ's pooled values (every value present), sorted, with prefix sums of the values and
/// their squares taken about the pooled median so the sums of squares do not cancel.
/// Refilled in place for each δ ([`Shifted::shift`]).
#[derive(Default)]
struct Shifted {
    /// Centred values, ascending.
    sorted: Vec<f64>,
    /// `rank[i]`: the position of pooled value `i` in `sorted`.
    rank: Vec<u32>,
    /// (value, pooled index) ascending by value: scratch of [`Shifted::shift`].
    order: Vec<(f64, usize)>,
    prefix: Vec<f64>,
    prefix_sq: Vec<f64>,
    scale: f64,
    gamma: f64,
}

/// Rearrangements whose statistics are computed side by side ([`Shifted::stats`]).
const LANES: usize = 2;

impl Shifted {
    /// The baseline `b` and the candidate `c` shifted by −δ, pooled.
    #[cfg(test)]
    fn new(b: &[f64], c: &[f64], delta: f64) -> Shifted {
        let mut s = Shifted::default();
        s.shift(b, c, delta);
        s
    }

    /// Refills `self` with the baseline `b` and the candidate `c` shifted by −δ, reusing
    /// its buffers.
    fn shift(&mut self, b: &[f64], c: &[f64], delta: f64) {
        let n = b.len() + c.len();
        self.order.clear();
        self.order.extend(
            b.iter()
                .copied()
                .chain(c.iter().map(|v| v - delta))
                .zip(0..),
        );
        // Stable: tied values keep their pooled order, which decides the positions the
        // prefix sums are split at.
        self.order.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.scale = self
            .order
            .iter()
            .map(|v| v.0.abs())
            .fold(0.0, f64::max)
            .max(1.0);
        self.sorted.clear();
        self.sorted.extend(self.order.iter().map(|v| v.0));
        self.gamma = choose_trim(&self.sorted, (b.len(), c.len()));
        let centre = self.sorted[n / 2];
        self.sorted.iter_mut().for_each(|v| *v -= centre);
        self.rank.resize(n, 0);
        for (r, &(_, i)) in self.order.iter().enumerate() {
            self.rank[i] = r as u32;
        }
        self.prefix.clear();
        self.prefix_sq.clear();
        self.prefix.push(0.0);
        self.prefix_sq.push(0.0);
        let (mut s, mut q) = (0.0, 0.0);
        for v in &self.sorted {
            s += v;
            q += v * v;
            self.prefix.push(s);
            self.prefix_sq.push(q);
        }
    }

    /// Appends the positions in `sorted` of the pooled values `small`, ascending, to `pos`.
    #[inline(always)]
    fn positions(&self, small: &[u32], pos: &mut Vec<u32>) {
        let start = pos.len();
        if self.sorted.len() <= 128 {
            // Marked in a bit set and read back in order: no sort.
            let (mut lo, mut hi) = (0u64, 0u64);
            for &i in small {
                let r = self.rank[i as usize];
                // All ones when the position is in the low word: no branch on the data.
                let low = u64::from(r < 64).wrapping_neg();
                lo |= (1 << (r % 64)) & low;
                hi |= (1 << (r % 64)) & !low;
            }
            pos.resize(start + small.len(), 0);
            for p in &mut pos[start..] {
                if lo != 0 {
                    *p = lo.trailing_zeros();
                    lo &= lo - 1;
                } else {
                    *p = 64 + hi.trailing_zeros();
                    hi &= hi - 1;
                }
            }
        } else {
            pos.extend(small.iter().map(|&i| self.rank[i as usize]));
            pos[start..].sort_unstable();
        }
    }

    /// The statistic (candidate − baseline) of rearrangement `k`; `pos` is scratch.
    fn stat(&self, splits: &Splits, k: usize, pos: &mut Vec<u32>) -> Option<f64> {
        self.stats(splits, [k], pos).map(|[s]| s)
    }

    /// The statistics (candidate − baseline) of the rearrangements `ks`, computed side by
    /// side: each is a few chains of additions that must keep their order, so computing
    /// several at once lets their chains overlap. `None` when a side is too small (the
    /// same for every rearrangement); `pos` is scratch.
    ///
    /// Each side's trimmed mean and d = (n − 1)·s²_w / (h(h − 1)) (Wilcox 2012, eq. 5.8, as
    /// [`side`]): the smaller side's from its own values, the other side's from the prefix
    /// sums over its trimmed range less the smaller side's values inside that range, both
    /// summed in one pass over the smaller side. Every sum keeps its order (ascending
    /// positions) and so its bits.
    fn stats<const N: usize>(
        &self,
        splits: &Splits,
        ks: [usize; N],
        pos: &mut Vec<u32>,
    ) -> Option<[f64; N]> {
        let (ns, nl) = (splits.width, self.sorted.len() - splits.width);
        let (gs, gl) = (
            side_trim_count(ns, self.gamma),
            side_trim_count(nl, self.gamma),
        );
        let (hs, hl) = (ns.checked_sub(2 * gs)?, nl.checked_sub(2 * gl)?);
        if ns < 2 || nl < 2 || hs < 2 || hl < 2 {
            return None;
        }
        pos.clear();
        for k in ks {
            self.positions(splits.side(k), pos);
        }
        let lane = |j: usize| &pos[j * ns..(j + 1) * ns];
        let v = |p: u32| self.sorted[p as usize];
        // The other side's trimmed range is its (gl)th to (nl − 1 − gl)th value, at positions
        // a and z; pos[i] − i (the other side's values below pos[i]) never decreases, so the
        // smaller side's values inside [a, z] are pos[i1..i2], found from either end.
        let inner = std::array::from_fn::<_, N, _>(|j| {
            let below = |i: usize| lane(j)[i] as usize - i;
            let mut i1 = 0;
            while i1 < ns && below(i1) <= gl {
                i1 += 1;
            }
            let mut i2 = ns;
            while i2 > 0 && below(i2 - 1) > nl - 1 - gl {
                i2 -= 1;
            }
            (i1, i2)
        });
        let a = inner.map(|(i1, _)| gl + i1);
        let z = inner.map(|(_, i2)| nl - 1 - gl + i2);
        // Adding −0.0 or subtracting +0.0 leaves any value as it is: the values outside a
        // range change no bit of its sums.
        let mut sum_s = [-0.0; N];
        let mut sum_l =
            std::array::from_fn::<_, N, _>(|j| self.prefix[z[j] + 1] - self.prefix[a[j]]);
        let mut sq_l =
            std::array::from_fn::<_, N, _>(|j| self.prefix_sq[z[j] + 1] - self.prefix_sq[a[j]]);
        for i in 0..ns {
            let kept = (gs..ns - gs).contains(&i);
            for j in 0..N {
                let x = v(pos[j * ns + i]);
                sum_s[j] += if kept { x } else { -0.0 };
                let inside = (inner[j].0..inner[j].1).contains(&i);
                sum_l[j] -= if inside { x } else { 0.0 };
                sq_l[j] -= if inside { x * x } else { 0.0 };
            }
        }
        let (n, g, h) = (ns as f64, gs as f64, hs as f64);
        let lo = std::array::from_fn::<_, N, _>(|j| v(lane(j)[gs]));
        let hi = std::array::from_fn::<_, N, _>(|j| v(lane(j)[ns - 1 - gs]));
        let wm = std::array::from_fn::<_, N, _>(|j| (g * (lo[j] + hi[j]) + sum_s[j]) / n);
        let mut dev = [-0.0; N];
        for i in gs..ns - gs {
            for j in 0..N {
                dev[j] += (v(pos[j * ns + i]) - wm[j]).powi(2);
            }
        }
        let small = std::array::from_fn::<_, N, _>(|j| {
            let sw2 =
                (g * ((lo[j] - wm[j]).powi(2) + (hi[j] - wm[j]).powi(2)) + dev[j]) / (n - 1.0);
            (sum_s[j] / h, (n - 1.0) * sw2 / (h * (h - 1.0)))
        });
        let (n, g, h) = (nl as f64, gl as f64, hl as f64);
        Some(std::array::from_fn(|j| {
            let (lo, hi) = (self.sorted[a[j]], self.sorted[z[j]]);
            let wm = (g * (lo + hi) + sum_l[j]) / n;
            let sw2 = ((g * (lo * lo + hi * hi) + sq_l[j] - n * wm * wm) / (n - 1.0)).max(0.0);
            let large = (sum_l[j] / h, (n - 1.0) * sw2 / (h * (h - 1.0)));
            let ((mc, dc), (mb, db)) = if splits.small_is_base {
                (large, small[j])
            } else {
                (small[j], large)
            };
            studentize(mc - mb, dc + db, self.scale)
        }))
    }
}

/// The test of "shift = δ" along one bound of an interval: whether subtracting δ from the
/// candidate leaves a two-sided p above α, i.e. more than `need` − 1 rearrangements whose
/// |statistic| reaches the observed one's.
///
/// The answer depends only on how many rearrangements reach the observed statistic, not
/// on the order they are looked at, so they are looked at in the order most likely to
/// settle it soon, and counting stops as soon as the answer is known: "accepts" once the
/// count is above `need` − 1, "rejects" once even every rearrangement not yet looked at
/// could not bring it there. Successive δ of a bisection are close, so the rearrangements
/// that reached (or came nearest to) the observed statistic at the last δ tried come first:
/// an acceptance costs about `need` statistics instead of a scan, a rejection about
/// count − `need`.
struct Inversion<'a> {
    b: &'a [f64],
    c: &'a [f64],
    splits: &'a Splits,
    need: f64,
    shifted: Shifted,
    pos: Vec<u32>,
    /// Rearrangements 1.. (0 is the observed one), in the order they are looked at.
    order: Vec<u32>,
    /// Per rearrangement, |statistic| / the observed one's threshold when it was last
    /// looked at: only an ordering hint, never part of an answer.
    score: Vec<f64>,
    /// How many of the highest scores are kept sorted at the front of `order`.
    front: usize,
}

impl<'a> Inversion<'a> {
    fn new(b: &'a [f64], c: &'a [f64], splits: &'a Splits, need: f64) -> Inversion<'a> {
        let count = splits.len();
        Inversion {
            b,
            c,
            splits,
            need,
            shifted: Shifted::default(),
            pos: Vec::with_capacity(b.len() + c.len()),
            order: (1..count as u32).collect(),
            score: vec![0.0; count],
            front: (2 * need.max(0.0).ceil() as usize + 64).min(count.saturating_sub(1)),
        }
    }

    /// Whether the test accepts "shift = δ": exactly `(k + 1) > need` for the count `k` of
    /// rearrangements with |statistic| ≥ |observed| (less a relative 1e-9 for rounding).
    fn accepts(&mut self, delta: f64) -> bool {
        self.shifted.shift(self.b, self.c, delta);
        let shifted = &self.shifted;
        let obs = shifted.stat(self.splits, 0, &mut self.pos).unwrap_or(0.0);
        let threshold = obs.abs() - 1e-9 * obs.abs().min(1e300);
        let total = self.order.len() as u64;
        // Whether rearrangement `m`'s statistic reaches the observed one, noting its score.
        let record = |score: &mut [f64], m: usize, stat: Option<f64>, threshold: f64| -> u64 {
            match stat {
                Some(s) => {
                    score[m] = s.abs() / threshold;
                    u64::from(s.abs() >= threshold)
                }
                None => {
                    score[m] = f64::NEG_INFINITY;
                    0
                }
            }
        };
        let (mut k, mut looked) = (0u64, 0usize);
        let accepted = loop {
            if (k + 1) as f64 > self.need {
                break true;
            }
            if (k + 1 + (total - looked as u64)) as f64 <= self.need {
                break false;
            }
            // Several at a time while enough are left (those past the answer change no
            // count that decides it), then one by one.
            if total - looked as u64 >= LANES as u64 {
                let ms: [usize; LANES] = std::array::from_fn(|j| self.order[looked + j] as usize);
                looked += LANES;
                let stats = shifted.stats(self.splits, ms, &mut self.pos);
                for (j, &m) in ms.iter().enumerate() {
                    k += record(&mut self.score, m, stats.map(|s| s[j]), threshold);
                }
            } else {
                let m = self.order[looked] as usize;
                looked += 1;
                let stat = shifted.stat(self.splits, m, &mut self.pos);
                k += record(&mut self.score, m, stat, threshold);
            }
        };
        self.reorder(looked);
        accepted
    }

    /// Brings the highest scores to the front after `looked` rearrangements got new ones.
    fn reorder(&mut self, looked: usize) {
        let score = &self.score;
        let by_score = |a: &u32, b: &u32| score[*b as usize].total_cmp(&score[*a as usize]);
        if looked > self.front {
            if self.front < self.order.len() {
                self.order.select_nth_unstable_by(self.front, by_score);
            }
            self.order[..self.front].sort_unstable_by(by_score);
        } else {
            self.order[..looked].sort_unstable_by(by_score);
        }
    }
}

/// Confidence interval for the shift of one cell (candidate − baseline, on the scale of
/// the values), by inverting the same permutation test (Lehmann 1975, *Nonparametrics*,
/// §2.6): the shifts δ for which subtracting δ from the candidate leaves a two-sided
/// p above 1 − `level`. Coherent with the test by construction: the interval excludes 0
/// exactly when the two-sided p is below 1 − `level`. Also returns the trimmed-mean
/// difference (the point estimate). `None` when a side has fewer than two values or the
/// rearrangements cannot reach that level (the interval would be unbounded).
pub fn shift_ci(
    baseline: &[f64],
    candidate: &[f64],
    level: f64,
    plan: &Plan,
) -> Option<(f64, f64, f64)> {
    let mut b: Vec<f64> = baseline.iter().copied().filter(|v| v.is_finite()).collect();
    let mut c: Vec<f64> = candidate
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    b.sort_by(f64::total_cmp);
    c.sort_by(f64::total_cmp);
    let est = trimmed_shift(&b, &c)?;
    let alpha = 1.0 - level;
    let n = b.len() + c.len();
    // Precompute the assignments once (the same ones for every δ).
    let mut splits = Splits::empty(n, b.len());
    let small = Plan {
        resamples: plan.resamples.min(1_999),
        ..*plan
    };
    let (method, count) = rearrangements(n, b.len(), &small, |m| splits.push(m));
    let denom = count as f64
        + if method == Method::ExactPermutation {
            0.0
        } else {
            1.0
        };
    if 2.0 / denom >= alpha {
        return None;
    }
    let spread = b
        .last()
        .zip(b.first())
        .map(|(h, l)| h - l)
        .unwrap_or(0.0)
        .max(c.last().zip(c.first()).map(|(h, l)| h - l).unwrap_or(0.0))
        .max(est.abs())
        .max(1e-12);
    let mut pooled = [b.as_slice(), c.as_slice()].concat();
    pooled.sort_by(f64::total_cmp);
    let se = yuen_sorted(&c, &b, choose_trim(&pooled, (b.len(), c.len())))
        .map_or(0.0, |(_, se2)| se2.sqrt());
    let need = alpha * denom;
    // Bisect each bound between a δ the test accepts (the estimate) and one it rejects,
    // starting four standard errors out, to a ten-thousandth of a standard error.
    let first = if se > 0.0 { 4.0 * se } else { spread };
    let tol = if se > 0.0 { 1e-4 * se } else { 1e-6 * spread };
    let bound = |dir: f64| -> f64 {
        // Each bound has its own order: the rearrangements extreme at one end of the
        // interval are not those extreme at the other.
        let mut test = Inversion::new(&b, &c, &splits, need);
        let mut inside = est;
        let mut step = first;
        let mut outside = est + dir * step;
        let mut tries = 0;
        while test.accepts(outside) && tries < 60 {
            inside = outside;
            step *= 2.0;
            outside = est + dir * step;
            tries += 1;
        }
        for _ in 0..60 {
            let mid = 0.5 * (inside + outside);
            if test.accepts(mid) {
                inside = mid;
            } else {
                outside = mid;
            }
            if (outside - inside).abs() <= tol {
                break;
            }
        }
        inside
    };
    Some((est, bound(-1.0), bound(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::RngExt;

    fn rng(seed: u64) -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(seed)
    }

    fn cell(b: &[f64], c: &[f64], worse_sign: f64) -> FamilyCell {
        FamilyCell {
            values: b.iter().chain(c).map(|v| Some(*v)).collect(),
            worse_sign,
            member: true,
        }
    }

    #[test]
    fn separated_four_by_four_is_one_in_seventy() {
        let default = [13402.0, 13155.0, 13344.0, 13107.0];
        let tcp = [13490.0, 13462.0, 13476.0, 13440.0];
        let f = family_test(&[cell(&default, &tcp, -1.0)], 4, &Plan::default()).unwrap();
        assert_eq!(f.method, Method::ExactPermutation);
        assert_eq!(f.rearrangements, 70);
        assert!((f.p_floor - 1.0 / 70.0).abs() < 1e-12);
        let t = f.cells[0].unwrap();
        // TCP is higher: better for a higher-is-better metric, so "worse" has p = 1.
        assert_eq!(t.p_worse, 1.0);
        assert!((t.p_two_sided - 2.0 / 70.0).abs() < 1e-12, "{t:?}");
        assert_eq!(t.p_two_sided_adjusted, Some(t.p_two_sided));
    }

    #[test]
    fn sampled_beyond_the_enumeration_limit() {
        let b: Vec<f64> = (0..12).map(f64::from).collect();
        let c: Vec<f64> = (0..12).map(|v| f64::from(v) + 20.0).collect();
        let plan = Plan {
            resamples: 999,
            ..Plan::default()
        };
        let f = family_test(&[cell(&b, &c, 1.0)], 12, &plan).unwrap();
        assert_eq!(f.method, Method::SampledPermutation);
        assert_eq!(f.p_floor, 1.0 / 1000.0);
        assert_eq!(f.cells[0].unwrap().p_worse, 1.0 / 1000.0);
    }

    #[test]
    fn constant_sides_are_no_evidence_and_short_sides_are_untested() {
        let f = family_test(
            &[
                cell(&[5.0, 5.0, 5.0], &[5.0, 5.0], 1.0),
                FamilyCell {
                    values: vec![Some(1.0), None, Some(2.0), Some(3.0), None],
                    worse_sign: 1.0,
                    member: true,
                },
            ],
            3,
            &Plan::default(),
        )
        .unwrap();
        let t = f.cells[0].unwrap();
        assert_eq!((t.t, t.p_worse, t.p_two_sided), (0.0, 1.0, 1.0));
        // The second cell has one baseline value once run 2 is missing.
        assert!(f.cells[1].is_none());
    }

    #[test]
    fn a_change_in_one_cell_is_not_diluted_by_cells_that_did_not_move() {
        // 5 runs a side, 20 cells of noise and one cell tripled: its adjusted p stays at
        // the floor 1/252, where Bonferroni would give 21/252.
        let mut r = rng(3);
        let noise = |r: &mut Xoshiro256PlusPlus| (r.random::<f64>() - 0.5) * 0.1;
        let mut cells: Vec<FamilyCell> = (0..20)
            .map(|_| FamilyCell {
                values: (0..10).map(|_| Some(noise(&mut r))).collect(),
                worse_sign: 1.0,
                member: true,
            })
            .collect();
        cells.push(FamilyCell {
            values: (0..10)
                .map(|i| Some(noise(&mut r) + if i >= 5 { 3f64.ln() } else { 0.0 }))
                .collect(),
            worse_sign: 1.0,
            member: true,
        });
        let f = family_test(&cells, 5, &Plan::default()).unwrap();
        let t = f.cells[20].unwrap();
        assert!((t.p_worse - 1.0 / 252.0).abs() < 1e-12);
        assert!(t.p_worse_adjusted.unwrap() < 0.01, "{t:?}");
        // Adjusted p-values are never below raw ones.
        for c in f.cells.iter().flatten() {
            assert!(c.p_worse_adjusted.unwrap() >= c.p_worse - 1e-12);
            assert!(c.p_two_sided_adjusted.unwrap() >= c.p_two_sided - 1e-12);
        }
    }

    #[test]
    fn observed_statistic_is_yuens_t() {
        // Against the reference implementation in `stats::yuen` (Wilcox 2012, §5.3).
        let b: Vec<f64> = (0..12).map(|i| f64::from(i * 7 % 11) + 0.5).collect();
        let c: Vec<f64> = (0..10).map(|i| f64::from(i * 5 % 9) + 2.0).collect();
        let f = family_test(&[cell(&b, &c, 1.0)], 12, &Plan::default()).unwrap();
        let mut pooled = [b.as_slice(), c.as_slice()].concat();
        pooled.sort_by(f64::total_cmp);
        let want = crate::stats::yuen::yuen(&c, &b, choose_trim(&pooled, (12, 10)))
            .unwrap()
            .t;
        assert!((f.cells[0].unwrap().t - want).abs() < 1e-12, "{want}");
        let want = crate::stats::yuen::welch(&c[..5], &b[..5]).unwrap().t;
        let f = family_test(&[cell(&b[..5], &c[..5], 1.0)], 5, &Plan::default()).unwrap();
        assert!((f.cells[0].unwrap().t - want).abs() < 1e-12, "{want}");
    }

    #[test]
    fn trimming_follows_the_pooled_tails() {
        let mut r = rng(11);
        let n01 = rand_distr::Normal::new(0.0, 1.0).unwrap();
        let mut normal: Vec<f64> = (0..20)
            .map(|_| rand_distr::Distribution::sample(&n01, &mut r))
            .collect();
        normal.sort_by(f64::total_cmp);
        assert_eq!(choose_trim(&normal, (10, 10)), 0.0);
        // Two wild runs among twenty: the trimmed mean's variance is far smaller.
        let mut wild = normal.clone();
        wild[0] -= 8.0;
        wild[19] += 8.0;
        wild.sort_by(f64::total_cmp);
        assert!(choose_trim(&wild, (10, 10)) > 0.0);
        // Nine a side: 10% would cut nothing, so 20% (one a side) is what is weighed.
        assert_eq!(choose_trim(&wild[..18], (9, 9)), 0.2);
        // The point estimate uses the same trimming as the test.
        let b: Vec<f64> = normal[..10].to_vec();
        let mut c: Vec<f64> = normal[10..].iter().map(|v| v + 1.0).collect();
        c[0] += 50.0;
        let est = trimmed_shift(&b, &c).unwrap();
        assert!(est < 3.0, "{est}");
    }

    #[test]
    fn interval_is_coherent_with_the_test() {
        let b = [0.0, 0.02, -0.01, 0.03, 0.01, -0.02];
        let c = [0.21, 0.19, 0.23, 0.2, 0.18, 0.22];
        let (est, lo, hi) = shift_ci(&b, &c, 0.95, &Plan::default()).unwrap();
        assert!(lo < est && est < hi, "{lo} {est} {hi}");
        assert!(lo > 0.1 && hi < 0.3, "{lo} {hi}");
        // Three a side: 20 rearrangements cannot give a 95% interval.
        assert!(shift_ci(&b[..3], &c[..3], 0.95, &Plan::default()).is_none());
    }

    #[test]
    fn shifted_statistic_is_the_direct_one() {
        let mut r = rng(7);
        // A small candidate side (positions sorted) and two large sides (one pass), with
        // enough values a side that the trimming is in play.
        for (nb, nc) in [(50, 5), (20, 20), (9, 12)] {
            let b: Vec<f64> = (0..nb).map(|_| 9.0 + 0.02 * r.random::<f64>()).collect();
            let mut c: Vec<f64> = (0..nc).map(|_| 9.01 + 0.02 * r.random::<f64>()).collect();
            c[0] += 0.2;
            let mut masks = Vec::new();
            rearrangements(nb + nc, nb, &Plan::default(), |m| masks.push(m.to_vec()));
            masks.truncate(300);
            let splits = Splits::new(masks.clone(), nb);
            for delta in [-0.05, 0.0, 0.013, 0.1] {
                let vals: Vec<Option<f64>> = b
                    .iter()
                    .copied()
                    .chain(c.iter().map(|v| v - delta))
                    .map(Some)
                    .collect();
                let prep = Prepared::new(&vals, nb);
                let shifted = Shifted::new(&b, &c, delta);
                assert_eq!(prep.gamma, shifted.gamma);
                let (mut bx, mut cx, mut pos) = (Vec::new(), Vec::new(), Vec::new());
                for (k, m) in masks.iter().enumerate() {
                    let want = prep.stat(m, &mut bx, &mut cx).unwrap();
                    let got = shifted.stat(&splits, k, &mut pos).unwrap();
                    assert!(
                        (want - got).abs() <= 1e-9 * want.abs().max(1.0),
                        "{nb}/{nc} δ {delta} #{k}: {want} vs {got}"
                    );
                }
            }
        }
    }

    proptest! {
        #[test]
        fn tails_cover_every_rearrangement(
            x in prop::collection::vec(0.0f64..10.0, 2..7),
            y in prop::collection::vec(0.0f64..10.0, 2..7),
        ) {
            let f = family_test(&[cell(&x, &y, 1.0)], x.len(), &Plan::default()).unwrap();
            let g = family_test(&[cell(&x, &y, -1.0)], x.len(), &Plan::default()).unwrap();
            let (t, u) = (f.cells[0].unwrap(), g.cells[0].unwrap());
            // Every rearrangement is ≥ or ≤ the observed one (ties count in both).
            prop_assert!(t.p_worse + u.p_worse >= 1.0 - 1e-12);
            prop_assert!(t.p_worse >= f.p_floor - 1e-15);
            prop_assert!((t.p_two_sided - u.p_two_sided).abs() < 1e-12);
            let s = family_test(&[cell(&y, &x, 1.0)], y.len(), &Plan::default()).unwrap();
            prop_assert!((s.cells[0].unwrap().p_two_sided - t.p_two_sided).abs() < 1e-12);
        }
    }

    /// `shift_ci` as it was before its rearrangements were reordered and cut short on
    /// rejection: every rearrangement in drawing order, positions sorted, fresh buffers for
    /// each δ. Kept only to prove the faster one returns the same bits.
    mod before {
        use super::super::*;

        struct Shifted {
            sorted: Vec<f64>,
            rank: Vec<u32>,
            prefix: Vec<f64>,
            prefix_sq: Vec<f64>,
            scale: f64,
            gamma: f64,
        }

        fn side_at(sorted: &[f64], pos: &[u32], gamma: f64) -> Option<(f64, f64)> {
            let n = pos.len();
            if n < 2 {
                return None;
            }
            let g = side_trim_count(n, gamma);
            let h = n - 2 * g;
            if h < 2 {
                return None;
            }
            let v = |i: usize| sorted[pos[i] as usize];
            let tm = (g..n - g).map(v).sum::<f64>() / h as f64;
            let (lo, hi) = (v(g), v(n - 1 - g));
            let wm = (g as f64 * (lo + hi) + (g..n - g).map(v).sum::<f64>()) / n as f64;
            let sw2 = (g as f64 * ((lo - wm).powi(2) + (hi - wm).powi(2))
                + (g..n - g).map(|i| (v(i) - wm).powi(2)).sum::<f64>())
                / (n - 1) as f64;
            let hf = h as f64;
            Some((tm, (n as f64 - 1.0) * sw2 / (hf * (hf - 1.0))))
        }

        impl Shifted {
            fn new(b: &[f64], c: &[f64], delta: f64) -> Shifted {
                let values: Vec<f64> = b
                    .iter()
                    .copied()
                    .chain(c.iter().map(|v| v - delta))
                    .collect();
                let mut order: Vec<(f64, usize)> = values.iter().copied().zip(0..).collect();
                order.sort_by(|a, b| a.0.total_cmp(&b.0));
                let scale = order.iter().map(|v| v.0.abs()).fold(0.0, f64::max).max(1.0);
                let pooled: Vec<f64> = order.iter().map(|v| v.0).collect();
                let gamma = choose_trim(&pooled, (b.len(), c.len()));
                let centre = pooled[pooled.len() / 2];
                let sorted: Vec<f64> = pooled.iter().map(|v| v - centre).collect();
                let mut rank = vec![0u32; values.len()];
                for (r, &(_, i)) in order.iter().enumerate() {
                    rank[i] = r as u32;
                }
                let (mut prefix, mut prefix_sq) = (vec![0.0], vec![0.0]);
                let (mut s, mut q) = (0.0, 0.0);
                for v in &sorted {
                    s += v;
                    q += v * v;
                    prefix.push(s);
                    prefix_sq.push(q);
                }
                Shifted {
                    sorted,
                    rank,
                    prefix,
                    prefix_sq,
                    scale,
                    gamma,
                }
            }

            fn complement(&self, pos: &[u32]) -> Option<(f64, f64)> {
                let n = self.sorted.len() - pos.len();
                if n < 2 {
                    return None;
                }
                let g = side_trim_count(n, self.gamma);
                let h = n - 2 * g;
                if h < 2 {
                    return None;
                }
                let at = |j: usize| {
                    let mut idx = j;
                    for &p in pos {
                        if p as usize <= idx {
                            idx += 1;
                        } else {
                            break;
                        }
                    }
                    idx
                };
                let (a, z) = (at(g), at(n - 1 - g));
                let (lo, hi) = (self.sorted[a], self.sorted[z]);
                let (mut sum, mut sq) = (
                    self.prefix[z + 1] - self.prefix[a],
                    self.prefix_sq[z + 1] - self.prefix_sq[a],
                );
                for &p in pos {
                    let p = p as usize;
                    if (a..=z).contains(&p) {
                        sum -= self.sorted[p];
                        sq -= self.sorted[p] * self.sorted[p];
                    }
                }
                let tm = sum / h as f64;
                let gf = g as f64;
                let wm = (gf * (lo + hi) + sum) / n as f64;
                let sw2 = ((gf * (lo * lo + hi * hi) + sq - n as f64 * wm * wm) / (n - 1) as f64)
                    .max(0.0);
                let hf = h as f64;
                Some((tm, (n as f64 - 1.0) * sw2 / (hf * (hf - 1.0))))
            }

            fn stat(&self, small: &[u32], small_is_base: bool) -> Option<f64> {
                let mut pos: Vec<u32> = small.iter().map(|&i| self.rank[i as usize]).collect();
                pos.sort_unstable();
                let one = side_at(&self.sorted, &pos, self.gamma)?;
                let other = self.complement(&pos)?;
                let ((mc, dc), (mb, db)) = if small_is_base {
                    (other, one)
                } else {
                    (one, other)
                };
                Some(studentize(mc - mb, dc + db, self.scale))
            }
        }

        pub fn shift_ci(
            baseline: &[f64],
            candidate: &[f64],
            level: f64,
            plan: &Plan,
        ) -> Option<(f64, f64, f64)> {
            let mut b: Vec<f64> = baseline.iter().copied().filter(|v| v.is_finite()).collect();
            let mut c: Vec<f64> = candidate
                .iter()
                .copied()
                .filter(|v| v.is_finite())
                .collect();
            b.sort_by(f64::total_cmp);
            c.sort_by(f64::total_cmp);
            let est = trimmed_shift(&b, &c)?;
            let alpha = 1.0 - level;
            let n = b.len() + c.len();
            let small_is_base = b.len() < c.len();
            let mut small: Vec<Vec<u32>> = Vec::new();
            let plan = Plan {
                resamples: plan.resamples.min(1_999),
                ..*plan
            };
            let (method, count) = rearrangements(n, b.len(), &plan, |m| {
                small.push(
                    (0..n as u32)
                        .filter(|&i| m[i as usize] == small_is_base)
                        .collect(),
                )
            });
            let denom = count as f64
                + if method == Method::ExactPermutation {
                    0.0
                } else {
                    1.0
                };
            if 2.0 / denom >= alpha {
                return None;
            }
            let spread = b
                .last()
                .zip(b.first())
                .map(|(h, l)| h - l)
                .unwrap_or(0.0)
                .max(c.last().zip(c.first()).map(|(h, l)| h - l).unwrap_or(0.0))
                .max(est.abs())
                .max(1e-12);
            let mut pooled = [b.as_slice(), c.as_slice()].concat();
            pooled.sort_by(f64::total_cmp);
            let se = yuen_sorted(&c, &b, choose_trim(&pooled, (b.len(), c.len())))
                .map_or(0.0, |(_, se2)| se2.sqrt());
            let need = alpha * denom;
            let accepts = |delta: f64| -> bool {
                let shifted = Shifted::new(&b, &c, delta);
                let obs = shifted.stat(&small[0], small_is_base).unwrap_or(0.0);
                let mut k = 0u64;
                for m in &small[1..] {
                    if let Some(s) = shifted.stat(m, small_is_base)
                        && s.abs() >= obs.abs() - 1e-9 * obs.abs().min(1e300)
                    {
                        k += 1;
                        if (k + 1) as f64 > need {
                            return true;
                        }
                    }
                }
                (k + 1) as f64 > need
            };
            let first = if se > 0.0 { 4.0 * se } else { spread };
            let tol = if se > 0.0 { 1e-4 * se } else { 1e-6 * spread };
            let bound = |dir: f64| -> f64 {
                let mut inside = est;
                let mut step = first;
                let mut outside = est + dir * step;
                let mut tries = 0;
                while accepts(outside) && tries < 60 {
                    inside = outside;
                    step *= 2.0;
                    outside = est + dir * step;
                    tries += 1;
                }
                for _ in 0..60 {
                    let mid = 0.5 * (inside + outside);
                    if accepts(mid) {
                        inside = mid;
                    } else {
                        outside = mid;
                    }
                    if (outside - inside).abs() <= tol {
                        break;
                    }
                }
                inside
            };
            Some((est, bound(-1.0), bound(1.0)))
        }
    }

    /// A random side as compare passes them (log latencies), with what makes the
    /// arithmetic delicate: ties, a constant side, wild runs, values far from zero.
    fn awkward_side(r: &mut Xoshiro256PlusPlus, n: usize, centre: f64, kind: u32) -> Vec<f64> {
        let noise = rand_distr::Normal::new(0.0, 0.05).unwrap();
        let mut v: Vec<f64> = (0..n)
            .map(|_| centre + rand_distr::Distribution::sample(&noise, r))
            .collect();
        match kind {
            // Ties: values on a coarse grid.
            0 => v.iter_mut().for_each(|x| *x = (*x * 50.0).round() / 50.0),
            // A constant side.
            1 => v.iter_mut().for_each(|x| *x = centre),
            // Wild runs at either end.
            2 => {
                v[0] += 1.5;
                v[n - 1] -= 0.7 * r.random::<f64>();
            }
            // Mostly equal with one run off.
            3 => {
                v.iter_mut().for_each(|x| *x = centre);
                v[0] += 0.01;
            }
            _ => {}
        }
        v
    }

    #[test]
    fn shift_ci_is_bit_identical_to_the_scan_of_every_rearrangement() {
        let mut r = rng(2024);
        let levels = [0.95, 0.9, 0.99, 0.8];
        let mut bounded = 0;
        for case in 0..160 {
            // Mostly compare's sizes; every tenth case up to 60 a side, and a few past 128
            // pooled values (positions sorted instead of read from a bit set).
            let size = |r: &mut Xoshiro256PlusPlus| {
                if case % 40 == 19 {
                    r.random_range(65..=80)
                } else if case % 10 == 9 {
                    r.random_range(2..=60)
                } else {
                    r.random_range(2..=14)
                }
            };
            let (nb, nc) = (size(&mut r), size(&mut r));
            let centre = if case % 3 == 0 { 0.0 } else { 9.0 };
            let shift = [0.0, 0.02, -0.05, 0.3][case % 4];
            let (kb, kc) = (r.random_range(0..8), r.random_range(0..8));
            let b = awkward_side(&mut r, nb, centre, kb);
            let c = awkward_side(&mut r, nc, centre + shift, kc);
            // Both methods: exact enumeration up to the limit, sampled beyond it (fewer
            // rearrangements than compare's 1,999 on most cases to keep the test quick).
            let plan = Plan {
                max_enumerated: [20_000, 500, 70][case % 3],
                resamples: [199, 999, 1_999, 4_999][(case / 3) % 4],
                seed: case as u64,
            };
            let level = levels[case % levels.len()];
            let want = before::shift_ci(&b, &c, level, &plan);
            let got = shift_ci(&b, &c, level, &plan);
            let bits = |x: Option<(f64, f64, f64)>| {
                x.map(|(e, l, h)| (e.to_bits(), l.to_bits(), h.to_bits()))
            };
            assert_eq!(bits(got), bits(want), "case {case}: {b:?} {c:?} {plan:?}");
            bounded += usize::from(want.is_some());
        }
        // Most cases give an interval (the others are too small for their level).
        assert!(bounded > 100, "{bounded}");
    }
}
