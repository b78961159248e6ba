/**
 * A root hook (.mocharc.json `require`): at the end of the run, nothing a test opened may still be open. Mocha runs
 * without `exit: true`, so a leaked server, socket, watcher or timer would hold the process; this names it instead,
 * as a failure, then ends the process so the run cannot hang.
 */
/** Resource types and how many were active before the first test (the runner's own pipes and TTYs). */
let baseline = new Map<string, number>();

const count = (types: readonly string[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const t of types) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
};

/** Active resources beyond the baseline, as `type ×n`. */
function leaked(): string[] {
  const out: string[] = [];
  for (const [type, n] of count(process.getActiveResourcesInfo())) {
    const extra = n - (baseline.get(type) ?? 0);
    if (extra > 0) out.push(`${type} ×${extra}`);
  }
  return out;
}

/** How many turns of the event loop a closing handle gets to finish closing (no timer: a turn is setImmediate). */
const SETTLE_TURNS = 1000;

export const mochaHooks = {
  // Async like afterAll, so Mocha's own timer for the hook is in the baseline as it is at the end.
  beforeAll(): Promise<void> {
    baseline = count(process.getActiveResourcesInfo());
    return Promise.resolve();
  },
  async afterAll(): Promise<void> {
    for (let turn = 0; turn < SETTLE_TURNS && leaked().length > 0; turn++) await new Promise((r) => setImmediate(r));
    const open = leaked();
    if (open.length === 0) return;
    // Fail the run, and do not let what is left open keep the process alive (an unref'd timer never does).
    setTimeout(() => process.exit(1), 2000).unref();
    throw new Error(`the tests left open: ${open.join(', ')} (process.getActiveResourcesInfo()); close what a test opens in its after/afterEach hook`);
  },
};
