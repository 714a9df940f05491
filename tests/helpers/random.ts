/** Deterministic pseudo-random numbers for fuzz tests: the workbench's own seeded generator. */

export { mulberry32 } from "../../src/cloud/model/random.ts";
