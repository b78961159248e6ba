/** Generated cases per parser: a few thousand in `make test`, FUZZ_RUNS (100,000 in `make fuzz`) otherwise. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
