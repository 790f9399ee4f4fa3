//! Counts the leaves of the tutorial's space on the Rust host, then shows
//! the decisions left once `tile(i)` is fixed to 64.

use commute_runtime::count::count_leaves;
use commute_runtime::{Action, Candidate};
use commute_tutorial_host::{tune, Kernel};

fn main() -> Result<(), String> {
    let kernel = Kernel::tutorial();
    let root = Candidate::new(tune::Backbone(kernel.clone())).map_err(|e| e.to_string())?;
    let leaves = count_leaves(&root, tune::MODEL.default_priority).leaves;
    println!("{leaves} leaves");
    // Tile `i` (object 0) by 64: 64 is the fifth tile size.
    let mut fixed = root.clone();
    fixed
        .apply(&Action {
            choice: tune::tile::CHOICE,
            objects: vec![0],
            values: 1 << 4,
        })
        .map_err(|e| e.to_string())?;
    for instance in fixed.open_instances(&[]) {
        let name = &kernel.loops[instance.objects[0] as usize].0;
        let choice = tune::MODEL.choices[instance.choice as usize].name;
        let values: Vec<String> = fixed
            .alternatives(&instance)
            .iter()
            .map(|a| fixed.describe(a))
            .map(|d| d.rsplit(" = ").next().unwrap_or("").to_string())
            .collect();
        println!("{choice}({name}) = {{{}}}", values.join(", "));
    }
    Ok(())
}
