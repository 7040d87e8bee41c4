"""What the tests, the benchmarks (bench/) and scripts/demo share: a throwaway mosquitto and
sample hub results and links. Not part of the table's software (not in the wheel)."""
