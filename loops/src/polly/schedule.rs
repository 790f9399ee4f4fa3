//! Polly's schedules as JSCoP files hold them, read per statement into
//! what each schedule dimension is: a constant (the place in a sequence),
//! a loop of the statement, or the tile or point part of a tiled loop.

use std::fmt;

use serde_json::Value;

use super::isl::{self, Affine, Constraint, Var};

/// One dimension of a statement's schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleDim {
    /// A position in a sequence of siblings.
    Constant(i64),
    /// A loop of the statement, whole.
    Loop {
        /// The loop's place around the statement, outermost first.
        depth: usize,
    },
    /// The tiles of a loop: `floor(i / size)`.
    Tile {
        /// The loop's place around the statement, outermost first.
        depth: usize,
        /// Iterations per tile.
        size: i64,
    },
    /// The points of a tiled loop: `i - size * floor(i / size)`.
    Point {
        /// The loop's place around the statement, outermost first.
        depth: usize,
        /// Iterations per tile.
        size: i64,
    },
    /// Anything else (a skew, a shift), as isl wrote it.
    Other(String),
}

impl fmt::Display for ScheduleDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleDim::Constant(c) => write!(f, "{c}"),
            ScheduleDim::Loop { depth } => write!(f, "i{depth}"),
            ScheduleDim::Tile { depth, size } => write!(f, "i{depth}/{size}"),
            ScheduleDim::Point { depth, size } => write!(f, "i{depth}%{size}"),
            ScheduleDim::Other(text) => write!(f, "{text}"),
        }
    }
}

/// A write of a statement: to an array element, or to a scalar (a
/// zero-dimensional reference or one of Polly's `__phi` values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    /// The array's name in Polly's region (`MemRef0`).
    pub array: String,
    /// A scalar, not an array element.
    pub scalar: bool,
    /// The statement's loops its subscripts read (their places around
    /// it, outermost first, in order): which loops a write's element
    /// depends on survives Polly's linearized subscripts and shifted
    /// loops.
    pub loops: Vec<usize>,
    /// Whether its subscripts read a parameter: the iterator of a loop
    /// around the region, when the region is the inside of a loop.
    pub parametric: bool,
}

/// One statement of a region as Polly scheduled it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PollyStatement {
    /// Polly's name (`Stmt2`, `Stmt_for_body`).
    pub name: String,
    /// Loops around it in Polly's region.
    pub depth: usize,
    /// Its schedule as isl wrote it.
    pub text: String,
    /// Its schedule, read; `Err` when it could not be read.
    pub dims: Result<Vec<ScheduleDim>, String>,
    /// What it writes.
    pub writes: Vec<Write>,
}

impl PollyStatement {
    /// Whether it writes an array element (else only scalars).
    pub fn writes_memory(&self) -> bool {
        self.writes.iter().any(|w| !w.scalar)
    }

    /// The arrays it writes elements of, each once.
    pub fn written_arrays(&self) -> usize {
        let mut arrays: Vec<&str> = self
            .writes
            .iter()
            .filter(|w| !w.scalar)
            .map(|w| w.array.as_str())
            .collect();
        arrays.sort_unstable();
        arrays.dedup();
        arrays.len()
    }
}

/// A region (SCoP) of Polly's, from one JSCoP file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PollyRegion {
    /// The file's name, which names the function and the region.
    pub file: String,
    /// Its statements, in Polly's order (that of their basic blocks).
    pub statements: Vec<PollyStatement>,
    /// Its parameters: values fixed while it runs (sizes not known at
    /// compile time, or the iterators of loops around it).
    pub parameters: Vec<String>,
}

/// Reads a JSCoP file's text.
pub fn read_jscop(file: &str, text: &str) -> Result<PollyRegion, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("{file}: not JSON: {e}"))?;
    let statements = json
        .get("statements")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{file}: no `statements`"))?;
    let mut parameters = Vec::new();
    let statements = statements
        .iter()
        .map(|s| read_statement(s, &mut parameters).map_err(|e| format!("{file}: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(PollyRegion {
        file: file.to_string(),
        statements,
        parameters,
    })
}

