"""The test rig: what the tests, the benchmarks and the scripts share (a broker, a floor
service and fake tables, waiting on conditions, playing scenarios, the repository's paths).
Not shipped: ``tablectl`` never imports it, and nothing imports ``tests``."""
