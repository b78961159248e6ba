/**
 * `make power`: the verdict's error rates, measured on planted worlds (test/analyzer/decisions/planted-world.ts, a
 * generator that shares no code with the simulator) with the built-in HostedCluster model at full size, and written
 * as markdown (bench/power.md unless --out says otherwise):
 * - false alarms: null worlds (the regression op at its base rate in both loops), re-run every 6 h over 7 days;
 * - the 3× and 2× phased-only regressions of an op failing 0.5 % of the time, re-run the same way: found (`not-ready`
 *   naming the op) at the end and at which look, and whether any look called it `same` or `ready`;
 * - the power table: effect size × fleet size → share of seeds found at the end of 7 days;
 * - the checks: lost lines and a population imbalance, with the verdict's first reason.
 * `make test` runs the same claims on smaller worlds (test/analyzer/decisions/verdict-acceptance.test.ts).
 *
 *   node --import tsx bench/power.ts [--seeds 20] [--power-seeds 10] [--check-seeds 5] [--factors 1,1.5,2,3,5]
 *                                    [--fleets 50,100,200] [--sections a,b] [--out f]
 *
 * Sections: false-alarms, regressions, checks, power; each is written as soon as it is measured. Seeds start at 2401, above every seed the tests use.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../lib/package-root.js';
import type { Plant } from '../test/analyzer/decisions/planted-world.js';
import {
  FLAKY_ON_PHASED,
  HOSTED_CLUSTER,
  hostedClusterFleet,
  hostedClusterRegression,
  PHASED_ERROR_LINES_LOST,
  PHASED_LINES_LOST,
  REGRESSION_BASE_RATE,
  type FleetOptions,
} from '../test/analyzer/decisions/planted-models.js';
import { foundAt, namesWorse, runWorld, type VerdictView, type WorldRun } from '../test/analyzer/decisions/verdict-worlds.js';

const FIRST_SEED = 2401;
const LOOK_MS = 6 * 3_600_000;
const DAYS = 7;
const SECTIONS = ['false-alarms', 'regressions', 'checks', 'power'] as const;

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '20' },
    'power-seeds': { type: 'string', default: '10' },
    'check-seeds': { type: 'string', default: '5' },
    factors: { type: 'string', default: '1,1.5,2,3,5' },
    fleets: { type: 'string', default: '50,100,200' },
    sections: { type: 'string', default: SECTIONS.join(',') },
    out: { type: 'string', default: join(packageRoot(), 'bench', 'power.md') },
  },
});
const seeds = Number(values.seeds);
const powerSeeds = Number(values['power-seeds']);
const checkSeeds = Number(values['check-seeds']);
const sections = new Set(values.sections.split(','));
for (const s of sections) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--sections: no section ${s}; there are ${SECTIONS.join(', ')}`);

const op = hostedClusterRegression(HOSTED_CLUSTER, 1).op;
const seedList = (n: number): number[] => Array.from({ length: n }, (_, i) => FIRST_SEED + i);
const started = Date.now();

/** Runs are cached by world, so a 200-object world run for one section is not run again for another. */
const cache = new Map<string, WorldRun>();
function run(seed: number, plant: Plant, options: FleetOptions, looks: boolean): WorldRun {
  const key = JSON.stringify([seed, plant, options]);
  const hit = cache.get(key);
  if (hit && (hit.looks.length > 1 || !looks)) return hit;
  const t = Date.now();
  const result = runWorld(hostedClusterFleet(seed, plant, { days: DAYS, ...options }), looks ? LOOK_MS : DAYS * 86_400_000);
  cache.set(key, result);
  const v = result.final;
  process.stderr.write(
    `${((Date.now() - started) / 1000).toFixed(0)}s  seed ${seed} ${JSON.stringify(plant.kind === 'phased-regression' ? plant.factor : plant.kind)} ${JSON.stringify(options)}: ${v.status} (${v.reasons[0]?.kind ?? '-'}), ${result.attempts} attempts, ${((Date.now() - t) / 1000).toFixed(1)} s\n`,
  );
  return result;
}