fn read_statement(json: &Value, parameters: &mut Vec<String>) -> Result<PollyStatement, String> {
    let field = |name: &str| {
        json.get(name)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("a statement without `{name}`"))
    };
    let name = field("name")?.to_string();
    let domain = isl::parse(field("domain")?).map_err(|e| format!("{name}'s domain: {e}"))?;
    for parameter in &domain.params {
        if !parameters.contains(parameter) {
            parameters.push(parameter.clone());
        }
    }
    let depth = domain.pieces.first().map_or(0, |piece| piece.inputs.len());
    let text = field("schedule")?.to_string();
    let dims = isl::parse(&text).and_then(|map| match map.pieces.as_slice() {
        [piece] => Ok(classify(&piece.inputs, &piece.outputs, &piece.constraints)),
        pieces => Err(format!("{} pieces", pieces.len())),
    });
    let mut writes = Vec::new();
    for access in json
        .get("accesses")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
    {
        if access.get("kind").and_then(Value::as_str) != Some("write") {
            continue;
        }
        let Some(relation) = access.get("relation").and_then(Value::as_str) else {
            continue;
        };
        let Ok(map) = isl::parse(relation) else {
            continue;
        };
        for piece in &map.pieces {
            let array = piece.output_name.clone().unwrap_or_default();
            let loops = (0..piece.inputs.len())
                .filter(|&d| {
                    let input = Var::Name(piece.inputs[d].clone());
                    piece.outputs.iter().any(|o| o.terms.contains_key(&input))
                })
                .collect();
            let parametric = map.params.iter().any(|p| {
                let parameter = Var::Name(p.clone());
                piece
                    .outputs
                    .iter()
                    .any(|o| o.terms.contains_key(&parameter))
            });
            writes.push(Write {
                scalar: piece.outputs.is_empty() || array.ends_with("__phi"),
                array,
                loops,
                parametric,
            });
        }
    }
    Ok(PollyStatement {
        name,
        depth,
        text,
        dims,
        writes,
    })
}

/// What each output of a statement's schedule is, given its inputs (the
/// loops around it, outermost first) and the constraints that define the
/// outputs that are not expressions of the inputs (`o0` with
/// `-31 + i0 <= 32o0 <= i0` is `floor(i0 / 32)`).
pub fn classify(
    inputs: &[String],
    outputs: &[Affine],
    constraints: &[Constraint],
) -> Vec<ScheduleDim> {
    let depth_of = |var: &Var| match var {
        Var::Name(name) => inputs.iter().position(|i| i == name),
        Var::Floor(..) => None,
    };
    // A tile: a floor of one input, written out or defined by constraints.
    let tile_of = |var: &Var| -> Option<(usize, i64)> {
        match var {
            Var::Floor(inner, size) => inner.as_var().and_then(depth_of).map(|d| (d, *size)),
            Var::Name(name) if depth_of(var).is_none() => {
                floor_definition(name, inputs, constraints)
            }
            Var::Name(_) => None,
        }
    };
    outputs
        .iter()
        .map(|output| {
            if output.terms.is_empty() {
                return ScheduleDim::Constant(output.constant);
            }
            if let Some(var) = output.as_var() {
                if let Some(depth) = depth_of(var) {
                    return ScheduleDim::Loop { depth };
                }
                if let Some((depth, size)) = tile_of(var) {
                    return ScheduleDim::Tile { depth, size };
                }
            }
            // `i - size * tile(i)`.
            if output.constant == 0 && output.terms.len() == 2 {
                let mut input = None;
                let mut tile = None;
                for (var, &c) in &output.terms {
                    match (depth_of(var), tile_of(var)) {
                        (Some(d), _) if c == 1 => input = Some(d),
                        (None, Some((d, size))) if c == -size => tile = Some((d, size)),
                        _ => {}
                    }
                }
                if let (Some(d), Some((t, size))) = (input, tile) {
                    if d == t {
                        return ScheduleDim::Point { depth: d, size };
                    }
                }
            }
            ScheduleDim::Other(output.to_string())
        })
        .collect()
}

