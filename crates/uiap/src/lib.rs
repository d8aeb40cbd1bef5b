//! UIAP: the Unique Identifier Allocation Protocol.
