import Testing

/// Every test that drives the web engine, one at a time: each starts web processes, and the
/// machine has two cores.
@Suite(.serialized) struct WebKitTests {}
