/**
 * The report people read: built from the seeded ground-truth world, opened in headless Debian Chromium with every
 * network request refused, checked for the verdict and a drawn chart in each container, and saved as a screenshot
 * under test-output/ (git-ignored). The Markdown form carries the same sections in the same order.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { blockedByChart, loopComparisonChart, recreationChart, starvationChart, type RecreationDurations } from '../../../outputs/review/charts.js';
import { renderSvg } from '../../../outputs/review/svg.js';
import { reportDocument } from '../../../outputs/review/document.js';
import { renderHtml } from '../../../outputs/review/html.js';
import { renderMarkdown } from '../../../outputs/review/markdown.js';
import { decide, groundTruthAttempts, HYPERSHIFT } from '../../analyzer/decisions/ground-truth.js';
import { REPO } from '../../support/paths.js';
import { launchChromium, type Browser } from './chromium.js';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionReport, type ControllerDecisions } from '../../../analyzer/decisions/decide.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { plantedWorld } from '../../analyzer/decisions/planted-world.js';
import { SMALL, SMALL_REVERSED, smallWorld } from '../../analyzer/decisions/planted-models.js';

/** The small planted world with a reversed prerequisite (Report fails under the phased loop), decided. */
function decidePlanted(): ControllerDecisions {
  const analyzer = new Analyzer([SMALL]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  for (const r of plantedWorld(smallWorld(11, SMALL_REVERSED))) analyzer.attempt(r);
  return decisionReport(analyzer, evidence, DEFAULT_THRESHOLDS).controllers[0]!;
}

const OUT = join(REPO, 'test-output');
const CHARTS = ['loop-comparison', 'unblocked-vs-newly-blocked', 'blocked-by', 'starvation-over-time', 'ordering-evidence', 'recreation-durations'];
const SECTIONS = [
  'rules',
  'rollout',
  'loop-comparison',
  'starvation',
  'reordered-pairs',
  'other-dependence',
  'classification',
  'noise-floor',
  'operations',
  'blocked-by',
  'thresholds',
];
const RECREATIONS: RecreationDurations[] = [
  { kind: 'Job', blockingSeconds: [42, 55, 61, 70, 95], sentinelSeconds: [48, 60, 70, 80, 100] },
  { kind: 'Deployment', blockingSeconds: [20, 22, 30], sentinelSeconds: [30, 31, 40] },
];

/** Drawn data marks in an SVG string: children of vega's `role-mark` groups. */
function markCount(svg: string): number {
  return (svg.match(/<g class="mark-[a-z]+ role-mark[^"]*"[^>]*>(?:<(?:path|text|line|rect|circle)\b)/g) ?? []).length;
}

describe('html report', function () {
  // a real Chromium renders the report
  this.timeout(60_000);
  let report: ReturnType<typeof decide>;
  let html: string;
  before(async () => {
    report = decide(HYPERSHIFT, groundTruthAttempts());
    html = await renderHtml(reportDocument(report, { recreations: RECREATIONS }));
  });

  it('is one self-contained file: no script, no external reference, charts inline as SVG', () => {
    assert.ok(html.startsWith('<!DOCTYPE html>'));
    // Only in-document references: `url(#clip0)` inside the SVGs.
    for (const external of [/<script|<link|<img|<iframe|@import/i, /url\((?!#)/i, /\s(?:src|href)=/i])
      assert.equal(html.match(external)?.[0], undefined, String(external));
    assert.equal(html.match(/<svg /g)?.length, CHARTS.length);
    // Verdict first: before any chart or table.
    assert.ok(html.indexOf('data-verdict="not-ready"') < html.indexOf('<figure'));
    assert.ok(html.indexOf('<figure') < html.indexOf('<table'));
  });

  describe('in headless Chromium', () => {
    let browser: Browser;
    const refused: string[] = [];
    before(async () => {
      browser = await launchChromium();
      await browser.context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file:')) return route.continue();
        refused.push(url);
        return route.abort();
      });
    });
    after(async () => {
      await browser.close();
    });

    it('shows the verdict and a drawn chart in every container, needs no network, and saves a screenshot', async () => {
      mkdirSync(OUT, { recursive: true });
      const file = join(OUT, 'decisions-report.html');
      writeFileSync(file, html);
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(file).href);

      const verdict = page.locator('[data-controller="hostedcluster"] .verdict');
      assert.equal(await verdict.getAttribute('data-verdict'), 'not-ready');
      assert.equal((await verdict.locator('.status').innerText()).trim(), 'NOT-READY');
      assert.match(await verdict.innerText(), /RestoredFromBackup depends on PullSecretSync failing earlier in the attempt/);
      assert.match(await verdict.innerText(), /GlobalConfigSync is non-critical, but downstream failures follow its failures/);

      const attributes = async (selector: string, name: string): Promise<(string | null)[]> =>
        Promise.all((await page.locator(selector).all()).map((l) => l.getAttribute(name)));
      assert.deepEqual(await attributes('figure.chart', 'data-chart'), CHARTS);
      for (const id of CHARTS) {
        const figure = page.locator(`figure.chart[data-chart="${id}"]`);
        const marks = await figure.locator('svg .role-mark > *').count();
        assert.ok(marks > 0, `${id}: no marks drawn`);
        const box = await figure.locator('svg').boundingBox();
        assert.ok(box && box.width > 200 && box.height > 40, `${id}: svg not laid out`);
      }
      // The recreation chart drew box plots (data given), not the placeholder message.
      assert.ok((await page.locator('figure.chart[data-chart="recreation-durations"] svg .mark-rect.role-mark > *').count()) >= 4);

      const sections = await attributes('[data-controller="hostedcluster"] section', 'data-section');
      assert.deepEqual(sections, SECTIONS);
      const dependentRow = page.locator('section[data-section="reordered-pairs"] tbody tr').first();
      assert.match(await dependentRow.innerText(), /^PullSecretSync\s+RestoredFromBackup\s+phased\s+(\d+)\/\1\s+0\/[\d,]+\s+\+100 pp/);

      await page.screenshot({ path: join(OUT, 'decisions-report.png'), fullPage: true });
      assert.deepEqual(refused, []);
      await page.close();
    });
  });

  it('Markdown: the same verdict, reasons, tables and per-loop chart (as text) in the same order, the other charts left to the HTML', () => {
    const md = renderMarkdown(reportDocument(report));
    assert.match(
      md,
      /^# reconcile-shadow: switch readiness\n\n## hostedcluster \(model hypershift-hostedcluster\)\n\n\*\*❌ NOT-READY\*\*: Not ready to switch to the phased loop/,
    );
    const headings = [...md.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(headings, [
      'Rules: what each decided, on what',
      'Rollout plan: one group to non-critical at a time, safest first',
      'Loop comparison: does an op fail more under the phased loop?',
      'Starvation in time: how long each loop keeps an op from running that the other would run',
      'Ordering evidence: pairs the phased loop runs in a new order',
      'Other dependence: pairs both loops run in the same order, and the sequential loop’s tables',
      'Classification check: critical vs non-critical',
      'Noise floor (A/A): outcome flips with no spec change',
      'Operations',
      'Blocked by (phased loop: failed critical group → skipped blockable group)',
      'Thresholds used',
    ]);
    // Columns: counts after failure and success, difference, margin, e-value (its e-BH bar), fixed-sample q, noise floor, status.
    assert.match(
      md,
      /\n\| PullSecretSync \| RestoredFromBackup \| phased \| (\d+)\/\1 \| 0\/[\d,]+ \| \+100 pp \| 0\.5% \| [\d.]+e\+\d+ \([\d.e+]+\) \| < 0\.0001 \| [\d.]+% \| \*\*dependent\*\* \| /,
    );
    assert.match(md, /\n\| GlobalConfigSync \| non-critical \| [\d,]+ \| \d+ \| \d+ \| - \| [\d,]+ \| \*\*should-be-critical\*\* \| should-be-critical \| /);
    // The per-loop comparison chart, as text: here nothing to compare (no attempt ran the sequential loop).
    assert.match(
      md,
      /\*\*Failure rate per operation, per loop\*\*: .*\n\n```text\n0 objects ran the sequential loop \(10 per loop needed to compare the loops’ failure rates\)\n```\n/,
    );
    assert.match(md, /_\d+ more pairs never seen after the first op failed \(\d+ of them cannot be: .*\): see the HTML report\._/);
    assert.doesNotMatch(md, /<svg/);
  });
});

describe('charts', function () {
  // a real Chromium renders the report
  this.timeout(60_000);
  it('draw a message, still as marks, when there is nothing to chart', async () => {
    const empty = decide(HYPERSHIFT, []).controllers[0]!;
    const summary = decide(HYPERSHIFT, []).summary.controllers[0]!;
    for (const chart of [recreationChart(undefined), recreationChart([]), blockedByChart(summary), starvationChart(empty.starvation)]) {
      const svg = await renderSvg(chart.spec);
      assert.ok(markCount(svg) > 0, chart.id);
      assert.match(
        svg,
        /<text[^>]*>(no recreation data|no critical group failed, so the phased loop blocked nothing|no starvation: the observed loop ran everything the other loop would have)<\/text>/,
      );
    }
  });

  it('the per-loop comparison: both loops’ rates per op, the worse op first and red, the same in the Markdown text', async () => {
    const c = decidePlanted();
    const chart = loopComparisonChart(c.comparison);
    const svg = await renderSvg(chart.spec);
    const labels = [...svg.matchAll(/<text[^>]*>([A-Za-z]+)<\/text>/g)].map((m) => m[1]);
    assert.equal(
      labels.find((l) => SMALL.operations.some((o) => o.name === l)),
      'Report',
    );
    assert.match(svg, /fill="#c5221f"/);
    assert.match(chart.text![0]!, /^Report +sequential .* +\d+\.\d+%$/);
    assert.match(chart.text![1]!, /^ +phased +█+.* +\d+\.\d+% {2}worse-under-phased$/);
    assert.equal(
      chart.text!.length,
      2 * SMALL.operations.filter((o) => c.comparison.operations.some((x) => x.operation === o.name && x.sequential.failures + x.phased.failures > 0)).length,
    );
  });

  it('recreation durations: one box per flow and kind', async () => {
    const svg = await renderSvg(recreationChart(RECREATIONS).spec);
    assert.doesNotMatch(svg, /no recreation data/);
    for (const label of ['blocking', 'sentinel', 'Job', 'Deployment']) assert.match(svg, new RegExp(`>${label}</text>`));
  });
});
