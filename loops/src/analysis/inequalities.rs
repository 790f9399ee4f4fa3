//! Whether a small system of affine inequalities has an integer solution,
//! by Fourier–Motzkin elimination with integer tightening. The answer is
//! conservative in one direction only: "infeasible" is always right (no
//! integer point exists), "feasible" may be wrong (a rational point, or a
//! system too large to decide). The dependence analysis relies on exactly
//! that: a dependence it drops can never exist.

/// `coefficients · x + constant >= 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inequality {
    /// One per unknown of the system.
    pub coefficients: Vec<i64>,
    /// The constant term.
    pub constant: i64,
}

/// Beyond this many inequalities the elimination gives up and answers
/// "feasible": dependence systems of loop nests stay far below.
const MAX_INEQUALITIES: usize = 4096;

/// A conjunction of inequalities over `variables` integer unknowns.
#[derive(Clone, Debug)]
pub struct System {
    variables: usize,
    rows: Vec<Inequality>,
}

impl System {
    /// The system without inequalities (every point satisfies it).
    pub fn new(variables: usize) -> System {
        System {
            variables,
            rows: Vec::new(),
        }
    }

    /// Adds `coefficients · x + constant >= 0`.
    pub fn at_least_zero(&mut self, coefficients: Vec<i64>, constant: i64) {
        debug_assert_eq!(coefficients.len(), self.variables);
        self.rows.push(Inequality {
            coefficients,
            constant,
        });
    }

    /// Adds `coefficients · x + constant == 0`.
    pub fn equal_zero(&mut self, coefficients: Vec<i64>, constant: i64) {
        let negated = coefficients.iter().map(|c| -c).collect();
        self.at_least_zero(coefficients, constant);
        self.at_least_zero(negated, -constant);
    }

    /// A copy with one more inequality.
    pub fn with(&self, coefficients: Vec<i64>, constant: i64) -> System {
        let mut system = self.clone();
        system.at_least_zero(coefficients, constant);
        system
    }

    /// False only when no integer point satisfies every inequality.
    pub fn may_be_feasible(&self) -> bool {
        let mut rows = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            match tighten(
                row.coefficients.iter().map(|&c| c as i128).collect(),
                row.constant as i128,
            ) {
                Tightened::Infeasible => return false,
                Tightened::Trivial => {}
                Tightened::Row(row) => rows.push(row),
                Tightened::Overflow => return true,
            }
        }
        let mut remaining: Vec<usize> = (0..self.variables).collect();
        loop {
            rows.sort();
            rows.dedup();
            let Some(variable) = cheapest(&rows, &remaining) else {
                // No variable left with a coefficient: every row was
                // trivial and checked when it was made.
                return true;
            };
            remaining.retain(|&v| v != variable);
            match eliminate(&rows, variable) {
                Ok(Projected {
                    rows: rest,
                    infeasible: false,
                }) => rows = rest,
                Ok(Projected {
                    infeasible: true, ..
                }) => return false,
                Err(GaveUp) => return true,
            }
        }
    }
}

/// One step of Fourier–Motzkin elimination.
pub(crate) struct Projected {
    /// The rows without the variable, tightened, sorted and without
    /// duplicates (rows left without any variable are not kept).
    pub rows: Vec<Inequality>,
    /// A row left without variables fails: no integer point.
    pub infeasible: bool,
}

/// A coefficient no longer fits, or the rows grow past
/// `MAX_INEQUALITIES`.
pub(crate) struct GaveUp;

/// Projects `variable` out of `rows`, tightening each new row over the
/// integers (so only rational points are lost).
pub(crate) fn eliminate(rows: &[Inequality], variable: usize) -> Result<Projected, GaveUp> {
    let (mut lower, mut upper, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        match row.coefficients[variable].signum() {
            1 => lower.push(row),
            -1 => upper.push(row),
            _ => rest.push(row.clone()),
        }
    }
    let mut infeasible = false;
    // `a·x + p >= 0` with `a > 0` and `-b·x + q >= 0` with `b > 0` give
    // `b·p + a·q >= 0`: x lies between p's and q's bounds.
    for l in &lower {
        for u in &upper {
            let a = l.coefficients[variable] as i128;
            let b = -(u.coefficients[variable] as i128);
            let coefficients = l
                .coefficients
                .iter()
                .zip(&u.coefficients)
                .map(|(&p, &q)| b * p as i128 + a * q as i128)
                .collect();
            let constant = b * l.constant as i128 + a * u.constant as i128;
            match tighten(coefficients, constant) {
                Tightened::Infeasible => infeasible = true,
                Tightened::Trivial => {}
                Tightened::Row(row) => rest.push(row),
                Tightened::Overflow => return Err(GaveUp),
            }
        }
        if rest.len() > MAX_INEQUALITIES {
            return Err(GaveUp);
        }
    }
    rest.sort();
    rest.dedup();
    Ok(Projected {
        rows: rest,
        infeasible,
    })
}

