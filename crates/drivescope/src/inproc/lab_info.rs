//! `info`, `lab presets`, `lab truth`, `completions` and `manpage`: what they print, in-process.

use super::{drive, Scratch};

#[test]
fn info_of_a_file_names_it() {
    let dir = Scratch::new("info");
    let file = dir.file("data", 1 << 20);
    let doc = drive(&["info", &file, "--json", "--no-smart"])
        .ends(0)
        .json();
    assert_eq!(doc["kind"], "info");
    assert!(doc.to_string().contains("data"), "{doc}");
}

#[test]
fn info_of_a_directory_names_its_file_system() {
    let dir = Scratch::new("info-dir");
    let text = drive(&["info", &dir.dir().display().to_string(), "--no-smart"])
        .ends(0)
        .stdout
        .clone();
    assert!(!text.is_empty());
}

#[test]
fn info_of_nothing_there_fails() {
    let dir = Scratch::new("info-none");
    drive(&["info", &dir.path("absent"), "--no-smart"]).ends(1);
}

#[test]
fn lab_presets_lists_models_and_each_prints_as_toml() {
    let doc = drive(&["lab", "presets", "--json"]).ends(0).json();
    let list = doc["presets"].as_array().expect("presets");
    assert!(list.len() >= 5, "{doc}");
    let name = list[0]["name"].as_str().expect("a name").to_string();
    let toml = drive(&["lab", "presets", "--toml", &name])
        .ends(0)
        .stdout
        .clone();
    assert!(toml.contains('='), "{toml}");
}

#[test]
fn lab_truth_of_a_preset_is_json_with_rates() {
    let doc = drive(&["lab", "presets", "--json"]).ends(0).json();
    let name = doc["presets"][0]["name"]
        .as_str()
        .expect("a name")
        .to_string();
    let truth = drive(&["lab", "truth", &name]).ends(0).json();
    assert!(truth.is_object(), "{truth}");
}

#[test]
fn lab_truth_of_an_unknown_model_fails() {
    let ran = drive(&["lab", "truth", "no-such-model"]);
    assert_ne!(ran.code(), 0, "{ran:?}");
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let script = drive(&["completions", shell]).ends(0).stdout.clone();
        assert!(script.contains("drivescope"), "{shell}");
        assert!(script.contains("durability"), "{shell}: every command");
    }
}

#[test]
fn the_man_page_is_roff() {
    let page = drive(&["manpage"]).ends(0).stdout.clone();
    assert!(
        page.starts_with(".ie") || page.contains(".TH"),
        "{}",
        &page[..200.min(page.len())]
    );
}