/// The input and divisor `name` is the floor of: constraints
/// `i - size * name >= 0` and `size * name - i + size - 1 >= 0`.
fn floor_definition(
    name: &str,
    inputs: &[String],
    constraints: &[Constraint],
) -> Option<(usize, i64)> {
    let var = Var::Name(name.to_string());
    let mut lower = None;
    let mut upper = None;
    for constraint in constraints.iter().filter(|c| !c.equality) {
        let expr = &constraint.expr;
        let Some(&c) = expr.terms.get(&var) else {
            continue;
        };
        if expr.terms.len() != 2 {
            continue;
        }
        let Some((other, &k)) = expr.terms.iter().find(|(v, _)| **v != var) else {
            continue;
        };
        let Var::Name(other) = other else { continue };
        let Some(depth) = inputs.iter().position(|i| i == other) else {
            continue;
        };
        // i - size * o >= 0
        if k == 1 && c < 0 && expr.constant == 0 {
            upper = Some((depth, -c));
        }
        // size * o - i + size - 1 >= 0
        if k == -1 && c > 0 && expr.constant == c - 1 {
            lower = Some((depth, c));
        }
    }
    match (lower, upper) {
        (Some(a), Some(b)) if a == b => Some(a),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(schedule: &str) -> Vec<ScheduleDim> {
        let map = isl::parse(schedule).unwrap();
        let piece = &map.pieces[0];
        classify(&piece.inputs, &piece.outputs, &piece.constraints)
    }

    #[test]
    fn tiles_points_loops_and_constants() {
        use ScheduleDim::*;
        assert_eq!(
            dims("{ S[i0, i1, i2] -> [2, o1, o2, i2, i0 - 32o1, i1 - 16o2] : -31 + i0 <= 32o1 <= i0 and -15 + i1 <= 16o2 <= i1 }"),
            [
                Constant(2),
                Tile { depth: 0, size: 32 },
                Tile { depth: 1, size: 16 },
                Loop { depth: 2 },
                Point { depth: 0, size: 32 },
                Point { depth: 1, size: 16 },
            ]
        );
        assert_eq!(
            dims("{ S[i0] -> [floor((i0)/8), i0 - 8*floor((i0)/8)] }"),
            [Tile { depth: 0, size: 8 }, Point { depth: 0, size: 8 }]
        );
    }

    #[test]
    fn skews_and_shifts_are_other() {
        let found = dims("{ S[i0, i1] -> [i0, i0 + i1, i1 + 1] }");
        assert_eq!(found[0], ScheduleDim::Loop { depth: 0 });
        assert_eq!(found[1], ScheduleDim::Other("i0 + i1".to_string()));
        assert_eq!(found[2], ScheduleDim::Other("i1 + 1".to_string()));
    }

    #[test]
    fn reads_a_jscop_file() {
        let text = r#"{ "context": "{  :  }", "name": "r", "arrays": [],
          "statements": [ { "name": "Stmt1",
            "domain": "{ Stmt1[i0, i1] : 0 <= i0 <= 9 and 0 <= i1 <= 9 }",
            "schedule": "{ Stmt1[i0, i1] -> [i1, i0] }",
            "accesses": [ { "kind": "read", "relation": "{ Stmt1[i0, i1] -> MemRef0[10i0 + i1] }" },
                          { "kind": "write", "relation": "{ Stmt1[i0, i1] -> MemRef1[10i1 + i0] }" },
                          { "kind": "write", "relation": "{ Stmt1[i0, i1] -> MemRef2__phi[] }" } ] } ] }"#;
        let region = read_jscop("f.jscop", text).unwrap();
        let s = &region.statements[0];
        assert_eq!(s.depth, 2);
        assert_eq!(
            s.dims.as_ref().unwrap(),
            &[
                ScheduleDim::Loop { depth: 1 },
                ScheduleDim::Loop { depth: 0 }
            ]
        );
        assert!(s.writes_memory());
        assert_eq!(s.written_arrays(), 1);
        assert!(read_jscop("f.jscop", "{").is_err());
    }
}
