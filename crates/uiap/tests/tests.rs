//! Integration tests of the protocol core: one module per area (wire format, identifier spaces,
//! the device state machine driven by hand, the simulator), in one test binary.

mod device_support;

mod device_defense;
mod device_hostile;
mod device_notice;
mod device_state;
mod sim_loss;
mod sim_partition_window;
mod sim_relay_burst;
mod sim_scale;
#[cfg(feature = "serde")]
mod sim_scenario_file;
#[cfg(feature = "serde")]
mod sim_scenario_schema;
mod sim_scenarios;
mod space_did;
mod space_overlap;
mod space_uid;
mod wire_golden;
mod wire_reject;
mod wire_roundtrip;
