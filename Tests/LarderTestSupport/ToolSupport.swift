// What the tests share with the tools (LarderToolSupport: the seeded generator, the archive
// builder, the real-world sources), for every test that imports LarderTestSupport.
@_exported import LarderToolSupport