const share = (k: number, n: number): string => `${k}/${n} (${Math.round((100 * k) / n)} %)`;
const count = <T>(xs: readonly T[], p: (x: T) => boolean): number => xs.filter(p).length;
const anyLook = (r: WorldRun, p: (v: VerdictView) => boolean): boolean => r.looks.some((l) => p(l.view));
/** `kind` (×n), most frequent first. */
function tally(xs: readonly string[]): string {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return (
    [...m]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, n]) => `\`${k}\` ×${n}`)
      .join(', ') || '–'
  );
}
const notReadyKinds = (v: VerdictView): string[] => [...new Set(v.reasons.filter((r) => r.status === 'not-ready').map((r) => r.kind))];

function commit(): string {
  const git = spawnSync('git', ['log', '-1', '--format=%h %s'], { cwd: packageRoot(), encoding: 'utf8' });
  return git.status === 0 ? git.stdout.trim() : 'unknown commit';
}

/** Writes what is measured so far: a long run stopped early keeps its finished sections. */
function write(): void {
  writeFileSync(values.out, out.join('\n'));
}

const out: string[] = [
  '# Power and false alarms of the verdict on planted worlds',
  '',
  `Generated by \`make power\` (bench/power.ts) at ${commit()}. Worlds: test/analyzer/decisions/planted-world.ts with the built-in`,
  `HostedCluster model (\`hostedClusterFleet\`), half the fleet on each loop, ${DAYS} days unless told; the regression is planted on`,
  `${op}, failing ${REGRESSION_BASE_RATE * 100} % of the time under both loops, times the factor on the phased loop's objects only. "Found" is`,
  '`not-ready` with a deciding reason naming the op and the loop comparison finding it `worse-under-phased`. Re-runs decide the',
  'journal written so far every 6 h (28 looks over 7 days), as a canary re-run on a timer would. Seeds from 2401.',
  '',
  `This run: \`${process.argv.slice(2).join(' ') || '(defaults)'}\` (${seeds} seeds per re-run world, ${powerSeeds} per power cell, ${checkSeeds} per check).`,
  '',
];

if (sections.has('false-alarms')) {
  const runs = seedList(seeds).map((s) => run(s, hostedClusterRegression(HOSTED_CLUSTER, 1), {}, true));
  const looks = runs.flatMap((r) => r.looks);
  out.push(
    '## False alarms: null worlds re-run every 6 h',
    '',
    `${seeds} null worlds of 200 objects (the op at ${REGRESSION_BASE_RATE * 100} % in both loops).`,
    '',
    '| | at the end | at any look |',
    '|---|---|---|',
    `| \`not-ready\` | ${share(
      count(runs, (r) => r.final.status === 'not-ready'),
      seeds,
    )} | ${share(
      count(runs, (r) => anyLook(r, (v) => v.status === 'not-ready')),
      seeds,
    )} worlds; ${share(
      count(looks, (l) => l.view.status === 'not-ready'),
      looks.length,
    )} looks |`,
    `| \`inconclusive\` | ${share(
      count(runs, (r) => r.final.status === 'inconclusive'),
      seeds,
    )} | ${share(
      count(runs, (r) => anyLook(r, (v) => v.status === 'inconclusive')),
      seeds,
    )} worlds |`,
    `| \`ready\` | ${share(
      count(runs, (r) => r.final.status === 'ready'),
      seeds,
    )} | ${share(
      count(runs, (r) => anyLook(r, (v) => v.status === 'ready')),
      seeds,
    )} worlds |`,
    `| ${op} named worse | ${share(
      count(runs, (r) => namesWorse(r.final, op)),
      seeds,
    )} | ${share(
      count(runs, (r) => foundAt(r, op) !== null),
      seeds,
    )} worlds |`,
    '',
    `Deciding reasons of the \`not-ready\` looks: ${tally(looks.flatMap((l) => notReadyKinds(l.view)))}.`,
    `First reasons at the end: ${tally(runs.map((r) => r.final.reasons[0]?.kind ?? '(none)'))}.`,
    `Status flips between consecutive looks: ${runs.reduce((n, r) => n + r.looks.filter((l, i) => i > 0 && l.view.status !== r.looks[i - 1]!.view.status).length, 0)} over ${seeds} worlds.`,
    '',
  );
  write();
}