/// The remaining variable whose elimination creates the fewest rows.
fn cheapest(rows: &[Inequality], remaining: &[usize]) -> Option<usize> {
    remaining
        .iter()
        .copied()
        .filter(|&v| rows.iter().any(|r| r.coefficients[v] != 0))
        .min_by_key(|&v| {
            let lower = rows.iter().filter(|r| r.coefficients[v] > 0).count();
            let upper = rows.iter().filter(|r| r.coefficients[v] < 0).count();
            (lower * upper) as isize - (lower + upper) as isize
        })
}

enum Tightened {
    Row(Inequality),
    /// No variable and a non-negative constant.
    Trivial,
    /// No variable and a negative constant.
    Infeasible,
    /// A coefficient no longer fits: give up (answer "feasible").
    Overflow,
}

/// Divides by the gcd of the coefficients, rounding the constant down:
/// `g·(a·x) + c >= 0` over integers is `a·x + floor(c / g) >= 0`. This
/// removes only rational points, never an integer one.
fn tighten(coefficients: Vec<i128>, constant: i128) -> Tightened {
    let g = coefficients.iter().fold(0i128, |g, &c| gcd(g, c.abs()));
    if g == 0 {
        return if constant >= 0 {
            Tightened::Trivial
        } else {
            Tightened::Infeasible
        };
    }
    let constant = constant.div_euclid(g);
    let narrow = |v: i128| i64::try_from(v).ok();
    let coefficients: Option<Vec<i64>> = coefficients.iter().map(|&c| narrow(c / g)).collect();
    match (coefficients, narrow(constant)) {
        (Some(coefficients), Some(constant)) => Tightened::Row(Inequality {
            coefficients,
            constant,
        }),
        _ => Tightened::Overflow,
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_that_cross_are_infeasible() {
        // 0 <= x <= 5 and x >= 6.
        let mut s = System::new(1);
        s.at_least_zero(vec![1], 0);
        s.at_least_zero(vec![-1], 5);
        assert!(s.may_be_feasible());
        assert!(!s.with(vec![1], -6).may_be_feasible());
    }

    #[test]
    fn triangular_bounds_exclude_equal_iterators() {
        // k < i <= j and j == k: lu's write A[i][j] against its read
        // A[i][k] in one iteration of i.
        let (i, j, k) = (0, 1, 2);
        let unit = |v: usize, c: i64| {
            let mut row = vec![0; 3];
            row[v] = c;
            row
        };
        let mut s = System::new(3);
        let mut lt = unit(i, 1);
        lt[k] = -1;
        s.at_least_zero(lt, -1); // i - k - 1 >= 0
        let mut le = unit(j, 1);
        le[i] = -1;
        s.at_least_zero(le, 0); // j - i >= 0
        assert!(s.may_be_feasible());
        let mut eq = unit(j, 1);
        eq[k] = -1;
        s.equal_zero(eq, 0);
        assert!(!s.may_be_feasible());
    }

    #[test]
    fn integer_tightening_finds_parity_gaps() {
        // 2x == 1 has a rational solution only.
        let mut s = System::new(1);
        s.equal_zero(vec![2], -1);
        assert!(!s.may_be_feasible());
    }

    #[test]
    fn parameters_stay_free() {
        // 0 <= x < n and x >= n: infeasible whatever n is.
        let mut s = System::new(2);
        s.at_least_zero(vec![1, 0], 0);
        s.at_least_zero(vec![-1, 1], -1);
        assert!(s.may_be_feasible());
        s.at_least_zero(vec![1, -1], 0);
        assert!(!s.may_be_feasible());
    }
}
