//! The conditions `$x in S` and `$a < $b` on a space loaded at run time:
//! the engine computes them from the sets the host file lists, so the
//! file gives no value for them, and may not.

use commute_hostfile::{read, DataHost};
use commute_runtime::model::Model;
use commute_runtime::{Candidate, Domain, InstanceId};

const SPACE: &str = "\
set Nodes
set Inputs subsetof Nodes
set Groups
set Members($g in Groups) subsetof Nodes

property heavy($n in Nodes) -> bool

choice enum place($n in Nodes):
  value HOST
  value DEVICE
end

require forall $n in Nodes: $n not in Inputs || place($n) is HOST
require forall $g in Groups, $a in Members($g), $b in Nodes:
  $b not in Members($g) || $a >= $b || place($a) == place($b)
require forall $n in Nodes: !heavy($n) || place($n) is DEVICE
";

/// Ids follow the order of `Nodes`: a = 0, b = 1, c = 2, d = 3.
const HOST: &str = r#"
[sets]
Nodes = ["a", "b", "c", "d"]
Inputs = ["a"]
Groups = ["g"]
Members = { g = ["a", "c"] }

[properties]
heavy = { d = true, "*" = false }
"#;

const HOST_PLACE: u64 = 1;
const DEVICE_PLACE: u64 = 2;

/// The tables of [`SPACE`], written to a folder of the test's own (tests
/// run in parallel).
fn model(test: &str) -> &'static Model {
    let dir = std::env::temp_dir().join(format!(
        "commute-hostfile-derived-{test}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let path = dir.join("nodes.space");
    std::fs::write(&path, SPACE).expect("space written");
    let model = commute_codegen::load(&path).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_dir_all(&dir).ok();
    model
}

#[test]
fn a_host_file_gives_no_derived_property() {
    let model = model("gives-none");
    assert!(
        model.properties.iter().any(|p| p.derived.is_some()),
        "the space has no derived property: {:?}",
        model.properties
    );
    let host = DataHost::new(read(model, "host.toml", HOST).unwrap_or_else(|e| panic!("{e}")));
    let root = Candidate::new(host).expect("the space has leaves");
    let place = |name: &str| {
        let id = ["a", "b", "c", "d"]
            .iter()
            .position(|n| *n == name)
            .expect("a node") as u32;
        root.domain(&InstanceId {
            choice: 0,
            objects: vec![id],
        })
    };
    // `a` is an input, `c` shares its group and place, `d` is heavy; `b`
    // is in no group and free.
    assert_eq!(place("a"), Some(Domain::Enum(HOST_PLACE)));
    assert_eq!(place("c"), Some(Domain::Enum(HOST_PLACE)));
    assert_eq!(place("d"), Some(Domain::Enum(DEVICE_PLACE)));
    assert_eq!(place("b"), Some(Domain::Enum(HOST_PLACE | DEVICE_PLACE)));
}

#[test]
fn a_host_file_that_gives_a_derived_property_is_refused() {
    let model = model("refused");
    let derived = model
        .properties
        .iter()
        .find(|p| p.derived.is_some())
        .expect("a derived property");
    let text = format!("{HOST}\"{}\" = {{ \"*\" = true }}\n", derived.name);
    let errors = read(model, "host.toml", &text)
        .expect_err("refused")
        .to_string();
    assert!(
        errors.contains(&format!("`{}` is a condition of the space", derived.name)),
        "{errors}"
    );
    // Only the properties the host gives are offered for a misspelt one.
    let text = HOST.replace("heavy", "heavey");
    let errors = read(model, "host.toml", &text)
        .expect_err("refused")
        .to_string();
    let offered = errors
        .lines()
        .find_map(|line| line.split("the space has no property `heavey`; ").nth(1))
        .unwrap_or_else(|| panic!("no unknown property in:\n{errors}"));
    assert_eq!(offered, "its properties are heavy");
}