if (sections.has('regressions')) {
  out.push(
    '## Regressions re-run every 6 h',
    '',
    `${seeds} seeds each, 200 objects. "First found" is the look (hours of journal) at which the op was first named worse.`,
    '',
    '| factor | found at the end | first found, median (range) | lost again at a later look | `same` at the end | `same` at any look | `ready` at the end | `ready` at any look |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const factor of [3, 2]) {
    const runs = seedList(seeds).map((s) => run(s, hostedClusterRegression(HOSTED_CLUSTER, factor), {}, true));
    const first = runs
      .map((r) => foundAt(r, op))
      .filter((h): h is number => h !== null)
      .sort((a, b) => a - b);
    const median = first.length === 0 ? '–' : `${first[Math.floor((first.length - 1) / 2)]} h (${first[0]}–${first.at(-1)} h)`;
    const lost = count(runs, (r) => {
      const at = foundAt(r, op);
      return at !== null && r.looks.some((l) => l.hours > at && !namesWorse(l.view, op));
    });
    const same = (v: VerdictView): boolean => v.findings.get(op) === 'same';
    out.push(
      `| ${factor}× | ${share(
        count(runs, (r) => namesWorse(r.final, op)),
        seeds,
      )} | ${median} | ${lost} | ${count(runs, (r) => same(r.final))} | ${count(runs, (r) => anyLook(r, same))} | ${count(runs, (r) => r.final.status === 'ready')} | ${count(runs, (r) => anyLook(r, (v) => v.status === 'ready'))} |`,
    );
  }
  out.push('');
  write();
}

if (sections.has('checks')) {
  const scenarios: { name: string; plant: Plant; options: FleetOptions }[] = [
    { name: 'null, 30 % of the phased lines lost at random', plant: hostedClusterRegression(HOSTED_CLUSTER, 1), options: { loss: PHASED_LINES_LOST } },
    { name: '3×, 30 % of the phased lines lost at random', plant: hostedClusterRegression(HOSTED_CLUSTER, 3), options: { loss: PHASED_LINES_LOST } },
    { name: '3×, 30 % of the phased lines with an error lost', plant: hostedClusterRegression(HOSTED_CLUSTER, 3), options: { loss: PHASED_ERROR_LINES_LOST } },
    { name: 'null, the flakiest fifth all on the phased loop', plant: hostedClusterRegression(HOSTED_CLUSTER, 1), options: { population: FLAKY_ON_PHASED } },
    {
      name: 'null, the flakiest fifth spread by the shuffle',
      plant: hostedClusterRegression(HOSTED_CLUSTER, 1),
      options: { population: { ...FLAKY_ON_PHASED, onPhased: false } },
    },
  ];
  out.push(
    '## Checks before judging',
    '',
    `${checkSeeds} seeds each, 200 objects, decided once at the end.`,
    '',
    '| world | verdicts | first reasons | ops named worse (median) |',
    '|---|---|---|---|',
  );
  for (const s of scenarios) {
    const runs = seedList(checkSeeds).map((seed) => run(seed, s.plant, s.options, false));
    const worse = runs.map((r) => [...r.final.findings.values()].filter((f) => f === 'worse-under-phased').length).sort((a, b) => a - b);
    out.push(
      `| ${s.name} | ${tally(runs.map((r) => r.final.status))} | ${tally(runs.map((r) => r.final.reasons[0]?.kind ?? '(none)'))} | ${worse[Math.floor((worse.length - 1) / 2)]} |`,
    );
  }
  out.push('');
  write();
}

if (sections.has('power')) {
  const fleets = values.fleets.split(',').map(Number);
  const factors = values.factors.split(',').map(Number);
  out.push(
    '## Power: effect size × fleet size → share of seeds found',
    '',
    `${powerSeeds} seeds per cell, ${DAYS} days, decided once at the end. Factor 1 is the null world: its row is the false-alarm rate on the op.`,
    '',
    `| factor | ${fleets.map((f) => `${f} objects`).join(' | ')} |`,
    `|---|${fleets.map(() => '---').join('|')}|`,
  );
  for (const factor of factors) {
    const cells = fleets.map((objects) => {
      const runs = seedList(powerSeeds).map((s) => run(s, hostedClusterRegression(HOSTED_CLUSTER, factor), objects === 200 ? {} : { objects }, false));
      return share(
        count(runs, (r) => namesWorse(r.final, op)),
        powerSeeds,
      );
    });
    out.push(`| ${factor}× | ${cells.join(' | ')} |`);
  }
  out.push('');
}

write();
process.stderr.write(`wrote ${values.out} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
