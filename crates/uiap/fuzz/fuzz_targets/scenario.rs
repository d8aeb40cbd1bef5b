//! Fuzz the simulator's scenario format: no input panics the deserializer, the validation or
//! building the simulation; what validates builds, and what fails says where.
#![no_main]

use libfuzzer_sys::fuzz_target;
use uiap::sim::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(scenario) = serde_json::from_slice::<Scenario>(data) else {
        return;
    };
    match scenario.validate() {
        Ok(()) => {
            let sim = scenario.build().expect("a valid scenario builds");
            assert_eq!(sim.node_count(), scenario.devices.len());
        }
        Err(e) => {
            assert!(
                !e.path().is_empty(),
                "a reference error names its place: {e}"
            );
            assert!(scenario.build().is_err());
        }
    }
});
